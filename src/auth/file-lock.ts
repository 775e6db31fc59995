// A lock file beside a file that several processes rewrite (the tokens file: the agent and
// the CLI). `<file>.lock` is made with O_EXCL and holds the owner's pid; a lock whose owner
// is gone (a crash) is taken over, checked by inode so that a lock made meanwhile by
// another process is never removed.
import { closeSync, fstatSync, openSync, readFileSync, statSync, unlinkSync, writeSync, constants as C } from 'node:fs';

const WAIT_MS = 10_000;
const STEP_MS = 10;
const EMPTY_STALE_MS = 5_000;

export class LockTimeout extends Error {
  constructor(lock: string) {
    super(`could not lock ${lock}: held by another process for over ${WAIT_MS / 1000} s`);
    this.name = 'LockTimeout';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** One attempt: true when this process now holds the lock. */
function tryLock(lock: string): boolean {
  try {
    const fd = openSync(lock, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, String(process.pid));
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  // Held: take it over only when its owner is gone, and only that very file.
  try {
    const fd = openSync(lock, C.O_RDONLY | C.O_NOFOLLOW);
    let ino: number;
    let age: number;
    let pid: number;
    try {
      const st = fstatSync(fd);
      ino = st.ino;
      age = Date.now() - st.mtimeMs;
      pid = Number(readFileSync(fd, 'utf8'));
    } finally {
      closeSync(fd);
    }
    // An empty file is a lock being written this instant: wait for it. One still empty after
    // a few seconds lost its owner between the create and the write (a crash, a full disk):
    // stale, or no writer could ever take the lock again.
    const written = Number.isInteger(pid) && pid > 0;
    if (written ? alive(pid) : age < EMPTY_STALE_MS) return false;
    if (statSync(lock).ino === ino) unlinkSync(lock);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return false;
}

const release = (lock: string) => {
  try {
    unlinkSync(lock);
  } catch {
    /* already gone: nothing to release */
  }
};

export function withFileLockSync<T>(file: string, work: () => T): T {
  const lock = `${file}.lock`;
  const until = Date.now() + WAIT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (!tryLock(lock)) {
    if (Date.now() > until) throw new LockTimeout(lock);
    Atomics.wait(pause, 0, 0, STEP_MS); // the CLI only: a short sleep, nothing else to do
  }
  try {
    return work();
  } finally {
    release(lock);
  }
}

export async function withFileLock<T>(file: string, work: () => T): Promise<T> {
  const lock = `${file}.lock`;
  const until = Date.now() + WAIT_MS;
  while (!tryLock(lock)) {
    if (Date.now() > until) throw new LockTimeout(lock);
    await new Promise((resolve) => setTimeout(resolve, STEP_MS));
  }
  try {
    return work();
  } finally {
    release(lock);
  }
}
