// Writing a file that readers may see at any moment: a temp file beside it, never through
// a link someone planted (O_EXCL|O_NOFOLLOW), written whole and fsynced, then renamed over
// the target (or linked, when the target must not exist yet) and the directory fsynced.
// A crash leaves the old file or the new one, never half of one. Uploads keep their own
// descriptor-relative path (src/files/tempfile.ts), which also survives a swapped directory.
import {
  closeSync,
  fchmodSync,
  fchownSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  constants as C,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { errnoName } from './errno.ts';
import { close as closeFd, fchmod, fchown, fsync, open as openFd, rename, stat, syncPath, unlink, write } from './fsp.ts';

export interface ReplaceOptions {
  /** File mode, set with fchmod whatever the umask. */
  mode: number;
  /** Owner to give the file when running as root (e.g. the service user's state directory's). */
  owner?: { uid: number; gid: number };
  /** Only create: fail with EEXIST (and leave the existing file alone) when the target exists. */
  create?: boolean;
}

let counter = 0;

/** A fresh temp name beside `file` (opened O_EXCL|O_NOFOLLOW: a name taken or planted is skipped, tried 9 times). */
const tempName = (file: string): string =>
  join(dirname(file), `.${basename(file)}.${process.pid}.${++counter}.${Math.random().toString(36).slice(2, 8)}.tmp`);
const TEMP_FLAGS = C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW;
const tryAgain = (err: unknown, attempt: number): boolean => (err as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 8;

/** Opens a fresh temp file beside `file`; a name taken (or planted) is skipped, never opened. */
function openTemp(file: string, mode: number): { fd: number; tmp: string } {
  for (let attempt = 0; ; attempt++) {
    const tmp = tempName(file);
    try {
      return { fd: openSync(tmp, TEMP_FLAGS, mode), tmp };
    } catch (err) {
      if (!tryAgain(err, attempt)) throw err;
    }
  }
}

/** fsync of a directory, so that a rename or a new name in it survives a power cut. */
export function syncDir(dir: string): void {
  const fd = openSync(dir, C.O_RDONLY | C.O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Replaces (or, with `create`, creates) `file` with `data` atomically and durably. */
export function replaceFile(file: string, data: string | Uint8Array, opts: ReplaceOptions): void {
  const { fd, tmp } = openTemp(file, opts.mode);
  let placed = false;
  try {
    try {
      fchmodSync(fd, opts.mode);
      if (opts.owner && process.getuid?.() === 0) fchownSync(fd, opts.owner.uid, opts.owner.gid);
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (opts.create)
      linkSync(tmp, file); // EEXIST when someone made it meanwhile
    else renameSync(tmp, file);
    placed = !opts.create;
  } finally {
    if (!placed) {
      try {
        unlinkSync(tmp);
      } catch {
        /* already gone: nothing to clean */
      }
    }
  }
  syncDir(dirname(file));
}

/**
 * Replaces a state file (users, tokens) as replaceFile does, keeping the owner and mode of
 * the file it replaces; a new file is 0600 and, when run as root, owned like its directory
 * (the service user's state directory), so the CLI run by root never takes it from the agent.
 */
export function replaceStateFile(file: string, data: string): void {
  let st: Stats | null = null;
  try {
    st = statSync(file);
  } catch {
    /* a new file */
  }
  const owner = stateOwner(st, () => statSync(dirname(file)));
  replaceFile(file, data, { mode: owner.mode, owner });
}

type Owned = { uid: number; gid: number; mode: number };

/** A state file's owner and mode: those of the file it replaces, or its directory's owner and 0600. */
function stateOwner(st: Owned | null, dir: () => Owned): { uid: number; gid: number; mode: number } {
  if (st) return { uid: st.uid, gid: st.gid, mode: st.mode & 0o777 };
  const d = dir();
  return { uid: d.uid, gid: d.gid, mode: 0o600 };
}

/**
 * The list under `key` of a state file written by replaceStateFile (`{"users": [...]}`),
 * or [] when the file does not exist. Every other problem is thrown as `fail(text)`,
 * naming the file: unreadable, not JSON, no such list.
 */
export function readStateList(file: string, key: string, what: string, fail: (text: string) => Error): unknown[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw fail(`could not read ${what} ${file}: ${errnoName(err)}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw fail(`${what} ${file} is not valid JSON: ${(err as Error).message}`);
  }
  const list = (raw as Record<string, unknown> | null)?.[key];
  if (!Array.isArray(list)) throw fail(`${what} ${file}: expected {"${key}": [...]}`);
  return list;
}

/** A small text file's content, trimmed (a secret named by a `…File` key); errors as thrown by readFileSync. */
export function readTrimmed(file: string): string {
  return readFileSync(file, 'utf8').trim();
}

/**
 * replaceStateFile on the thread pool: the same steps (a fresh temp file, written whole and
 * fsynced, renamed over the file, the directory fsynced), none of them on the event loop,
 * where an fsync of an SD card can hold every request and a capture's reading for a
 * good part of a second.
 */
export async function replaceStateFileAsync(file: string, data: string): Promise<void> {
  const dir = dirname(file);
  const st = await stat(file).catch(() => null);
  const dirStat = st ? null : await stat(dir);
  const owner = stateOwner(st, () => dirStat!);
  let fd: number | undefined;
  let tmp = '';
  for (let attempt = 0; fd === undefined; attempt++) {
    tmp = tempName(file);
    try {
      fd = await openFd(tmp, TEMP_FLAGS, owner.mode);
    } catch (err) {
      if (!tryAgain(err, attempt)) throw err;
    }
  }
  let placed = false;
  try {
    try {
      await fchmod(fd, owner.mode);
      if (process.getuid?.() === 0) await fchown(fd, owner.uid, owner.gid);
      const bytes = Buffer.from(data);
      for (let off = 0; off < bytes.length; ) off += (await write(fd, bytes, off, bytes.length - off)).bytesWritten;
      await fsync(fd);
    } finally {
      await closeFd(fd);
    }
    await rename(tmp, file);
    placed = true;
  } finally {
    if (!placed) await unlink(tmp).catch(() => {});
  }
  await syncPath(dir);
}
