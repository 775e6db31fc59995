// The Node-RED nodes (integrations/node-red) in a real Node-RED runtime, loaded by
// node-red-node-test-helper, against a real agent (the built executable) over HTTPS with
// its key pinned and an API token made through the API: status, 1 s recordings fetched as a
// Buffer and saved to a directory, a put/list/get round trip, delete, events arriving and
// coming back after the agent restarts, the example flow; and the failures a flow author
// meets (wrong pin, another CA, unknown token, missing scope, 404, 409, bad input), each in
// the node's status and in catch nodes with the agent's own text. The record node's schedule
// actions: set from msg.payload, show, preview (proposed and stored), clear, and the agent's
// 400 for a wrong document with nothing stored.
import { generateKeyPairSync, createHash, randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeDir, ROOT, spawnAgent } from './helpers/agent.ts';
import { hasRoute, startClientAgent, type ClientAgent } from './helpers/dagent.ts';
import { makeCa } from './helpers/tls.ts';

const require = createRequire(import.meta.url);
const NODES = join(ROOT, 'integrations/node-red');
const helper = require('node-red-node-test-helper');
helper.init(require.resolve('node-red'));

const nodes = ['device-agent-config', 'device-agent-status', 'device-agent-record', 'device-agent-file', 'device-agent-events'].map(
  (name) => require(join(NODES, `${name}.js`)),
);

type Ctx = { agent: ClientAgent; token: string };
const test = suite<Ctx>('Node-RED nodes');

/** A token with the scopes the nodes use (or those given), made through the API as an operator would. */
async function apiToken(agent: ClientAgent, name: string, scopes = ['status', 'audio', 'files:read', 'files:write']): Promise<string> {
  const login = await agent.login();
  const res = await fetch(`${agent.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${login}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, scopes }),
  });
  assert.is(res.status, 201);
  return ((await res.json()) as { token: string }).token;
}

/** A flow on one tab: the config node of this agent, the nodes given, helper nodes "out" and "caught". */
function flow(ctx: Ctx, extra: Array<Record<string, unknown>>, pin = ctx.agent.pin, caFile = '') {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    { id: 'dev', type: 'device-agent-config', name: 'agent', url: ctx.agent.clientUrl, pin, caFile },
    { id: 'n-catch', type: 'catch', z: 'f1', scope: null, wires: [['caught']] },
    { id: 'out', type: 'helper', z: 'f1', wires: [] },
    { id: 'caught', type: 'helper', z: 'f1', wires: [] },
    ...extra.map((n) => ({ z: 'f1', server: 'dev', ...n })),
  ];
}

async function load(ctx: Ctx, extra: Array<Record<string, unknown>>, opts: { pin?: string | null; token?: string; caFile?: string } = {}) {
  const f = flow(ctx, extra, opts.pin === undefined ? ctx.agent.pin : opts.pin, opts.caFile);
  await helper.load(nodes, f, { dev: { token: opts.token ?? ctx.token } });
}

const WAIT_MS = 30_000;

/** A promise a test may leave unawaited when it fails early: its later timeout is no unhandled rejection. */
function quiet<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

/** The next message a helper node receives. */
function nextMessage(id: string): Promise<any> {
  const node = helper.getNode(id);
  return quiet(
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no message reached ${id}`)), WAIT_MS);
      node.once('input', (msg: unknown) => {
        clearTimeout(timer);
        resolve(msg);
      });
    }),
  );
}

/** Messages a helper node receives until `until` says enough. */
function messages(id: string, until: (got: any[]) => boolean): Promise<any[]> {
  const node = helper.getNode(id);
  const got: any[] = [];
  return quiet(
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${id} received only ${JSON.stringify(got.map((m) => m.topic))}`)), WAIT_MS);
      const on = (msg: unknown) => {
        got.push(msg);
        if (until(got)) {
          clearTimeout(timer);
          node.removeListener('input', on);
          resolve(got);
        }
      };
      node.on('input', on);
    }),
  );
}

/** The first status a node shows that `match` accepts (the helper emits call:status for each). */
function statusOf(id: string, match: (s: any) => boolean): Promise<any> {
  const node = helper.getNode(id);
  const seen: unknown[] = [];
  return quiet(
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${id} showed only ${JSON.stringify(seen)}`)), WAIT_MS);
      const on = (call: { args: [any] }) => {
        seen.push(call.args[0]);
        if (match(call.args[0])) {
          clearTimeout(timer);
          node.removeListener('call:status', on);
          resolve(call.args[0]);
        }
      };
      node.on('call:status', on);
    }),
  );
}

