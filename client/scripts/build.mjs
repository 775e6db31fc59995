// npm run build -w client: dist/ from src/ by tsc (the library: JavaScript and .d.ts, one
// file each, as importers load it), then the command dagent as one file: esbuild bundles
// src/cli/main.ts and what it imports into dist/cli/main.cjs, and dist/cli/dagent.js (the
// bin: the compile cache turned on first) loads that instead of main.js. One file instead
// of some fifteen ES modules to resolve and load; CommonJS, so that Node's built-in modules
// come through require, without the ES namespace that runs their lazy exports. The
// unbundled CLI modules tsc wrote are removed: nothing imports them.
import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(here, 'dist/cli');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync(join(here, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.json')], { stdio: 'inherit' });

buildSync({
  entryPoints: [join(here, 'src/cli/main.ts')],
  outfile: join(cli, 'main.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // import.meta.url (createRequire's base) of the bundle's own file.
  define: { 'import.meta.url': '__dagentUrl' },
  banner: { js: "'use strict';\nconst __dagentUrl = require('node:url').pathToFileURL(__filename).href;" },
  legalComments: 'none',
  logLevel: 'warning',
});

const bin = join(cli, 'dagent.js');
const text = readFileSync(bin, 'utf8');
const main = /import\((['"])\.\/main\.js\1\)/;
if (!main.test(text)) throw new Error(`${bin} does not import ./main.js`);
for (const f of readdirSync(cli)) if (f !== 'dagent.js' && f !== 'main.cjs') rmSync(join(cli, f));
writeFileSync(bin, text.replace(main, "import('./main.cjs')"));
chmodSync(bin, 0o755);
