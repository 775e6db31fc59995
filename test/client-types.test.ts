// The client package as users get it: its types are those of the document the agent serves
// (regenerated and compared), the README's example program type-checks against the built
// package and runs against a live agent, and `npm pack` gives a tarball that installs a
// working dagent.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, ROOT } from './helpers/agent.ts';
import { ApiError, DeviceAgent } from '../client/src/index.ts';
import { CLIENT, startClientAgent, tempHome, type ClientAgent } from './helpers/dagent.ts';
import { generate } from '../client/scripts/generate.mjs';
import { tscErrors } from './helpers/operations.ts';

const run = promisify(execFile);
type Ctx = { agent: ClientAgent; dir: string };
const pkg = suite<Ctx>('device-agent-client package');
pkg.before(async (ctx) => {
  ctx.agent = await startClientAgent(true);
  ctx.dir = tempHome();
});
pkg.after(async (ctx) => {
  await ctx.agent?.cleanup();
  if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
});

pkg('client/src/openapi.ts is what the served /docs/openapi.json generates (else: npm run gen -w client)', async ({ agent }) => {
  const doc = await (await fetch(`${agent.url}/docs/openapi.json`)).json();
  const fresh = await generate(doc);
  const stored = readFileSync(join(CLIENT, 'src/openapi.ts'), 'utf8');
  if (fresh !== stored) {
    const a = stored.split('\n');
    const b = fresh.split('\n');
    const i = a.findIndex((line, n) => line !== b[n]);
    assert.unreachable(
      `client/src/openapi.ts differs from the served document from line ${i + 1}:\n` +
        `  stored: ${a[i]}\n  served: ${b[i]}\nrun npm run gen -w client`,
    );
  }
});

/** The ```ts block of client/README.md under "An example program". */
function readmeExample(): string {
  const text = readFileSync(join(CLIENT, 'README.md'), 'utf8');
  const from = text.indexOf('### An example program');
  const m = /```ts\n([^]*?)```/.exec(text.slice(from));
  assert.ok(m, 'no example in client/README.md');
  return m![1]!;
}

pkg("the README's example program type-checks (strict) against the built package and runs", async ({ agent, dir }) => {
  const app = join(dir, 'app');
  mkdirSync(join(app, 'node_modules'), { recursive: true });
  symlinkSync(CLIENT, join(app, 'node_modules/device-agent-client'));
  symlinkSync(join(ROOT, 'node_modules/@types'), join(app, 'node_modules/@types'));
  writeFileSync(join(app, 'example.mts'), readmeExample());
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        outDir: 'out',
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        types: ['node'],
        skipLibCheck: false,
      },
      files: ['example.mts'],
    }),
  );
  const checked = await tscErrors(app);
  assert.is(checked, '', `tsc on the README example:\n${checked}`);

  // What tsc wrote (out/example.mjs), run by plain Node as a user would.
  const out = await run(process.execPath, ['out/example.mjs'], {
    cwd: app,
    env: {
      ...process.env,
      DEVICE_URL: agent.clientUrl,
      DEVICE_PIN: agent.pin!,
      DEVICE_USER: ADMIN.username,
      DEVICE_PASSWORD: ADMIN.password,
    },
  }).catch((err) => ({ stdout: `${err.stdout}`, stderr: `${err.stderr}` }));
  assert.match(out.stdout, /^\S+: [\d.-]+ % CPU, recording idle\n/, out.stderr);
  const saved = readFileSync(join(app, 'take.wav'));
  assert.match(out.stdout, new RegExp(`\\nsaved take\\.wav \\(${saved.length} bytes\\)\\n`));
  assert.match(out.stdout, /\n404: file not found at no\/such\/dir\n$/);
  assert.ok(readFileSync(join(agent.baseDir, 'take-copy.wav')).equals(saved));
});

pkg('npm pack makes a tarball of dist/ and the README; installed from it, dagent runs', async ({ dir }) => {
  const packed = JSON.parse(
    (await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: CLIENT })).stdout,
  )[0];
  const files: string[] = packed.files.map((f: { path: string }) => f.path).sort();
  assert.ok(files.includes('dist/cli/dagent.js') && files.includes('dist/index.d.ts') && files.includes('README.md'), files.join(' '));
  assert.equal(
    files.filter((f) => !f.startsWith('dist/') && f !== 'README.md' && f !== 'package.json'),
    [],
  );
  const prefix = join(dir, 'prefix');
  await run('npm', ['install', '-g', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, join(dir, packed.filename)]);
  const bin = join(prefix, 'bin/dagent');
  assert.ok(existsSync(bin));
  const v = await run(bin, ['--version']);
  assert.is(v.stdout, `dagent ${JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8')).version}\n`);
});

