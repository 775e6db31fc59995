// esbuild plugin: replaces src/docs/swagger-files.ts by the Swagger UI files the /docs page
// needs (src/docs/swagger-files.json), gzipped, so the single executable serves them.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';

const require = createRequire(import.meta.url);

/** Same rule as src/docs/swagger-files.ts: the source map is not shipped, so no link to it. */
const SOURCE_MAP_LINK = /\n\/[/*]# sourceMappingURL=[^\n]*\s*$/;

export function embedSwaggerUi() {
  return {
    name: 'embed-swagger-ui',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]docs[\\/]swagger-files\.ts$/ }, () => {
        const names = JSON.parse(readFileSync(new URL('./swagger-files.json', import.meta.url), 'utf8'));
        const files = {};
        for (const name of names) {
          const text = readFileSync(require.resolve(`swagger-ui-dist/${name}`), 'utf8').replace(SOURCE_MAP_LINK, '\n');
          files[name] = gzipSync(text, { level: 9 }).toString('base64');
        }
        const contents = `const FILES = ${JSON.stringify(files)};\n` +
          'export function swaggerFileGzip(name) { return Buffer.from(FILES[name], "base64"); }\n';
        return { contents, loader: 'js' };
      });
    },
  };
}
