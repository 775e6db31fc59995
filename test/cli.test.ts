import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseHash } from '../src/auth/passwords.ts';
import { agentCommand, prepareDir, runCli } from './helpers/agent.ts';
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

/** Whether the process has made its standard input non-blocking (O_NONBLOCK in the pipe's flags). */
function stdinNonBlocking(pid: number): boolean {
  try {
    const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/${pid}/fdinfo/0`, 'utf8'))?.[1];
    return flags !== undefined && (Number.parseInt(flags, 8) & 0o4000) !== 0;
  } catch {
    return false; // not yet started, or gone
  }
}

users('user add waits for a password that comes late on a pipe (ssh, Ansible)', async ({ dir, cfg }) => {
  const { cmd, args } = agentCommand();
  const child = spawn(cmd, [...args, 'user', 'add', 'late', '--config', cfg], {
    env: { ...process.env, DEVICE_AGENT_CONFIG: '', NOTIFY_SOCKET: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((r) => child.on('close', r));
  // The password is written only once the CLI has turned to standard input: libuv makes the
  // pipe non-blocking then, so a read that does not wait finds it empty (EAGAIN).
  const end = Date.now() + 60_000;
  while (!stdinNonBlocking(child.pid!) && child.exitCode === null) {
    if (Date.now() > end) throw new Error('the CLI never read its standard input');
    await new Promise((r) => setTimeout(r, 20));
  }
  child.stdin.end('late-pass-1\n');
  assert.is(await exited, 0, stderr);
  assert.ok(
    usersIn(dir).some((u) => u.username === 'late'),
    'no user late',
  );
  const rm = await runCli(['user', 'remove', 'late', '--config', cfg]);
  assert.is(rm.code, 0, rm.stderr);
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