pkg(
  "library: fileInfo is the HEAD answer, openapi() the served document, metrics() the text, ApiError the API's status and text",
  async ({ agent }) => {
    const lib = new DeviceAgent({ url: agent.clientUrl, pin: agent.pin!, token: await agent.login() });
    try {
      writeFileSync(join(agent.baseDir, 'info.txt'), 'twelve bytes');
      const head = await fetch(`${agent.url}/api/download?filepath=info.txt`, {
        method: 'HEAD',
        headers: { Authorization: `Bearer ${lib.token}` },
      });
      assert.equal(await lib.fileInfo('info.txt'), {
        sizeBytes: 12,
        etag: head.headers.get('etag'),
        lastModified: head.headers.get('last-modified'),
        contentType: head.headers.get('content-type'),
      });
      assert.equal(await lib.openapi(), await (await fetch(`${agent.url}/docs/openapi.json`)).json());
      assert.match(await lib.metrics(), /^device_agent_build_info\{version="[^"]+"\} 1$/m);
      let failure: unknown;
      try {
        await lib.list('no/such/dir');
      } catch (err) {
        failure = err;
      }
      assert.instance(failure, ApiError);
      assert.is((failure as ApiError).status, 404);
      assert.is((failure as ApiError).error, 'file not found at no/such/dir');
      assert.is((failure as ApiError).headers['content-type'], 'application/json; charset=utf-8');
      const seen: string[] = [];
      for await (const e of lib.events()) {
        seen.push(e.event);
        if (seen.length === 2) break;
      }
      assert.equal(seen, ['recording', 'status']);
    } finally {
      lib.close();
    }
  },
);

/**
 * The method of DeviceAgent for each operation of the agent's API (docs/client.md: the library
 * covers every route); null: the documentation and web pages, which are no API.
 */
const METHODS: Record<string, keyof DeviceAgent | null> = {
  login: 'login',
  health: 'health',
  tls: 'tls',
  deviceStatus: 'status',
  recordStart: 'startRecording',
  recordStatus: 'recording',
  recordStop: 'stopRecording',
  listFiles: 'list',
  download: 'download',
  downloadHead: 'fileInfo',
  upload: 'upload',
  deleteFile: 'remove',
  makeDirectory: 'mkdir',
  moveFile: 'move',
  audioDevices: 'devices',
  audioLevel: 'level',
  audioLive: 'live',
  events: 'events',
  createToken: 'createToken',
  listTokens: 'tokens',
  revokeToken: 'revokeToken',
  listUsers: 'users',
  scheduleGet: 'schedule',
  scheduleSet: 'setSchedule',
  scheduleClear: 'clearSchedule',
  schedulePreview: 'schedulePreview',
  schedulePreviewProposed: 'schedulePreview',
  mqttStatus: 'mqtt',
  outboxState: 'outbox',
  outboxRetry: 'retryOutbox',
  metrics: 'metrics',
  openapi: 'openapi',
  docsPage: null,
  docsAsset: null,
  webPage: null,
  webFile: null,
};

pkg('library: a method for every operation of the served document; the schedule, MQTT and outbox ones answer', async ({ agent }) => {
  const doc = await (await fetch(`${agent.url}/docs/openapi.json`)).json();
  const ids = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((item) =>
    Object.values(item).flatMap((o) => (o?.operationId ? [o.operationId] : [])),
  );
  assert.equal(
    ids.filter((id) => !(id in METHODS)),
    [],
    'operations of the document that DeviceAgent has no method for',
  );
  for (const [id, method] of Object.entries(METHODS))
    if (method) assert.type((DeviceAgent.prototype as unknown as Record<string, unknown>)[method], 'function', `${id}: ${method}`);

  const lib = new DeviceAgent({ url: agent.clientUrl, pin: agent.pin!, token: await agent.login() });
  try {
    assert.equal(await lib.mqtt(), { enabled: false });
    assert.equal(await lib.outbox(), { enabled: false, state: 'off' });
    const off = await lib.retryOutbox().then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.instance(off, ApiError);
    assert.equal([(off as ApiError).status, (off as ApiError).error], [409, 'the outbox is off (no outbox in the config)']);
    const schedule = { timeZone: 'UTC', enabled: false, windows: [{ start: '22:00', end: '02:00' }] };
    assert.equal((await lib.setSchedule(schedule)).state.reason, 'disabled');
    assert.equal((await lib.schedule()).schedule?.timeZone, 'UTC');
    assert.is((await lib.schedulePreview({ from: '2026-01-01', days: 2 })).windows.length, 2);
    await lib.clearSchedule();
    assert.is((await lib.schedule()).schedule, null);
  } finally {
    lib.close();
  }
});

pkg.run();
