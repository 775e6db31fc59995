// The wall clock of a real agent moved under it (libfaketime, test/helpers/faketime.ts):
// the failed-login limiter counts on the monotonic clock, and no token with an expiry is
// made while the clock is before the build (docs/behaviour.md#the-clock).
import { readFileSync, statSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, BIN, runCli, startAgent, type TestAgent } from './helpers/agent.ts';
import { fakeClock, fastClock, type FakeClock } from './helpers/faketime.ts';
import { bearer, jsonPost } from './helpers/http.ts';

type Ctx = { agent: TestAgent; clock: FakeClock };
const login = (agent: TestAgent, password: string) =>
  jsonPost(`${agent.url}/api/v1/agentusers/loginusertoagent`, { username: ADMIN.username, password });

const limiter = suite<Ctx>('failed-login limiter and a clock jump');
limiter.before(async (ctx) => {
  ctx.clock = fakeClock('+0');
  ctx.agent = await startAgent({ env: ctx.clock.env });
});
limiter.after(async (ctx) => {
  await ctx.agent?.cleanup();
  ctx.clock?.cleanup();
});

limiter('a clock set back two days keeps the lockout at its 15 minutes', async ({ agent, clock }) => {
  for (let i = 0; i < 10; i++) {
    const res = await login(agent, 'wrong');
    assert.is(res.status, 401, `failure ${i + 1}`);
    await res.arrayBuffer();
  }
  const locked = await login(agent, ADMIN.password);
  assert.is(locked.status, 429);
  const before = Number(locked.headers.get('retry-after'));
  assert.ok(before > 0 && before <= 900, `Retry-After ${before}`);
  clock.set('-2d');
  const after = await login(agent, ADMIN.password);
  assert.is(after.status, 429);
  const wait = Number(after.headers.get('retry-after'));
  assert.ok(wait > 0 && wait <= before, `Retry-After ${wait} after the clock went back (was ${before})`);
  clock.set('+3d');
  const forward = await login(agent, ADMIN.password);
  assert.is(forward.status, 429, 'a jump forward does not end the window either');
  assert.ok(Number(forward.headers.get('retry-after')) <= before);
});

const tokens = suite<Ctx & { login: string }>('API tokens under an implausible clock');
tokens.before(async (ctx) => {
  ctx.clock = fakeClock('@2001-01-01 00:00:00');
  ctx.agent = await startAgent({ env: ctx.clock.env });
});
tokens.after(async (ctx) => {
  await ctx.agent?.cleanup();
  ctx.clock?.cleanup();
});

tokens('a login still works', async (ctx) => {
  ctx.login = await ctx.agent.login();
});

tokens('a token with an expiry is refused: 503, the exact text; none is stored', async ({ agent, login }) => {
  for (const body of [{ name: 'ci' }, { name: 'ci', expiresInDays: 30 }]) {
    const res = await jsonPost(`${agent.url}/api/v1/tokens`, body, bearer(login));
    assert.is(res.status, 503);
    assert.equal(await res.json(), { error: 'the device clock is not set' });
  }
  const list = await fetch(`${agent.url}/api/v1/tokens`, { headers: bearer(login) });
  assert.equal(await list.json(), { tokens: [] });
});

tokens('a token without an expiry is made', async ({ agent, login }) => {
  const res = await jsonPost(`${agent.url}/api/v1/tokens`, { name: 'forever', expiresInDays: null }, bearer(login));
  assert.is(res.status, 201);
  assert.is(((await res.json()) as { expiresAt: unknown }).expiresAt, null);
});

tokens('the CLI refuses with exit 1 and the same text', async ({ agent, clock }) => {
  const r = await runCli(['token', 'create', 'cli', '--user', ADMIN.username, '--config', agent.configFile], { env: clock.env });
  assert.is(r.code, 1, r.stderr);
  assert.is(r.stderr, 'device-agent: the device clock is not set\n');
  assert.is(r.stdout, '');
});

