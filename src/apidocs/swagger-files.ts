// Swagger UI's files, gzipped, read from node_modules when running from source. The
// bundler replaces this module by one that holds them (build/embed-plugin.mjs), so
// the executable needs no file beside it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';

/** Same rule as the plugin: the source map is not shipped, so no link to it. */
const SOURCE_MAP_LINK = /\n\/[/*]# sourceMappingURL=[^\n]*\s*$/;

export function swaggerFileGzip(name: string): Buffer {
  const require = createRequire(import.meta.url);
  const text = readFileSync(require.resolve(`swagger-ui-dist/${name}`), 'utf8').replace(SOURCE_MAP_LINK, '\n');
  return gzipSync(text);
}
