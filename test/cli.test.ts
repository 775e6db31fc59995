import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseHash } from '../src/auth/passwords.ts';
import { prepareDir, runCli } from './helpers/agent.ts';
import { PKG_VERSION } from './helpers/version.ts';

const basics = suite('cli basics');

basics('--version prints the package.json version', async () => {
  const r = await runCli(['--version']);
  assert.is(r.code, 0);
  assert.is(r.stdout, `${PKG_VERSION}\n`);
});

basics('--help prints usage naming every command', async () => {
  const r = await runCli(['--help']);
  assert.is(r.code, 0);
  for (const c of ['serve', 'user add', 'user passwd', 'user remove', 'user list', 'config check', 'config show', '--config']) {
    assert.ok(r.stdout.includes(c), `usage lacks ${c}`);
  }
});

basics('an unknown command exits 64 with a hint', async () => {
  const r = await runCli(['frobnicate']);
  assert.is(r.code, 64);
  assert.match(r.stderr, /unknown command "frobnicate"/);
  assert.match(r.stderr, /--help/);
});

basics('an unknown option exits 64', async () => {
  const r = await runCli(['--verbose']);
  assert.is(r.code, 64);
  assert.match(r.stderr, /unknown option --verbose/);
});

const users = suite<{ dir: string; cfg: string }>('cli users');

users.before(async (ctx) => {
  ctx.dir = (await prepareDir({ users: [] })).dir;
  ctx.cfg = join(ctx.dir, 'config.json');
});
users.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

const usersIn = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'users.json'), 'utf8')).users as Array<{
    id: string;
    username: string;
    hash: string;
    sessionVersion: string;
  }>;

users('user add reads one line from stdin and stores a hash of the current setting', async ({ dir, cfg }) => {
  const r = await runCli(['user', 'add', 'alice', '--config', cfg], { input: 'secret-pass-1\nignored\n' });
  assert.is(r.code, 0, r.stderr);
  const [alice] = usersIn(dir);
  assert.is(alice!.username, 'alice');
  assert.ok(parseHash(alice!.hash), 'hash parses');
  assert.equal(parseHash(alice!.hash)!.params, { kind: 'scrypt', logN: 14, r: 8, p: 5 });
  assert.not.ok(alice!.hash.includes('secret-pass-1'));
  assert.is(statSync(join(dir, 'users.json')).mode & 0o777, 0o600);
});

users('user add refuses a password shorter than 8 characters', async ({ dir, cfg }) => {
  const r = await runCli(['user', 'add', 'bob', '--config', cfg], { input: 'short\n' });
  assert.is(r.code, 1);
  assert.match(r.stderr, /at least 8 characters/);
  assert.not.ok(usersIn(dir).some((u) => u.username === 'bob'));
});

users('user add refuses an existing name', async ({ cfg }) => {
  const r = await runCli(['user', 'add', 'alice', '--config', cfg], { input: 'another-pass\n' });
  assert.is(r.code, 1);
  assert.match(r.stderr, /user alice already exists/);
});

users('user add refuses an invalid name', async ({ cfg }) => {
  const r = await runCli(['user', 'add', '../x', '--config', cfg], { input: 'another-pass\n' });
  assert.is(r.code, 1);
  assert.match(r.stderr, /invalid user name/);
});

users('user list prints names, roles, directories and ids', async ({ dir, cfg }) => {
  const r = await runCli(['user', 'list', '--config', cfg]);
  assert.is(r.code, 0);
  assert.is(r.stdout, `alice\toperator\t-\t${usersIn(dir)[0]!.id}\n`);
});

users('user passwd changes the hash and the session version', async ({ dir, cfg }) => {
  const before = usersIn(dir)[0]!;
  const r = await runCli(['user', 'passwd', 'alice', '--config', cfg], { input: 'new-secret-2\n' });
  assert.is(r.code, 0, r.stderr);
  const after = usersIn(dir)[0]!;
  assert.is(after.id, before.id);
  assert.is.not(after.hash, before.hash);
  assert.is.not(after.sessionVersion, before.sessionVersion);
});

users('user passwd refuses a password shorter than 8 characters and changes nothing', async ({ dir, cfg }) => {
  const before = usersIn(dir)[0]!;
  const r = await runCli(['user', 'passwd', 'alice', '--config', cfg], { input: 'short\n' });
  assert.is(r.code, 1);
  assert.match(r.stderr, /at least 8 characters/);
  assert.equal(usersIn(dir)[0], before);
});

users('user passwd of an unknown user fails', async ({ cfg }) => {
  const r = await runCli(['user', 'passwd', 'nobody', '--config', cfg], { input: 'new-secret-2\n' });
  assert.is(r.code, 1);
  assert.match(r.stderr, /no user nobody/);
});

users('user remove removes, and a second remove fails', async ({ dir, cfg }) => {
  let r = await runCli(['user', 'remove', 'alice', '--config', cfg]);
  assert.is(r.code, 0, r.stderr);
  assert.equal(usersIn(dir), []);
  r = await runCli(['user', 'remove', 'alice', '--config', cfg]);
  assert.is(r.code, 1);
  assert.match(r.stderr, /no user alice/);
});

users('user commands leave no temp file behind', async ({ dir }) => {
  const { readdirSync } = await import('node:fs');
  assert.equal(
    readdirSync(dir).filter((f) => f.endsWith('.tmp')),
    [],
  );
});

basics.run();
users.run();
