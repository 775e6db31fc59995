// The audit trail outside systemd (docs/behaviour.md, "Audit trail"): the agent's events as
// `<6>audit <json>` lines on standard output and in `audit.file` (0600), the CLI's in
// `audit.file`; one JSON object per event with its fields; and no password or token, of
// any kind used here, in any line the agent, the CLI or the file wrote.
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, startAgent, type TestAgent } from './helpers/agent.ts';
import { auditEvents, unprefixed } from './helpers/log.ts';

const PASSWORD = 'a password for the audit';
const NEW_PASSWORD = 'another password for the audit';
const WRONG = 'not the password at all';

interface Event {
  time: string;
  event: string;
  outcome: string;
  user: string | null;
  credential: string;
  client: string;
  [k: string]: unknown;
}
interface Ctx {
  agent: TestAgent;
  secrets: Set<string>;
  cliOutput: string[];
}

const trail = suite<Ctx>('audit trail');

trail.before(async (ctx) => {
  ctx.secrets = new Set([PASSWORD, NEW_PASSWORD, WRONG]);
  ctx.cliOutput = [];
  ctx.agent = await startAgent({
    config: { audit: { file: 'audit.log' } },
    users: [
      { username: 'vera', password: PASSWORD, role: 'viewer' },
      { username: 'otto', password: PASSWORD, role: 'operator' },
      { username: 'ada', password: PASSWORD, role: 'admin' },
    ],
  });
  mkdirSync(join(ctx.agent.baseDir, 'incoming'));
  writeFileSync(join(ctx.agent.baseDir, 'small.txt'), 'hello');
  writeFileSync(join(ctx.agent.baseDir, 'big.bin'), Buffer.alloc(32 << 20, 7));
});

trail.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