/** Every status a node has shown since the flow was loaded (the helper spies on Node.prototype.status). */
function shownBy(id: string): any[] {
  return helper._NodePrototype.status
    .getCalls()
    .filter((c: any) => c.thisValue.id === id)
    .map((c: any) => c.args[0]);
}

test.before(async (ctx) => {
  await helper.startServer();
  ctx.agent = await startClientAgent(true);
  ctx.token = await apiToken(ctx.agent, 'node-red');
});

test.after.each(async () => {
  await helper.unload();
});

test.after(async (ctx) => {
  await helper.stopServer();
  await ctx.agent?.cleanup();
});

test('status: the device status record in msg.payload, the rest of the message kept', async (ctx) => {
  await load(ctx, [{ id: 'n', type: 'device-agent status', wires: [['out']] }]);
  const got = nextMessage('out');
  helper.getNode('n').receive({ payload: 'go', topic: 'poll' });
  const msg = await got;
  assert.is(msg.topic, 'poll');
  const res = await fetch(`${ctx.agent.url}/api/v1/devicestatus/get`, { headers: { Authorization: `Bearer ${ctx.token}` } });
  const theirs = (await res.json()) as any;
  assert.is(msg.payload.hostname, theirs.hostname);
  assert.is(msg.payload.agent.version, theirs.agent.version);
  assert.is(msg.payload.recording.state, 'idle');
});

test('record: a 1 s recording, waited for, its file in msg.payload as a Buffer, byte for byte', async (ctx) => {
  await load(ctx, [
    {
      id: 'n',
      type: 'device-agent record',
      duration: '1',
      format: 'wav',
      device: '',
      wait: true,
      output: 'buffer',
      saveTo: '',
      wires: [['out']],
    },
  ]);
  const got = nextMessage('out');
  const shown = statusOf('n', (s) => s.fill === 'green');
  helper.getNode('n').receive({ payload: 'go' });
  const msg = await got;
  assert.is(msg.recording.state, 'finished');
  assert.is(msg.recording.fileExtension, 'wav');
  assert.match(msg.filename, /^recordings\/recording-[0-9TZ.-]+\.wav$/);
  assert.is(msg.filename, msg.recording.file);
  assert.ok(Buffer.isBuffer(msg.payload));
  assert.is(msg.payload.length, msg.recording.sizeBytes);
  assert.ok(msg.payload.equals(readFileSync(join(ctx.agent.baseDir, msg.recording.file))));
  assert.is(msg.payload.subarray(0, 4).toString('latin1'), 'RIFF');
  assert.equal(await shown, { fill: 'green', shape: 'dot', text: msg.filename.slice('recordings/'.length) });
});

