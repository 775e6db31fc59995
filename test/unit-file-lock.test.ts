// The tokens file's lock (src/auth/file-lock.ts): a lock left by a process that is gone is
// taken over, one being written this instant is waited for, and one left empty by a writer
// that died between creating and writing it does not block every writer after it.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withFileLock, withFileLockSync } from '../src/auth/file-lock.ts';
import { makeDir } from './helpers/agent.ts';

const lock = suite<{ dir: string }>('lock file');
lock.before((ctx) => {
  ctx.dir = makeDir('da-lock-');
});
lock.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

/** A pid that belonged to a process now gone. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

lock('takes over a lock whose owner is gone, and removes it after the work', ({ dir }) => {
  const file = join(dir, 'a.json');
  writeFileSync(`${file}.lock`, String(deadPid()));
  assert.is(
    withFileLockSync(file, () => 'done'),
    'done',
  );
  assert.not.ok(existsSync(`${file}.lock`));
});

lock('waits for a lock being written this instant (empty and new)', async ({ dir }) => {
  const file = join(dir, 'b.json');
  writeFileSync(`${file}.lock`, '');
  let ran = false;
  const pending = withFileLock(file, () => {
    ran = true;
  });
  await new Promise((r) => setTimeout(r, 200));
  assert.not.ok(ran, 'not taken while its writer may still write its pid');
  rmSync(`${file}.lock`);
  await pending;
  assert.ok(ran);
});

lock('takes over a lock left empty for seconds (its writer died before writing its pid)', ({ dir }) => {
  const file = join(dir, 'c.json');
  writeFileSync(`${file}.lock`, '');
  const old = new Date(Date.now() - 60_000);
  utimesSync(`${file}.lock`, old, old);
  assert.is(
    withFileLockSync(file, () => 'done'),
    'done',
  );
});

lock.run();
