// What build.mjs puts in the executable's bundle: mime-types answers as it does from npm
// with the compacted database, and node:fs/promises is never loaded (both are idle memory).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** The build's own esbuild plugins (untyped .mjs modules, hence the dynamic imports). */
async function plugins(): Promise<{ compactMimeDb: () => Plugin; embedSwaggerUi: () => Plugin }> {
  const [{ compactMimeDb }, { embedSwaggerUi }] = await Promise.all([
    import(join(root, 'build.mjs')), import(join(root, 'src/docs/embed-plugin.mjs')),
  ]);
  return { compactMimeDb, embedSwaggerUi };
}

type Mime = typeof import('mime-types');

/** mime-types bundled as build.mjs bundles it, then loaded. */
async function bundledMimeTypes(): Promise<Mime> {
  const { compactMimeDb } = await plugins();
  const out = await build({
    stdin: { contents: "module.exports = require('mime-types');", resolveDir: root, loader: 'js' },
    bundle: true, platform: 'node', format: 'cjs', write: false, logLevel: 'silent', plugins: [compactMimeDb()],
  });
  const mod = { exports: {} as Mime };
  new Function('module', 'exports', 'require', out.outputFiles[0]!.text)(mod, mod.exports, require);
  return mod.exports;
}

const t = suite('executable bundle');

t('mime-types with the compacted database answers every lookup, extension and charset alike', async () => {
  const full: Mime = require('mime-types');
  const db: Record<string, { extensions?: string[] }> = require('mime-db');
  const compact = await bundledMimeTypes();
  assert.is.not(compact, full);
  const extensions = new Set(Object.values(db).flatMap((e) => e.extensions ?? []));
  assert.ok(extensions.size > 1000, `${extensions.size} extensions`);
  for (const ext of [...extensions, 'unknown-ext', '']) {
    const name = `file.${ext}`;
    if (compact.lookup(name) !== full.lookup(name)) assert.is(compact.lookup(name), full.lookup(name), name);
  }
  for (const type of [...Object.keys(db), 'text/x-unknown', 'application/x-unknown']) {
    for (const fn of ['extension', 'charset', 'contentType'] as const) {
      if (compact[fn](type) !== full[fn](type)) assert.is(compact[fn](type), full[fn](type), `${fn}(${type})`);
    }
  }
});

t('the agent bundle never requires node:fs/promises, nor copies node:fs into a namespace object', async () => {
  const { compactMimeDb, embedSwaggerUi } = await plugins();
  const out = await build({
    entryPoints: [join(root, 'src/main.ts')], bundle: true, platform: 'node', format: 'cjs', write: false,
    logLevel: 'silent', plugins: [embedSwaggerUi(), compactMimeDb()],
  });
  const code = out.outputFiles[0]!.text;
  assert.ok(code.includes('require("node:fs")'));
  assert.not.match(code, /require\("(node:)?fs\/promises"\)/);
  assert.not.match(code, /\.promises\b/);
  // esbuild's interop for `import * as fs`: a getter per property of node:fs, and fs.Dir's modules loaded
  assert.not.match(code, /__toESM\(require\("node:fs"\)/);
});

t.run();