const login = async (ctx: Ctx, username: string, password: string) => {
  const res = await fetch(`${ctx.agent.url}/api/v1/agentusers/loginusertoagent`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const body = (await res.json()) as { token?: string };
  if (body.token) ctx.secrets.add(body.token);
  return { status: res.status, token: body.token ?? '' };
};

const call = (ctx: Ctx, method: string, path: string, token: string, body?: BodyInit, type?: string) =>
  fetch(`${ctx.agent.url}${path}`, {
    method,
    body,
    headers: { Authorization: `Bearer ${token}`, ...(type ? { 'Content-Type': type } : {}) },
  }).then(async (r) => ({ status: r.status, text: await r.text() }));

const cli = async (ctx: Ctx, args: string[], input?: string) => {
  const r = await runCli([...args, '--config', ctx.agent.configFile], input === undefined ? {} : { input });
  ctx.cliOutput.push(r.stderr);
  if (!(args[0] === 'token' && args[1] === 'create')) ctx.cliOutput.push(r.stdout); // that one prints the token, by design
  return r;
};

/** The agent's standard-output events (`<6>audit <json>`: info priority, as every line). */
const stdoutEvents = (agent: TestAgent): Event[] => auditEvents(agent.output());
const fileEvents = (agent: TestAgent): Event[] =>
  readFileSync(join(agent.dir, 'audit.log'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Event);

async function until(ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out waiting for an audit event');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Starts a download of the big file and cuts it after its first chunk: a download that did not complete. */
function cutDownload(ctx: Ctx, token: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${ctx.agent.url}/api/download?filepath=big.bin`,
      { headers: { Authorization: `Bearer ${token}` }, agent: false },
      (res) => {
        res.once('data', () => {
          res.destroy();
          resolve();
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

trail('every kind of event the agent and the CLI record, with its fields', async (ctx) => {
  const { agent } = ctx;
  // login: ok, failed, throttled (an unknown name: ten failures, then 429)
  const otto = (await login(ctx, 'otto', PASSWORD)).token;
  const vera = (await login(ctx, 'vera', PASSWORD)).token;
  const ada = (await login(ctx, 'ada', PASSWORD)).token;
  assert.is((await login(ctx, 'otto', WRONG)).status, 401);
  for (let i = 0; i < 10; i++) assert.is((await login(ctx, 'mallory', WRONG)).status, 401);
  assert.is((await login(ctx, 'mallory', WRONG)).status, 429);
  // denied: a missing scope, a path outside the token's directory, a token present but bad
  assert.is((await call(ctx, 'POST', '/api/v1/audiofiles/audiorecordstop', vera)).status, 403);
  const made = await call(ctx, 'POST', '/api/v1/tokens', otto, JSON.stringify({ name: 'ci', directory: 'incoming' }), 'application/json');
  assert.is(made.status, 201);
  const ci = JSON.parse(made.text) as { id: string; token: string };
  ctx.secrets.add(ci.token);
  assert.is((await call(ctx, 'GET', '/api/download?filepath=small.txt', ci.token)).status, 403);
  assert.is((await call(ctx, 'GET', '/api/v1/devicestatus/get', `dat_${'B'.repeat(43)}`)).status, 401);
  // upload: one event per stored file, through the token (credential token:ci)
  const form = new FormData();
  form.append('saveToPath', 'incoming/');
  form.append('myFile', new Blob(['one']), 'one.txt');
  form.append('myFile', new Blob(['second']), 'two.txt');
  assert.is((await call(ctx, 'POST', '/api/upload', ci.token, form)).status, 200);
  // download: completed, and cut short
  assert.is((await call(ctx, 'GET', '/api/download?filepath=small.txt', otto)).text, 'hello');
  await cutDownload(ctx, otto);
  // token.revoke through the API
  assert.is((await call(ctx, 'DELETE', `/api/v1/tokens/${ci.id}`, ada)).status, 204);
  // config.reload
  agent.child.kill('SIGHUP');
  await until(() => stdoutEvents(agent).some((e) => e.event === 'config.reload'));
  // The CLI's: user.add, user.set, user.passwd, token.create, token.revoke, user.remove
  assert.is((await cli(ctx, ['user', 'add', 'carl', '--role', 'viewer'], `${PASSWORD}\n`)).code, 0);
  assert.is((await cli(ctx, ['user', 'set', 'carl', '--directory', 'incoming'])).code, 0);
  assert.is((await cli(ctx, ['user', 'passwd', 'carl'], `${NEW_PASSWORD}\n`)).code, 0);
  const t = await cli(ctx, ['token', 'create', 'wall', '--user', 'carl']);
  assert.is(t.code, 0, t.stderr);
  ctx.secrets.add(t.stdout.trim().split('\n').pop()!);
  assert.is((await cli(ctx, ['token', 'revoke', 'wall', '--user', 'carl'])).code, 0);
  assert.is((await cli(ctx, ['user', 'remove', 'carl'])).code, 0);
  await until(() => stdoutEvents(agent).some((e) => e.event === 'download' && e.completed === false));

  const out = stdoutEvents(agent);
  const file = fileEvents(agent);
  // Each event on standard output carries the info priority, as every line does.
  assert.equal(unprefixed(agent.output()), []);
  assert.is(statSync(join(agent.dir, 'audit.log')).mode & 0o777, 0o600);
  for (const e of file) {
    assert.match(e.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(['ok', 'denied', 'failed'].includes(e.outcome), e.event);
    for (const k of ['event', 'user', 'credential', 'client']) assert.ok(k in e, `${e.event}: ${k}`);
  }
  // The agent's events are in both, the same; the CLI's only in the file (its standard output is its answer).
  const fromCli = file.filter((e) => e.credential === 'cli');
  assert.equal(
    file.filter((e) => e.credential !== 'cli'),
    out,
  );
  const find = (list: Event[], pred: (e: Event) => boolean, what: string) => {
    const e = list.find(pred);
    assert.ok(e, `no ${what} in ${JSON.stringify(list.map((x) => `${x.event}/${x.outcome}`))}`);
    return e!;
  };
  const has = (what: string, fields: Partial<Event>, list = out) => {
    const e = find(
      list,
      (x) => Object.entries(fields).every(([k, v]) => JSON.stringify(x[k]) === JSON.stringify(v)),
      `${what} ${JSON.stringify(fields)}`,
    );
    return e;
  };
  has('login ok', { event: 'login', outcome: 'ok', user: 'otto', credential: 'login', client: '127.0.0.1' });
  has('login failed', { event: 'login', outcome: 'failed', user: 'otto', reason: 'invalid username or password' });
  has('login throttled', { event: 'login', outcome: 'denied', user: 'mallory', reason: 'throttled' });
  has('denied scope', {
    event: 'denied',
    outcome: 'denied',
    user: 'vera',
    credential: 'login',
    path: '/api/v1/audiofiles/audiorecordstop',
    status: 403,
    reason: 'insufficient scope: audio is required',
  });
  has('denied path', {
    event: 'denied',
    user: 'otto',
    credential: 'token:ci',
    path: 'small.txt',
    status: 403,
    reason: 'file path is not allowed',
  });
  has('denied bad token', { event: 'denied', user: null, credential: 'none', status: 401, reason: 'invalid token' });
  has('token.create', { event: 'token.create', outcome: 'ok', user: 'otto', credential: 'login', name: 'ci' });
  has('token.revoke', { event: 'token.revoke', outcome: 'ok', user: 'ada', credential: 'login', name: 'ci', for: 'otto' });
  has('upload one', { event: 'upload', user: 'otto', credential: 'token:ci', path: 'incoming/one.txt', bytes: 3 });
  has('upload two', { event: 'upload', user: 'otto', credential: 'token:ci', path: 'incoming/two.txt', bytes: 6 });
  has('download', { event: 'download', outcome: 'ok', user: 'otto', path: 'small.txt', bytes: 5, completed: true, status: 200 });
  const cut = has('download cut', { event: 'download', outcome: 'failed', path: 'big.bin', completed: false });
  assert.ok((cut.bytes as number) < 32 << 20, `sent ${cut.bytes} of ${32 << 20}`);
  has('config.reload', { event: 'config.reload', outcome: 'ok', credential: 'signal' });
  for (const event of ['user.add', 'user.set', 'user.passwd', 'token.create', 'token.revoke', 'user.remove']) {
    has(`CLI ${event}`, { event, outcome: 'ok', user: 'carl', credential: 'cli', client: 'local' }, fromCli);
  }
});

trail('no password, login token or API token in any line the agent, the CLI or the audit file wrote', ({ agent, secrets, cliOutput }) => {
  const logs = [agent.output(), readFileSync(join(agent.dir, 'audit.log'), 'utf8'), ...cliOutput];
  assert.ok(secrets.size >= 8, `${secrets.size} secrets`);
  for (const secret of secrets) {
    for (const log of logs) assert.not.ok(log.includes(secret), `a secret (${secret.slice(0, 6)}…) in a log`);
  }
  // Nor a token's hash.
  for (const secret of secrets) {
    const hash = createHash('sha256').update(secret).digest('hex');
    for (const log of logs) assert.not.ok(log.includes(hash), 'a hash in a log');
  }
});

trail('audit.file is opened again on SIGHUP: logrotate moves it, the next events go to a new 0600 file', async (ctx) => {
  const { agent } = ctx;
  const file = join(agent.dir, 'audit.log');
  renameSync(file, `${file}.1`);
  const before = readFileSync(`${file}.1`, 'utf8');
  agent.child.kill('SIGHUP');
  // The reload's own event is the first line of the new file.
  await until(() => existsSync(file) && readFileSync(file, 'utf8').includes('"event":"config.reload"'));
  assert.is((await login(ctx, 'nobody-here', 'wrong')).status, 401);
  await until(() => readFileSync(file, 'utf8').includes('"event":"login"'));
  assert.is(statSync(file).mode & 0o777, 0o600);
  assert.is(readFileSync(`${file}.1`, 'utf8'), before, 'nothing more written to the moved file');
  const events = fileEvents(agent).map((e) => `${e.event}:${e.outcome}`);
  assert.equal(events, ['config.reload:ok', 'login:failed']);
});

trail.run();