tokens('once the clock is set, tokens are made again', async ({ agent, clock, login }) => {
  clock.set('+0');
  // The login token's expiry was counted from 2001: it ended with the jump.
  const old = await fetch(`${agent.url}/api/v1/tokens`, { headers: bearer(login) });
  assert.is(old.status, 401);
  login = await agent.login();
  const res = await jsonPost(`${agent.url}/api/v1/tokens`, { name: 'ci', expiresInDays: 30 }, bearer(login));
  assert.is(res.status, 201);
  const { expiresAt } = (await res.json()) as { expiresAt: string };
  assert.ok(Math.abs(Date.parse(expiresAt) - (Date.now() + 30 * 86_400_000)) < 60_000, expiresAt);
  const r = await runCli(['token', 'create', 'cli', '--user', ADMIN.username, '--config', agent.configFile], { env: clock.env });
  assert.is(r.code, 0, r.stderr);
});

// The executable's build time is written into it by the build: an hour before it the clock
// is not set, an hour after it is (from source the floor is fixed; unit-clock.test.ts).
const built = suite('the build time of the executable');

built('an hour before the build the CLI refuses a token, an hour after it makes one', async () => {
  if (process.env.TEST_AGENT !== 'bin') return;
  const buildMs = statSync(BIN).mtimeMs;
  const stamp = (ms: number) => `@${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}`;
  const agent = await startAgent();
  try {
    const before = fakeClock(stamp(buildMs - 3_600_000));
    const after = fakeClock(stamp(buildMs + 3_600_000));
    try {
      const args = ['token', 'create', 'b', '--user', ADMIN.username, '--config', agent.configFile];
      const refused = await runCli(args, { env: before.env });
      assert.is(refused.code, 1, refused.stderr);
      assert.is(refused.stderr, 'device-agent: the device clock is not set\n');
      const made = await runCli(args, { env: after.env });
      assert.is(made.code, 0, made.stderr);
    } finally {
      before.cleanup();
      after.cleanup();
    }
  } finally {
    await agent.cleanup();
  }
});

// lastUsedAt reaches tokens.json at most every 10 minutes and at a clean stop: an SD card
// is not rewritten every minute. The agent runs 60 times as fast (a minute a real second).
const flush = suite('lastUsedAt on disk');

flush('written at most every 10 minutes, and at a clean stop', async () => {
  const agent = await startAgent({ env: fastClock(60) });
  try {
    const file = join(agent.dir, 'tokens.json');
    // Made by the CLI (at the real speed): the agent takes it from the file at its first use.
    const made = await runCli(['token', 'create', 'ci', '--user', ADMIN.username, '--config', agent.configFile]);
    assert.is(made.code, 0, made.stderr);
    const token = made.stdout.trim().split('\n').at(-1)!;
    const lastUsed = () => (JSON.parse(readFileSync(file, 'utf8')) as { tokens: { lastUsedAt: string | null }[] }).tokens[0]!.lastUsedAt;
    // A new connection each time: at 60 times the speed the agent's 5 s keep-alive is 83 ms,
    // and a reused connection may be closed under the request.
    const use = () =>
      new Promise<void>((resolve, reject) => {
        get(`${agent.url}/api/v1/devicestatus/get`, { agent: false, headers: bearer(token) }, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
        }).on('error', reject);
      });
    await use();
    const ino = statSync(file).ino;
    // 4 real seconds: 4 minutes of the agent's, four of the old once-a-minute flushes.
    await new Promise((r) => setTimeout(r, 4000));
    assert.is(statSync(file).ino, ino, 'tokens.json not rewritten within 4 minutes');
    assert.is(lastUsed(), null);
    // Within 10 minutes of the agent's (10 real seconds, 30 allowed for a loaded host) it is.
    const deadline = Date.now() + 30_000;
    while (lastUsed() === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    assert.type(lastUsed(), 'string', 'written within 10 minutes');
    const first = lastUsed();
    await use();
    const stopped = await agent.stop('SIGTERM');
    assert.is(stopped.code, 0);
    assert.ok(lastUsed()! > first!, `a clean stop writes the last use (${first} -> ${lastUsed()})`);
  } finally {
    await agent.cleanup();
  }
});

limiter.run();
tokens.run();
built.run();
flush.run();
