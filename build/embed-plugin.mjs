// Build-time half of the /docs assets. Swagger UI's files (src/apidocs/swagger-files.json)
// are gzipped into dist/sea-assets/ and handed to Node's single-executable config as
// assets: they travel in the executable as raw bytes, not as JavaScript source to parse
// at every start (measured: 650 KB of base64 in the bundle cost ~20 ms of compile time).
// The esbuild plugin replaces src/apidocs/swagger-files.ts by a reader of those assets.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const NAMES = JSON.parse(readFileSync(join(here, '../src/apidocs/swagger-files.json'), 'utf8'));

/** Same rule as src/apidocs/swagger-files.ts: the source map is not shipped, so no link to it. */
const SOURCE_MAP_LINK = /\n\/[/*]# sourceMappingURL=[^\n]*\s*$/;

/** Writes the gzipped files to `dir` and returns the SEA config's `assets` map. */
export function writeSwaggerAssets(dir) {
  mkdirSync(dir, { recursive: true });
  const assets = {};
  for (const name of NAMES) {
    const text = readFileSync(require.resolve(`swagger-ui-dist/${name}`), 'utf8').replace(SOURCE_MAP_LINK, '\n');
    const file = join(dir, `${name}.gz`);
    writeFileSync(file, gzipSync(text, { level: 9 }));
    assets[`${name}.gz`] = file;
  }
  return assets;
}

/**
 * An esbuild plugin that bundles build/replacements/<file> (TypeScript, type-checked with the
 * sources) in place of the source module at `modulePath` (relative to the repository).
 */
export function replaceModule(name, modulePath, file) {
  const escaped = modulePath.split('/').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const filter = new RegExp(`[\\\\/]${escaped.join('[\\\\/]')}$`);
  const path = join(here, 'replacements', file);
  return {
    name,
    setup: (build) => build.onLoad({ filter }, () => ({ loader: 'ts', contents: readFileSync(path, 'utf8'), resolveDir: dirname(path) })),
  };
}

/** Swagger UI's files from the executable's assets (build/replacements/swagger-files.ts). */
export function embedSwaggerUi() {
  return replaceModule('embed-swagger-ui', 'src/apidocs/swagger-files.ts', 'swagger-files.ts');
}
