// Password hashes of the older setting (scrypt N=2^17, 128 MiB a check) still log in,
// and the first successful login replaces them with a hash of the current setting,
// written into the users file atomically; a wrong password or a current hash leaves the
// file alone. Against a real agent (sources, then the built executable).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ARGON2_PARAMS,
  OLD_SCRYPT_PARAMS,
  argon2Available,
  SCRYPT_PARAMS,
  currentParams,
  hashPassword,
  needsRehash,
  parseHash,
  verifyPassword,
} from '../src/auth/passwords.ts';
import { currentBootId, processStart } from '../src/auth/file-lock.ts';
import { ADMIN, runCli, startAgent, type TestAgent } from './helpers/agent.ts';
import { bearer, jsonPost } from './helpers/http.ts';

const LOGIN = '/api/v1/agentusers/loginusertoagent';
const STATUS = '/api/v1/devicestatus/get';

type User = { id: string; username: string; hash: string; sessionVersion: string };
const usersIn = (agent: TestAgent) => (JSON.parse(readFileSync(join(agent.dir, 'users.json'), 'utf8')) as { users: User[] }).users;

async function until<T>(what: string, probe: () => T | undefined, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const units = suite('password hashes');

units('the current settings are not re-hashed; the old one and others are', async () => {
  const current = await hashPassword('pw-1', SCRYPT_PARAMS);
  assert.ok(current.startsWith('scrypt$14$8$5$'), current);
  assert.not.ok(needsRehash(current));
  const old = await hashPassword('pw-1', OLD_SCRYPT_PARAMS);
  assert.ok(old.startsWith('scrypt$17$8$1$'), old);
  assert.ok(needsRehash(old));
  assert.ok(await verifyPassword('pw-1', old));
  assert.not.ok(await verifyPassword('pw-2', old));
  assert.not.ok(needsRehash('not a hash'));
  assert.not.ok(needsRehash('argon2id$v=19$m=19456,t=2,p=1$Ul4aKZ8GcGTRUcS2ZYPa1g$OunPt4mnSGhzSW/R+3FsXPP0eEtmLVIUp2GQiv8U6lI'));
  assert.ok(needsRehash('argon2id$v=19$m=65536,t=3,p=4$Ul4aKZ8GcGTRUcS2ZYPa1g$OunPt4mnSGhzSW/R+3FsXPP0eEtmLVIUp2GQiv8U6lI'));
});

units('new hashes are scrypt N=2^14 r=8 p=5 on every runtime', () => {
  assert.equal(currentParams(), { kind: 'scrypt', logN: 14, r: 8, p: 5 });
});

units('an Argon2id hash verifies where the runtime has Argon2, and fails closed where not', async () => {
  if (!argon2Available()) {
    assert.not.ok(
      await verifyPassword('pw-3', 'argon2id$v=19$m=19456,t=2,p=1$Ul4aKZ8GcGTRUcS2ZYPa1g$OunPt4mnSGhzSW/R+3FsXPP0eEtmLVIUp2GQiv8U6lI'),
    );
    return;
  }
  const h = await hashPassword('pw-3', ARGON2_PARAMS);
  assert.match(h, /^argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  assert.equal(parseHash(h)!.params, ARGON2_PARAMS);
  assert.ok(await verifyPassword('pw-3', h));
  assert.not.ok(await verifyPassword('pw-4', h));
});

const agentSuite = suite<{ agent: TestAgent }>('re-hash at login');

agentSuite.before(async (ctx) => {
  ctx.agent = await startAgent({ users: [ADMIN, { username: 'bob', password: 'bob-password' }] });
  // Both users get hashes of the old setting, as an agent installed before wrote them.
  const users = usersIn(ctx.agent);
  for (const u of users) u.hash = await hashPassword(u.username === 'bob' ? 'bob-password' : ADMIN.password, OLD_SCRYPT_PARAMS);
  writeFileSync(join(ctx.agent.dir, 'users.json'), JSON.stringify({ users }, null, 2) + '\n', { mode: 0o600 });
  // The agent's poller reads the file again within a second: wait until it took it.
  await until('the old hashes to be loaded', () => /users file .* reloaded: 2 user/.test(ctx.agent.output()) || undefined);
});
agentSuite.after(async (ctx) => {
  await ctx.agent.cleanup();
});

agentSuite('a wrong password is refused and leaves the old hash', async ({ agent }) => {
  const before = readFileSync(join(agent.dir, 'users.json'), 'utf8');
  const res = await jsonPost(agent.url + LOGIN, { username: 'admin', password: 'wrong password' });
  assert.is(res.status, 401);
  assert.equal(await res.json(), { error: 'invalid username or password' });
  await new Promise((r) => setTimeout(r, 1500));
  assert.is(readFileSync(join(agent.dir, 'users.json'), 'utf8'), before);
});

agentSuite('an old-setting hash logs in and is replaced by one of the current setting', async ({ agent }) => {
  const [oldAdmin, oldBob] = usersIn(agent);
  assert.ok(needsRehash(oldAdmin!.hash));
  const res = await jsonPost(agent.url + LOGIN, ADMIN);
  assert.is(res.status, 200);
  const { token } = (await res.json()) as { token: string };

  const [admin, bob] = await until('the re-hash', () => {
    const users = usersIn(agent);
    return users[0]!.hash !== oldAdmin!.hash ? users : undefined;
  });
  assert.equal(parseHash(admin!.hash)!.params, SCRYPT_PARAMS);
  assert.not.ok(needsRehash(admin!.hash));
  // Nothing else changed: the same id and session (tokens stay valid), bob untouched.
  assert.equal({ ...admin, hash: '' }, { ...oldAdmin, hash: '' });
  assert.equal(bob, oldBob);
  assert.is(statSync(join(agent.dir, 'users.json')).mode & 0o777, 0o600);
  // Written through a temp file and a rename: no temp file is left beside it.
  assert.equal(
    readdirSync(agent.dir).filter((n) => n.endsWith('.tmp')),
    [],
  );

  // The new hash logs in, and the token from the old one still opens the API.
  await until('the store to read the new hash', () => /users file .* reloaded: 2 user/.test(agent.output()) || undefined);
  const again = await jsonPost(agent.url + LOGIN, ADMIN);
  assert.is(again.status, 200);
  assert.is((await fetch(agent.url + STATUS, { headers: bearer(token) })).status, 200);
  const wrong = await jsonPost(agent.url + LOGIN, { username: 'admin', password: 'wrong password' });
  assert.is(wrong.status, 401);
});

agentSuite('a current-setting hash is not written again', async ({ agent }) => {
  const before = readFileSync(join(agent.dir, 'users.json'), 'utf8');
  const mtime = statSync(join(agent.dir, 'users.json')).mtimeMs;
  assert.is((await jsonPost(agent.url + LOGIN, ADMIN)).status, 200);
  await new Promise((r) => setTimeout(r, 1500));
  assert.is(readFileSync(join(agent.dir, 'users.json'), 'utf8'), before);
  assert.is(statSync(join(agent.dir, 'users.json')).mtimeMs, mtime);
});

// The users file has two writers, the CLI and the re-hash at login (docs/behaviour.md#lock-files):
// each changes it under users.json.lock, reading it again inside, so neither write is lost.
const writers = suite<{ agent: TestAgent }>('the users file: the CLI and the re-hash write at once');

writers.before(async (ctx) => {
  ctx.agent = await startAgent({ users: [ADMIN] });
  const users = usersIn(ctx.agent);
  users[0]!.hash = await hashPassword(ADMIN.password, OLD_SCRYPT_PARAMS);
  writeFileSync(join(ctx.agent.dir, 'users.json'), JSON.stringify({ users }, null, 2) + '\n', { mode: 0o600 });
  await until('the old hash to be loaded', () => /users file .* reloaded: 1 user/.test(ctx.agent.output()) || undefined);
});
writers.after(async (ctx) => {
  await ctx.agent.cleanup();
});

writers('a user added by the CLI and a hash re-written at login both land', async ({ agent }) => {
  const file = join(agent.dir, 'users.json');
  const [oldAdmin] = usersIn(agent);
  // A live process holds the lock, so both writers are ready before either may write.
  const holder = spawn('sleep', ['60'], { stdio: 'ignore' });
  try {
    await until('the holder to start', () => processStart(holder.pid!));
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: holder.pid, start: processStart(holder.pid!), boot: currentBootId() }));
    const before = readFileSync(file, 'utf8');
    const added = runCli(['user', 'add', 'carol', '--role', 'viewer', '--config', agent.configFile], { input: 'carol-password\n' });
    assert.is((await jsonPost(agent.url + LOGIN, ADMIN)).status, 200);
    // Both now wait for the lock (the CLI hashes its password first, the re-hash its own):
    // without it each would have written by now.
    await new Promise((r) => setTimeout(r, 2000));
    assert.is(readFileSync(file, 'utf8'), before, 'nothing written while the lock is held');
    rmSync(`${file}.lock`);
    const cli = await added;
    assert.is(cli.code, 0, cli.stderr);
    const users = await until('both writes', () => {
      const now = usersIn(agent);
      return now.length === 2 && now[0]!.hash !== oldAdmin!.hash ? now : undefined;
    });
    assert.equal(
      users.map((u) => u.username),
      ['admin', 'carol'],
    );
    assert.not.ok(needsRehash(users[0]!.hash), 'the re-hash landed');
    assert.ok(await verifyPassword('carol-password', users[1]!.hash), 'the CLI user landed');
    assert.not.ok(existsSync(`${file}.lock`), 'the lock released');
  } finally {
    holder.kill('SIGKILL');
  }
});

units.run();
agentSuite.run();
writers.run();