test('record saved to a local directory: the file there under its name on the device, msg.payload its path', async (ctx) => {
  const dir = makeDir('da-nodered-');
  try {
    await load(ctx, [
      { id: 'n', type: 'device-agent record', duration: '', format: '', wait: true, output: 'file', saveTo: '', wires: [['out']] },
    ]);
    const got = nextMessage('out');
    helper.getNode('n').receive({ duration: 1, format: 'flac', saveTo: `${dir}/` });
    const msg = await got;
    assert.is(msg.recording.state, 'finished');
    assert.is(msg.recording.fileExtension, 'flac');
    assert.is(msg.payload, join(dir, basename(msg.recording.file)));
    assert.is(msg.filename, msg.payload);
    assert.ok(readFileSync(msg.payload).equals(readFileSync(join(ctx.agent.baseDir, msg.recording.file))));
    assert.equal(readdirSync(dir), [basename(msg.recording.file)]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("record without waiting: the started record at once; a second start meanwhile is the agent's 409 in a catch node", async (ctx) => {
  await load(ctx, [
    { id: 'n', type: 'device-agent record', duration: '2', format: 'flac', wait: false, output: 'record', wires: [['out']] },
  ]);
  const got = nextMessage('out');
  helper.getNode('n').receive({ payload: 'go' });
  const msg = await got;
  assert.is(msg.payload.state, 'recording');
  assert.is(msg.payload.fileExtension, 'flac');
  const caught = nextMessage('caught');
  const shown = statusOf('n', (s) => s.fill === 'red');
  helper.getNode('n').receive({ payload: 'again' });
  const error = await caught;
  assert.is(error.error.message, 'device-agent answered 409: a recording is already in progress');
  assert.is(error.statusCode, 409);
  assert.equal(await shown, { fill: 'red', shape: 'ring', text: '409 a recording is already in progress' });
  // Let it end before the next test records.
  for (;;) {
    const res = await fetch(`${ctx.agent.url}/api/v1/audiofiles/audiorecordstatus`, { headers: { Authorization: `Bearer ${ctx.token}` } });
    if (((await res.json()) as { state: string }).state !== 'recording') break;
    await new Promise((r) => setTimeout(r, 200));
  }
});

test("file: put msg.payload, list it, get it back byte for byte; a missing file is the agent's 404", async (ctx) => {
  const bytes = randomBytes(300_000);
  await load(ctx, [
    { id: 'file-put', type: 'device-agent file', operation: 'put', path: 'node-red.bin', wires: [['out']] },
    { id: 'file-list', type: 'device-agent file', operation: 'list', path: '', wires: [['out']] },
    { id: 'file-get', type: 'device-agent file', operation: 'msg', path: '', saveTo: '', wires: [['out']] },
  ]);
  let got = nextMessage('out');
  helper.getNode('file-put').receive({ payload: bytes });
  const put = await got;
  assert.is(put.path, 'node-red.bin');
  assert.equal(put.payload, { message: 'Uploaded successfully' });
  assert.ok(readFileSync(join(ctx.agent.baseDir, 'node-red.bin')).equals(bytes));

  got = nextMessage('out');
  helper.getNode('file-list').receive({});
  const list = await got;
  const entry = list.payload.entries.find((e: { name: string }) => e.name === 'node-red.bin');
  assert.is(entry?.sizeBytes, bytes.length);

  got = nextMessage('out');
  helper.getNode('file-get').receive({ operation: 'get', path: 'node-red.bin' });
  const back = await got;
  assert.ok(Buffer.isBuffer(back.payload));
  assert.ok(back.payload.equals(bytes));

  const caught = nextMessage('caught');
  helper.getNode('file-get').receive({ operation: 'get', path: 'no/such.bin' });
  const error = await caught;
  assert.is(error.error.message, 'device-agent answered 404: file not found at no/such.bin');
  assert.is(error.statusCode, 404);

  const refused = nextMessage('caught');
  helper.getNode('file-get').receive({ operation: 'rename', path: 'node-red.bin' });
  assert.is((await refused).error.message, 'msg.operation must be one of list, get, put, delete, not rename');
});

(hasRoute('/api/v1/files') ? test : test.skip)('file delete: the file is gone from the device; msg.payload says so', async (ctx) => {
  writeFileSync(join(ctx.agent.baseDir, 'to-delete.txt'), 'bye');
  await load(ctx, [
    { id: 'file-delete', type: 'device-agent file', operation: 'delete', path: 'to-delete.txt', recursive: false, wires: [['out']] },
  ]);
  const got = nextMessage('out');
  helper.getNode('file-delete').receive({});
  const msg = await got;
  assert.equal(msg.payload, { path: 'to-delete.txt', deleted: true });
  assert.not.ok(existsSync(join(ctx.agent.baseDir, 'to-delete.txt')));
});

(hasRoute('/api/v1/files') ? test : test.skip)(
  'file delete of a directory that is not empty: 409 without recursive, gone with msg.recursive',
  async (ctx) => {
    mkdirSync(join(ctx.agent.baseDir, 'full/sub'), { recursive: true });
    writeFileSync(join(ctx.agent.baseDir, 'full/sub/a.txt'), 'a');
    await load(ctx, [{ id: 'file-delete', type: 'device-agent file', operation: 'delete', path: '', recursive: false, wires: [['out']] }]);
    const caught = nextMessage('caught');
    helper.getNode('file-delete').receive({ path: 'full' });
    const error = await caught;
    assert.is(error.error.message, 'device-agent answered 409: directory is not empty');
    assert.ok(existsSync(join(ctx.agent.baseDir, 'full/sub/a.txt')));
    const got = nextMessage('out');
    helper.getNode('file-delete').receive({ path: 'full', recursive: true });
    assert.equal((await got).payload, { path: 'full', deleted: true });
    assert.not.ok(existsSync(join(ctx.agent.baseDir, 'full')));
  },
);

test('events: one message per event, the recording record and the status at once; the node shows connected', async (ctx) => {
  await load(ctx, [{ id: 'n', type: 'device-agent events', status: true, recording: true, level: true, other: false, wires: [['out']] }]);
  const got = await messages('out', (m) => m.some((x) => x.topic === 'status') && m.some((x) => x.topic === 'recording'));
  const status = got.find((m) => m.topic === 'status');
  const recording = got.find((m) => m.topic === 'recording');
  const now = await fetch(`${ctx.agent.url}/api/v1/audiofiles/audiorecordstatus`, { headers: { Authorization: `Bearer ${ctx.token}` } });
  assert.equal(recording.payload, await now.json());
  const res = await fetch(`${ctx.agent.url}/api/v1/devicestatus/get`, { headers: { Authorization: `Bearer ${ctx.token}` } });
  assert.is(status.payload.hostname, ((await res.json()) as { hostname: string }).hostname);
  for (const m of got) assert.equal(Object.keys(m).sort(), ['_msgid', 'payload', 'topic']);
  assert.equal(shownBy('n'), [
    { fill: 'yellow', shape: 'dot', text: 'connecting' },
    { fill: 'green', shape: 'dot', text: 'connected' },
  ]);
});

test('the example flow loads without an error or a warning and runs: status on its inject, events connected', async (ctx) => {
  const example = JSON.parse(readFileSync(join(NODES, 'examples/device-agent.json'), 'utf8')) as Array<Record<string, any>>;
  const config = example.find((n) => n.type === 'device-agent-config')!;
  // The operator's step the flow asks for: this device's URL, token and pin.
  Object.assign(config, { url: ctx.agent.clientUrl, pin: ctx.agent.pin });
  const core = ['20-inject', '21-debug', '90-comment'].map((f) => require(require.resolve(`@node-red/nodes/core/common/${f}.js`)));
  const debugStatus = example.find((n) => n.type === 'debug' && n.name === 'status')!;
  await helper.load([...core, ...nodes], example, { [config.id]: { token: ctx.token } });
  for (const n of example.filter((x) => x.type !== 'tab')) assert.ok(helper.getNode(n.id), `${n.type} ${n.id} was not created`);
  const events = example.find((n) => n.type === 'device-agent events')!;
  const connected = shownBy(events.id).some((s: any) => s.text === 'connected') ? null : statusOf(events.id, (s) => s.text === 'connected');
  // The status inject (pressed here; it also fires by itself 2 s after the start): the status reaches the debug node.
  const reaching = nextMessage(debugStatus.id);
  helper.getNode(example.find((n) => n.wires?.[0]?.[0] === example.find((x) => x.type === 'device-agent status')!.id)!.id).receive({});
  const reached = await reaching;
  assert.is(typeof reached.payload.hostname, 'string');
  await connected;
  // Errors from anywhere, warnings from the flow's nodes (the harness warns of its own "helper" node and unencrypted test credentials).
  const log = helper.log();
  const bad = log.args.map((a: any[]) => a[0]).filter((m: any) => m.level <= log.ERROR || (m.level <= log.WARN && m.id !== undefined));
  assert.equal(bad, []);
  assert.ok(log.args.length > 0);
});

test('events: the agent stops, the node retries 1 s then 2 s later showing why, and reconnects when it is back', async (ctx) => {
  const agent = await startClientAgent(false);
  let restarted: ChildProcess | null = null;
  try {
    const token = await apiToken(agent, 'node-red');
    await helper.load(
      nodes,
      flow(
        { ...ctx, agent },
        [{ id: 'n', type: 'device-agent events', status: false, recording: true, level: false, other: false, wires: [['out']] }],
        null,
      ),
      { dev: { token } },
    );
    const first = await nextMessage('out');
    assert.is(first.topic, 'recording');
    const refused = statusOf('n', (s) => /^no connection; again in \d+ s$/.test(s.text));
    await agent.stop();
    await refused;
    // Shown since the stop: why, and when the next try comes; 'connecting' at each try. The
    // delay starts at 1 s (events had flowed) and doubles. (A try during the agent's shutdown
    // may meet its 503 before the port closes.)
    const shown = shownBy('n').map((s: any) => s.text);
    assert.equal(shown.slice(0, 2), ['connecting', 'connected']);
    const since = shown.slice(2);
    const delays = since.filter((_: string, i: number) => i % 2 === 0).map((t: string) => Number(/; again in (\d+) s$/.exec(t)?.[1]));
    assert.equal(
      delays,
      delays.map((_: number, i: number) => 2 ** i),
      JSON.stringify(since),
    );
    assert.ok(
      since.filter((_: string, i: number) => i % 2 === 1).every((t: string) => t === 'connecting'),
      JSON.stringify(since),
    );
    const logged = helper
      .log()
      .args.map((a: any[]) => a[0])
      .filter((m: any) => m.id === 'n' && m.level === helper.log().ERROR)
      .map((m: any) => m.msg);
    assert.is(logged.at(-1), `could not connect to 127.0.0.1:${agent.port}: connection refused`, JSON.stringify(logged));

    // Back on the same port, with the same tokens file: the node connects again by itself.
    const config = JSON.parse(readFileSync(agent.configFile, 'utf8'));
    writeFileSync(agent.configFile, JSON.stringify({ ...config, port: agent.port }));
    const connected = statusOf('n', (s) => s.text === 'connected');
    const again = nextMessage('out');
    restarted = (await spawnAgent(agent.dir)).child;
    assert.equal(await connected, { fill: 'green', shape: 'dot', text: 'connected' });
    assert.is((await again).topic, 'recording');
  } finally {
    restarted?.kill('SIGKILL');
    await agent.cleanup();
  }
});

test('a wrong pin: no request reaches the agent, the node shows "wrong pin", the catch node gets both pins', async (ctx) => {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const wrong = `sha256//${createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64')}`;
  // An agent of its own, whose access log holds this test's requests alone.
  const agent = await startClientAgent(true);
  try {
    const token = await apiToken(agent, 'node-red');
    await helper.load(nodes, flow({ ...ctx, agent }, [{ id: 'n', type: 'device-agent status', wires: [['out']] }], wrong), {
      dev: { token },
    });
    const caught = nextMessage('caught');
    const shown = statusOf('n', (s) => s.fill === 'red');
    helper.getNode('n').receive({ payload: 'go' });
    const error = await caught;
    assert.is(error.error.message, `the device's key is not the pinned one: pinned ${wrong}, the device presented ${agent.pin}`);
    assert.is(error.statusCode, undefined);
    assert.equal(await shown, { fill: 'red', shape: 'ring', text: 'wrong pin' });
    // One status request of the test's own, once logged, is the only one the agent served.
    const served = () =>
      agent
        .output()
        .split('\n')
        .filter((l) => l.includes('GET /api/v1/devicestatus/get ')).length;
    assert.is((await fetch(`${agent.url}/api/v1/devicestatus/get`, { headers: { Authorization: `Bearer ${token}` } })).status, 200);
    const end = Date.now() + WAIT_MS;
    while (served() === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    assert.is(served(), 1, 'a request of the node reached the agent');
  } finally {
    await agent.cleanup();
  }
});

test('a CA file instead of a pin: the CA that issued the device\'s certificate works, another is "untrusted certificate"', async (ctx) => {
  // The agent's certificate is self-signed: it is its own CA, and names 127.0.0.1.
  await load(ctx, [{ id: 'n', type: 'device-agent status', wires: [['out']] }], { pin: '', caFile: join(ctx.agent.dir, 'tls/cert.pem') });
  const got = nextMessage('out');
  helper.getNode('n').receive({});
  assert.is(typeof (await got).payload.hostname, 'string');
  await helper.unload();

  const dir = makeDir('da-nodered-ca-');
  try {
    makeCa(join(dir, 'ca.pem'), join(dir, 'ca.key'), '/CN=Another CA');
    await load(ctx, [{ id: 'n', type: 'device-agent status', wires: [['out']] }], { pin: '', caFile: join(dir, 'ca.pem') });
    const caught = nextMessage('caught');
    const shown = statusOf('n', (s) => s.fill === 'red');
    helper.getNode('n').receive({});
    const message = (await caught).error.message;
    assert.match(message, new RegExp(`^127\\.0\\.0\\.1:${ctx.agent.port}: the certificate is not trusted \\([A-Z_]+: [^)]+\\)\\.$`));
    assert.equal(await shown, { fill: 'red', shape: 'ring', text: 'untrusted certificate' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a token the agent does not know: 401 in the status and the catch node', async (ctx) => {
  await load(ctx, [{ id: 'n', type: 'device-agent status', wires: [['out']] }], { token: `dat_${'A'.repeat(43)}` });
  const caught = nextMessage('caught');
  const shown = statusOf('n', (s) => s.fill === 'red');
  helper.getNode('n').receive({ payload: 'go' });
  const error = await caught;
  assert.is(error.error.message, 'device-agent answered 401: invalid token');
  assert.is(error.statusCode, 401);
  assert.equal(await shown, { fill: 'red', shape: 'ring', text: '401 invalid token' });
});

test("a token without the audio scope: the record node fails with the agent's 403, nothing records", async (ctx) => {
  const token = await apiToken(ctx.agent, 'node-red-viewer', ['status', 'files:read']);
  await load(
    ctx,
    [{ id: 'n', type: 'device-agent record', duration: '1', format: 'wav', wait: true, output: 'record', wires: [['out']] }],
    { token },
  );
  const caught = nextMessage('caught');
  const shown = statusOf('n', (s) => s.fill === 'red');
  helper.getNode('n').receive({});
  const error = await caught;
  assert.is(error.error.message, 'device-agent answered 403: insufficient scope: audio is required');
  assert.is(error.statusCode, 403);
  assert.equal(await shown, { fill: 'red', shape: 'ring', text: '403 insufficient scope: audio is required' });
});

test('record: a duration that is not a number of seconds is refused before any request', async (ctx) => {
  await load(ctx, [{ id: 'n', type: 'device-agent record', duration: '', format: 'wav', wait: true, output: 'record', wires: [['out']] }]);
  const caught = nextMessage('caught');
  helper.getNode('n').receive({ duration: 'soon' });
  assert.is((await caught).error.message, 'duration must be a number of seconds above 0, not soon');
  assert.equal(shownBy('n').at(-1), { fill: 'red', shape: 'ring', text: 'duration must be a number of seconds above 0, not soon' });
});

test('a config node without a token: the node says so in its status and to catch nodes', async (ctx) => {
  await load(ctx, [{ id: 'n', type: 'device-agent status', wires: [['out']] }], { token: '' });
  const caught = nextMessage('caught');
  helper.getNode('n').receive({});
  assert.is((await caught).error.message, 'the device-agent config node has no API token');
  assert.equal(shownBy('n').at(-1), { fill: 'red', shape: 'ring', text: 'the device-agent config node has no API token' });
});

/** A schedule for the nodes: disabled, so that the agent records nothing while it is stored. */
const SCHEDULE = {
  enabled: false,
  location: { latitude: 60.17, longitude: 24.94 },
  timeZone: 'Europe/Helsinki',
  windows: [
    { start: 'dawn', end: 'sunrise+1h' },
    { start: '23:00', end: '01:00', duty: { onSeconds: 300, offSeconds: 300 } },
  ],
};

const schedule = (ctx: Ctx, method = 'GET', body?: unknown, path = '/api/v1/schedule') =>
  fetch(`${ctx.agent.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${ctx.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).then((r) => r.json() as Promise<any>);

test("record's schedule actions: set from msg.payload's JSON, show, preview proposed and stored as the API answers, clear", async (ctx) => {
  const node = (id: string, action: string) => ({
    id,
    type: 'device-agent record',
    action,
    duration: '5',
    format: 'wav',
    wires: [['out']],
  });
  await load(ctx, [
    node('set', 'schedule-set'),
    node('show', 'schedule-show'),
    node('preview', 'schedule-preview'),
    node('clear', 'schedule-clear'),
  ]);
  try {
    // A proposed document's preview, before anything is stored.
    let got = nextMessage('out');
    helper.getNode('preview').receive({ payload: SCHEDULE, from: '2026-06-20', days: 3 });
    const proposed = await got;
    assert.equal(
      proposed.payload,
      await schedule(ctx, 'POST', { schedule: SCHEDULE, from: '2026-06-20', days: 3 }, '/api/v1/schedule/preview'),
    );
    assert.is(proposed.payload.windows.length, 6);
    assert.is((await schedule(ctx)).schedule, null);

    got = nextMessage('out');
    const shown = statusOf('set', (s) => s.fill === 'green');
    helper.getNode('set').receive({ payload: JSON.stringify(SCHEDULE), topic: 'field season' });
    const set = await got;
    assert.is(set.topic, 'field season');
    const stored = await schedule(ctx);
    assert.equal(set.payload.schedule, stored.schedule);
    assert.is(stored.schedule.timeZone, 'Europe/Helsinki');
    assert.equal(
      stored.schedule.windows.map((w: any) => [w.start, w.end]),
      SCHEDULE.windows.map((w) => [w.start, w.end]),
    );
    assert.equal(set.payload.state, { ...stored.state, state: 'off', reason: 'disabled' });
    assert.equal(await shown, { fill: 'green', shape: 'dot', text: 'schedule: off (disabled)' });

    got = nextMessage('out');
    helper.getNode('show').receive({});
    assert.equal((await got).payload, await schedule(ctx));

    // The stored schedule's preview (no document in msg.payload: an inject's timestamp).
    got = nextMessage('out');
    helper.getNode('preview').receive({ payload: Date.now(), from: '2026-12-20', days: 2 });
    assert.equal((await got).payload, await schedule(ctx, 'GET', undefined, '/api/v1/schedule/preview?from=2026-12-20&days=2'));

    got = nextMessage('out');
    helper.getNode('clear').receive({});
    const cleared = await got;
    assert.is(cleared.payload.schedule, null);
    assert.equal(cleared.payload.state.reason, 'no schedule');
    assert.is((await schedule(ctx)).schedule, null);
  } finally {
    await fetch(`${ctx.agent.url}/api/v1/schedule`, { method: 'DELETE', headers: { Authorization: `Bearer ${ctx.token}` } });
  }
});

test("record's set schedule: a wrong document is the agent's 400 naming the field, nothing stored; no document, no request", async (ctx) => {
  await load(ctx, [{ id: 'n', type: 'device-agent record', action: 'schedule-set', wires: [['out']] }]);
  const caught = nextMessage('caught');
  const shown = statusOf('n', (s) => s.fill === 'red');
  helper.getNode('n').receive({ payload: { ...SCHEDULE, windows: [{ start: 'sunrise+25h', end: '06:00' }] } });
  const error = await caught;
  const theirs = 'windows[0].start: must be HH:MM or a sun event with an offset';
  assert.is(error.error.message, `device-agent answered 400: ${theirs}`);
  assert.is(error.statusCode, 400);
  assert.equal(await shown, { fill: 'red', shape: 'ring', text: `400 ${theirs}` });
  assert.is((await schedule(ctx)).schedule, null);

  const refused = nextMessage('caught');
  helper.getNode('n').receive({ payload: 1764300000000 });
  assert.is((await refused).error.message, 'set schedule takes msg.payload as a schedule document: an object, or its JSON text');
  const broken = nextMessage('caught');
  helper.getNode('n').receive({ payload: '{"windows": [' });
  assert.match((await broken).error.message, /^msg\.payload is not a JSON schedule document: /);
});

test.run();
