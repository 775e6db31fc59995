// The lock files (src/auth/file-lock.ts, docs/behaviour.md#lock-files): a lock names its
// holder by PID, start time and boot id; a live holder is waited for, and every stale lock
// (holder gone, another boot, another start time, the taker's own PID, a PID alone, a torn
// write) is taken over at once — without it each of these blocked writers for 10 s, or forever.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { currentBootId, processStart, withFileLock, withFileLockSync } from '../src/auth/file-lock.ts';
import { ADMIN, makeDir, startAgent, ROOT } from './helpers/agent.ts';
import { bearer, jsonPost } from './helpers/http.ts';

const lock = suite<{ dir: string; holder: ChildProcess }>('lock file');
lock.before((ctx) => {
  ctx.dir = makeDir('da-lock-');
  ctx.holder = spawn('sleep', ['600'], { stdio: 'ignore' });
});
lock.after((ctx) => {
  ctx.holder.kill('SIGKILL');
  rmSync(ctx.dir, { recursive: true, force: true });
});

/** A pid that belonged to a process now gone. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;
const record = (pid: number, start = processStart(pid)!, boot = currentBootId()) => JSON.stringify({ pid, start, boot });

/** Takes the lock at once (a stale one must not make it wait out the 10 s limit). */
function takesAtOnce(file: string, lockText: string) {
  writeFileSync(`${file}.lock`, lockText);
  // withFileLockSync throws LockTimeout after 10 s when it waits for a lock it should take.
  assert.is(
    withFileLockSync(file, () => 'done'),
    'done',
  );
  assert.not.ok(existsSync(`${file}.lock`), 'released after the work');
}

lock('writes its holder: pid, start time, boot id', ({ dir }) => {
  const file = join(dir, 'own.json');
  const seen = withFileLockSync(file, () => JSON.parse(readFileSync(`${file}.lock`, 'utf8')));
  assert.equal(seen, { pid: process.pid, start: processStart(process.pid), boot: currentBootId() });
  assert.match(seen.boot, /^[0-9a-f-]{36}$/);
  assert.not.ok(existsSync(`${file}.lock.${process.pid}`), 'no temporary name left behind');
});

lock('waits for a live holder and takes the lock once it is released', async ({ dir, holder }) => {
  const file = join(dir, 'live.json');
  writeFileSync(`${file}.lock`, record(holder.pid!));
  let ran = false;
  const pending = withFileLock(file, () => {
    ran = true;
  });
  await new Promise((r) => setTimeout(r, 300));
  assert.not.ok(ran, 'a live holder is waited for');
  rmSync(`${file}.lock`);
  await pending;
  assert.ok(ran);
});

lock('takes over a lock whose holder is gone', ({ dir }) => {
  const pid = deadPid();
  takesAtOnce(join(dir, 'a.json'), record(pid, 12345));
});

lock('takes over a live PID of another boot, or with another start time', ({ dir, holder }) => {
  takesAtOnce(join(dir, 'boot.json'), record(holder.pid!, undefined, '00000000-0000-0000-0000-000000000000'));
  takesAtOnce(join(dir, 'start.json'), record(holder.pid!, processStart(holder.pid!)! + 1));
});

lock('takes over a lock holding its own PID (a power cut during its own write)', ({ dir }) => {
  takesAtOnce(join(dir, 'self.json'), record(process.pid));
});

lock('takes over a lock holding only a live PID (the older format) or a torn write', ({ dir, holder }) => {
  takesAtOnce(join(dir, 'old.json'), String(holder.pid));
  takesAtOnce(join(dir, 'empty.json'), '');
  takesAtOnce(join(dir, 'torn.json'), record(holder.pid!).slice(0, 20));
});

lock('four processes adding under the lock lose no update', ({ dir }) => {
  const file = join(dir, 'count.json');
  writeFileSync(file, '0');
  const script = `
    import { readFileSync, writeFileSync } from 'node:fs';
    import { withFileLockSync } from ${JSON.stringify(join(ROOT, 'src/auth/file-lock.ts'))};
    for (let i = 0; i < 50; i++) withFileLockSync(${JSON.stringify(file)}, () => {
      writeFileSync(${JSON.stringify(file)}, String(Number(readFileSync(${JSON.stringify(file)}, 'utf8')) + 1));
    });`;
  const script_ = join(dir, 'add.ts');
  writeFileSync(script_, script);
  const runs = Array.from({ length: 4 }, () => spawn(process.execPath, ['--import', 'tsx', script_], { stdio: 'inherit' }));
  return Promise.all(runs.map((c) => new Promise((r) => c.once('exit', r)))).then((codes) => {
    assert.equal(codes, [0, 0, 0, 0]);
    assert.is(readFileSync(file, 'utf8'), '200');
  });
});

const agent = suite('the agent and a lock left by its own PID');

agent('a tokens-file lock holding the agent PID (a power cut mid-flush) does not block token writes', async () => {
  const a = await startAgent();
  try {
    // The older format, as a power cut during the agent's own write would leave it.
    writeFileSync(join(a.dir, 'tokens.json.lock'), String(a.child.pid));
    const login = await a.login(ADMIN.username, ADMIN.password);
    const res = await jsonPost(`${a.url}/api/v1/tokens`, { name: 'after-power-cut' }, bearer(login));
    assert.is(res.status, 201, await res.clone().text());
  } finally {
    await a.cleanup();
  }
});

lock.run();
agent.run();
