// Build-time half of the /docs assets. Swagger UI's files (src/docs/swagger-files.json)
// are gzipped into dist/sea-assets/ and handed to Node's single-executable config as
// assets: they travel in the executable as raw bytes, not as JavaScript source to parse
// at every start (measured: 650 KB of base64 in the bundle cost ~20 ms of compile time).
// The esbuild plugin replaces src/docs/swagger-files.ts by a reader of those assets.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const require = createRequire(import.meta.url);
const NAMES = JSON.parse(readFileSync(new URL('./swagger-files.json', import.meta.url), 'utf8'));

/** Same rule as src/docs/swagger-files.ts: the source map is not shipped, so no link to it. */
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
 * An esbuild plugin that bundles `contents` (JavaScript) in place of the source module at
 * `modulePath` (relative to the repository, with forward slashes).
 */
export function replaceModule(name, modulePath, contents) {
  const escaped = modulePath.split('/').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const filter = new RegExp(`[\\\\/]${escaped.join('[\\\\/]')}$`);
  return { name, setup: (build) => build.onLoad({ filter }, () => ({ loader: 'js', contents })) };
}

/** In the executable: the SEA asset; from dist/device-agent.cjs run by node: the file beside it. */
export function embedSwaggerUi() {
  return replaceModule('embed-swagger-ui', 'src/docs/swagger-files.ts', `
    const { readFileSync } = require('node:fs');
    const { join } = require('node:path');
    export function swaggerFileGzip(name) {
      const sea = require('node:sea');
      if (sea.isSea()) return Buffer.from(sea.getAsset(name + '.gz'));
      return readFileSync(join(__dirname, 'sea-assets', name + '.gz'));
    }`);
}
