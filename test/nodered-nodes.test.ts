// The Node-RED nodes (integrations/node-red) in a real Node-RED runtime, loaded by
// node-red-node-test-helper, against a real agent over HTTPS with its key pinned and an
// API token made through the API: status, a recording fetched as a Buffer, a put/get round
// trip, events arriving, errors in the node's status and catch nodes.
import { generateKeyPairSync, createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from './helpers/agent.ts';
import { startClientAgent, type ClientAgent } from './helpers/dagent.ts';

const require = createRequire(import.meta.url);
const NODES = join(ROOT, 'integrations/node-red');
const helper = require('node-red-node-test-helper');
helper.init(require.resolve('node-red'));

const nodes = ['device-agent-config', 'device-agent-status', 'device-agent-record', 'device-agent-file', 'device-agent-events']
  .map((name) => require(join(NODES, `${name}.js`)));

type Ctx = { agent: ClientAgent; token: string };
const test = suite<Ctx>('Node-RED nodes');

/** A token with the scopes the nodes use, made through the API as an operator would. */
async function apiToken(agent: ClientAgent, name: string): Promise<string> {
  const login = await agent.login();
  const res = await fetch(`${agent.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${login}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, scopes: ['status', 'audio', 'files:read', 'files:write'] }),
  });
  assert.is(res.status, 201);
  return ((await res.json()) as { token: string }).token;
}

/** A flow on one tab: the config node of this agent, the nodes given, helper nodes "out" and "caught". */
function flow(ctx: Ctx, extra: Array<Record<string, unknown>>, pin = ctx.agent.pin) {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    { id: 'dev', type: 'device-agent-config', name: 'agent', url: ctx.agent.clientUrl, pin, caFile: '' },
    { id: 'n-catch', type: 'catch', z: 'f1', scope: null, wires: [['caught']] },
    { id: 'out', type: 'helper', z: 'f1', wires: [] },
    { id: 'caught', type: 'helper', z: 'f1', wires: [] },
    ...extra.map((n) => ({ z: 'f1', server: 'dev', ...n })),
  ];
}

async function load(ctx: Ctx, extra: Array<Record<string, unknown>>, opts: { pin?: string | null; token?: string } = {}) {
  const f = flow(ctx, extra, opts.pin === undefined ? ctx.agent.pin : opts.pin);
  await helper.load(nodes, f, { dev: { token: opts.token ?? ctx.token } });
}

const WAIT_MS = 30_000;

/** The next message a helper node receives. */
function nextMessage(id: string): Promise<any> {
  const node = helper.getNode(id);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no message reached ${id}`)), WAIT_MS);
    node.once('input', (msg: unknown) => { clearTimeout(timer); resolve(msg); });
  });
}

/** Messages a helper node receives until `until` says enough. */
function messages(id: string, until: (got: any[]) => boolean): Promise<any[]> {
  const node = helper.getNode(id);
  const got: any[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${id} received only ${JSON.stringify(got.map((m) => m.topic))}`)), WAIT_MS);
    const on = (msg: unknown) => {
      got.push(msg);
      if (until(got)) { clearTimeout(timer); node.removeListener('input', on); resolve(got); }
    };
    node.on('input', on);
  });
}

/** The first status a node shows that `match` accepts (the helper emits call:status for each). */
function statusOf(id: string, match: (s: any) => boolean): Promise<any> {
  const node = helper.getNode(id);
  const seen: unknown[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${id} showed only ${JSON.stringify(seen)}`)), WAIT_MS);
    const on = (call: { args: [any] }) => {
      seen.push(call.args[0]);
      if (match(call.args[0])) { clearTimeout(timer); node.removeListener('call:status', on); resolve(call.args[0]); }
    };
    node.on('call:status', on);
  });
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
  const theirs = await res.json() as any;
  assert.is(msg.payload.hostname, theirs.hostname);
  assert.is(msg.payload.agent.version, theirs.agent.version);
  assert.is(msg.payload.recording.state, 'idle');
});

test.run();
