// Builds the web interface (src/browser/) into its files: index.html, app.js (the page's
// TypeScript, minified), uplot.js (the chart library, fetched after login) and app.css
// (uPlot's sheet and the page's).
// build.mjs writes them precompressed into the executable's assets; from a source
// checkout src/webui/page-files.ts calls the same function on the first request for the page.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const web = join(dirname(fileURLToPath(import.meta.url)), '../src/browser');

/** The page's files by name, uncompressed. */
export async function buildPage() {
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: { app: join(web, 'main.ts'), uplot: join(web, 'uplot-global.ts'), app_css: join(web, 'style.css') },
    bundle: true,
    write: false,
    outdir: '/page',
    format: 'iife',
    target: ['chrome110', 'firefox115', 'safari16'],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const files = new Map([['index.html', Buffer.from(readFileSync(join(web, 'index.html')))]]);
  for (const file of out.outputFiles) {
    files.set(basename(file.path).replace('app_css.css', 'app.css'), Buffer.from(file.contents));
  }
  return files;
}

/** Both encodings of a file: gzip for every browser, brotli where it is taken (~15 % smaller). */
export function compress(plain) {
  return {
    gzip: gzipSync(plain, { level: 9 }),
    br: brotliCompressSync(plain, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: plain.length } }),
  };
}

/** Writes each file's .gz and .br to `dir`/web and returns the SEA config's `assets` map. */
export async function writePageAssets(dir) {
  mkdirSync(join(dir, 'web'), { recursive: true });
  const assets = {};
  for (const [name, plain] of await buildPage()) {
    const encoded = compress(plain);
    for (const ext of ['gz', 'br']) {
      const file = join(dir, 'web', `${name}.${ext}`);
      writeFileSync(file, ext === 'gz' ? encoded.gzip : encoded.br);
      assets[`web/${name}.${ext}`] = file;
    }
  }
  return assets;
}
