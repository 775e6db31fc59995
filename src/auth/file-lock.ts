// A lock file beside a file that several processes rewrite (the tokens file: the agent and
// the CLI). `<file>.lock` names its holder: `{"pid", "start", "boot"}`, the PID, the
// process's start time (clock ticks after boot, /proc/<pid>/stat) and the boot id. It is
// written whole under a temporary name and linked into place, so a lock is never seen
// half-written by a live writer. A lock is stale, and taken over at once, when its holder
// is gone, when the boot id or the start time differ (a PID reused after a reboot or a
// power cut), when it holds the taker's own PID (a lock of this process outlives no
// call), or when it holds anything else (an older lock with only a PID, a write torn by a
// power cut) — docs/behaviour.md#lock-files. The take-over checks the inode, so a lock
// made meanwhile by another process is never removed.
import { closeSync, fstatSync, linkSync, openSync, readFileSync, statSync, unlinkSync, writeSync, constants as C } from 'node:fs';
import { monotonicMs } from '../util/clock.ts';

const WAIT_MS = 10_000;
const STEP_MS = 10;

export class LockTimeout extends Error {
  constructor(lock: string) {
    super(`could not lock ${lock}: held by another process for over ${WAIT_MS / 1000} s`);
    this.name = 'LockTimeout';
  }
}

/** Who holds a lock. */
export interface LockHolder {
  pid: number;
  /** Start time of the process in clock ticks after boot (proc(5), /proc/<pid>/stat field 22). */
  start: number;
  /** /proc/sys/kernel/random/boot_id: another boot, another set of processes. */
  boot: string;
}

/** The start time of a process, or undefined when it is gone. */
export function processStart(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = Number(fields[19]);
    return Number.isSafeInteger(start) ? start : undefined;
  } catch {
    return undefined; // no such process (or no /proc): treated as gone
  }
}

let bootId: string | undefined;
export function currentBootId(): string {
  bootId ??= readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  return bootId;
}

let self: string | undefined;
/** This process's lock record, made once. */
function ownRecord(): string {
  self ??= JSON.stringify({ pid: process.pid, start: processStart(process.pid) ?? 0, boot: currentBootId() } satisfies LockHolder);
  return self;
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const h = JSON.parse(text) as Partial<LockHolder> | null;
    if (h && Number.isSafeInteger(h.pid) && (h.pid as number) > 0 && Number.isSafeInteger(h.start) && typeof h.boot === 'string') {
      return h as LockHolder;
    }
  } catch {
    // not a whole record: an older lock (a PID alone) or a torn write
  }
  return undefined;
}

/** Whether the lock's text names a process that still holds it (docs/behaviour.md#lock-files). */
export function holderAlive(text: string): boolean {
  const h = parseHolder(text);
  if (!h || h.pid === process.pid || h.boot !== currentBootId()) return false;
  return processStart(h.pid) === h.start;
}

/** One attempt: true when this process now holds the lock. */
function tryLock(lock: string): boolean {
  // Written whole under a name of this process's own, then linked: link(2) fails with
  // EEXIST when the lock exists, as O_EXCL would, and the lock appears complete.
  const temp = `${lock}.${process.pid}`;
  const fd = openSync(temp, C.O_WRONLY | C.O_CREAT | C.O_TRUNC | C.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, ownRecord());
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, lock);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(temp);
  }
  // Held: take it over only when it is stale, and only that very file.
  try {
    const fd = openSync(lock, C.O_RDONLY | C.O_NOFOLLOW);
    let ino: number;
    let text: string;
    try {
      ino = fstatSync(fd).ino;
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
    if (holderAlive(text)) return false;
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
  const until = monotonicMs() + WAIT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (!tryLock(lock)) {
    if (monotonicMs() > until) throw new LockTimeout(lock);
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
  const until = monotonicMs() + WAIT_MS;
  while (!tryLock(lock)) {
    if (monotonicMs() > until) throw new LockTimeout(lock);
    await new Promise((resolve) => setTimeout(resolve, STEP_MS));
  }
  try {
    return work();
  } finally {
    release(lock);
  }
}
