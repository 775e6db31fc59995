// The package as an operator installs it: the tarballs of the client and of the nodes
// (npm pack) installed into a Node-RED user directory, and a real Node-RED (its own red.js)
// started on it. Node-RED loads the five node types from the package.json "node-red"
// section, serves each node's editor template and help, lists the example flow; the
// example, deployed through the admin API as the editor does (token as a credential),
// runs against a real agent, and the token stays out of the flow file.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeDir, ROOT } from './helpers/agent.ts';
import { CLIENT, startClientAgent, type ClientAgent } from './helpers/dagent.ts';

const PACKAGE = join(ROOT, 'integrations/node-red');
const RED = join(ROOT, 'node_modules/node-red/red.js');
const TYPES = {
  'device-agent-config': 'device-agent-config',
  'device-agent-status': 'device-agent status',
  'device-agent-record': 'device-agent record',
  'device-agent-file': 'device-agent file',
  'device-agent-events': 'device-agent events',
};

type Ctx = { agent: ClientAgent; token: string; userDir: string; red: ChildProcess; url: string; log: () => string };
const test = suite<Ctx>('Node-RED runtime with the package installed');

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test.before(async (ctx) => {
  ctx.agent = await startClientAgent(true);
  const login = await ctx.agent.login();
  const res = await fetch(`${ctx.agent.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${login}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'node-red', scopes: ['status', 'audio', 'files:read', 'files:write'] }),
  });
  assert.is(res.status, 201);
  ctx.token = ((await res.json()) as { token: string }).token;

  // The README's install: both tarballs into the user directory (the client's dist/ is built by helpers/dagent.ts).
  ctx.userDir = makeDir('da-nodered-user-');
  const tarballs = [CLIENT, PACKAGE].map((dir) =>
    join(
      ctx.userDir,
      execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', ctx.userDir], { cwd: dir, encoding: 'utf8' })
        .trim()
        .split('\n')
        .at(-1)!,
    ),
  );
  writeFileSync(join(ctx.userDir, 'package.json'), JSON.stringify({ name: 'node-red-project', private: true }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', ...tarballs], { cwd: ctx.userDir, stdio: 'ignore' });
  writeFileSync(
    join(ctx.userDir, 'settings.js'),
    `module.exports = ${JSON.stringify({
      uiHost: '127.0.0.1',
      flowFile: 'flows.json',
      credentialSecret: 'a secret of this test',
      telemetry: { enabled: false },
      logging: { console: { level: 'info' } },
    })};\n`,
  );
  ctx.red = spawn(process.execPath, [RED, '--userDir', ctx.userDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  ctx.red.stdout!.on('data', (d) => {
    out += d;
  });
  ctx.red.stderr!.on('data', (d) => {
    out += d;
  });
  ctx.log = () => out;
  await until('Node-RED to listen', () => /Server now running at http:\/\/127\.0\.0\.1:\d+\//.test(out));
  ctx.url = /Server now running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out)![1]!;
  await until('the flows to start', () => out.includes('Started flows'));
});

test.after(async (ctx) => {
  if (ctx.red && ctx.red.exitCode === null) {
    const gone = new Promise((r) => ctx.red.once('exit', r));
    ctx.red.kill('SIGTERM');
    await gone;
  }
  await ctx.agent?.cleanup();
  if (ctx.userDir) rmSync(ctx.userDir, { recursive: true, force: true });
});

test('Node-RED loads the five node types of the package, each enabled, none with an error', async (ctx) => {
  const res = await fetch(`${ctx.url}/nodes`, { headers: { Accept: 'application/json' } });
  assert.is(res.status, 200);
  const sets = ((await res.json()) as Array<Record<string, any>>).filter((s) => s.module === 'node-red-contrib-device-agent');
  assert.equal(Object.fromEntries(sets.map((s) => [s.name, s.types])), Object.fromEntries(Object.entries(TYPES).map(([k, v]) => [k, [v]])));
  for (const s of sets) {
    assert.is(s.enabled, true, s.name);
    assert.is(s.err, undefined, `${s.name}: ${s.err}`);
    assert.is(s.version, JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')).version);
    assert.is(s.local, true, `${s.name} is not the one installed in the user directory`);
  }
  assert.not.match(ctx.log(), /\[(error|warn)\].*device-agent/);
});

test("the editor gets each node's template and help (Inputs, Outputs, Details) from its .html", async (ctx) => {
  const res = await fetch(`${ctx.url}/nodes`, { headers: { Accept: 'text/html' } });
  assert.is(res.status, 200);
  const html = await res.text();
  for (const type of Object.values(TYPES)) {
    assert.ok(html.includes(`RED.nodes.registerType('${type}'`), type);
    assert.ok(html.includes(`data-template-name="${type}"`), type);
    const help = new RegExp(`data-help-name="${type}">([\\s\\S]*?)</script>`).exec(html)?.[1] ?? '';
    assert.ok(help.includes('<h3>Details</h3>'), `${type}: Details`);
    if (type !== 'device-agent-config') assert.ok(help.includes('<h3>Outputs</h3>'), `${type}: Outputs`);
    if (type !== 'device-agent-config' && type !== 'device-agent events') assert.ok(help.includes('<h3>Inputs</h3>'), `${type}: Inputs`);
  }
  // The token is a credential: a password field of the config node, never a default.
  assert.match(html, /credentials: \{\s*token: \{ type: 'password' \},?\s*\}/);
});

test('the example flow is listed under the package and is the file of examples/', async (ctx) => {
  const list = await fetch(`${ctx.url}/library/examples/flows/node-red-contrib-device-agent/`);
  assert.equal(await list.json(), [{ fn: 'device-agent' }]);
  const flow = await fetch(`${ctx.url}/library/examples/flows/node-red-contrib-device-agent/device-agent`);
  assert.equal(await flow.json(), JSON.parse(readFileSync(join(PACKAGE, 'examples/device-agent.json'), 'utf8')));
});

test('the example, deployed as the editor does, runs against the agent; the token is only in the encrypted credentials', async (ctx) => {
  const flows = JSON.parse(readFileSync(join(PACKAGE, 'examples/device-agent.json'), 'utf8')) as Array<Record<string, any>>;
  const config = flows.find((n) => n.type === 'device-agent-config')!;
  Object.assign(config, { url: ctx.agent.clientUrl, pin: ctx.agent.pin, credentials: { token: ctx.token } });
  const before = ctx.log().length;
  const res = await fetch(`${ctx.url}/flows`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Node-RED-API-Version': 'v2', 'Node-RED-Deployment-Type': 'full' },
    body: JSON.stringify({ flows }),
  });
  assert.is(res.status, 200, await res.clone().text());
  await until('the deployed flows to start', () => ctx.log().slice(before).includes('Started flows'));
  // The status inject fires 2 s after the start; the events node holds its stream open.
  await until('a status request from Node-RED', () => /GET \/api\/v1\/devicestatus\/get 200 /.test(ctx.agent.output()));
  const deployed = ctx.log().slice(before);
  assert.not.match(deployed, /\[(error|warn)\]/);
  const saved = readFileSync(join(ctx.userDir, 'flows.json'), 'utf8');
  assert.ok(saved.includes(ctx.agent.pin!));
  assert.not.ok(saved.includes(ctx.token), 'the token is in flows.json');
  const creds = readFileSync(join(ctx.userDir, 'flows_cred.json'), 'utf8');
  assert.not.ok(creds.includes(ctx.token), 'the token is in clear in flows_cred.json');
  assert.ok(JSON.parse(creds).$, 'flows_cred.json is encrypted');
});

test.run();
