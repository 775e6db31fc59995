// Removing a directory tree without ever following a link: each directory is opened with
// O_NOFOLLOW and emptied entry by entry through its descriptor (/proc/self/fd/N/name).
import { opendir } from 'node:fs';
import { lstat, rmdir, unlink } from '../util/fsp.ts';
import { closeFd, O, openFd } from './confine.ts';
import { inDir } from './tempfile.ts';

const code = (err: unknown) => (err as NodeJS.ErrnoException | undefined)?.code;

/** The names in an open directory, read through /proc so that it is the checked one. */
export function namesIn(fd: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    opendir(`/proc/self/fd/${fd}`, async (err, dir) => {
      if (err) return reject(err);
      const names: string[] = [];
      try {
        for await (const d of dir) names.push(d.name);
        resolve(names);
      } catch (e) {
        reject(e);
      }
    });
  });
}

/** Entries removed at once: the thread pool has 4 threads, and downloads share it. */
const PARALLEL = 8;

/**
 * Removes everything inside the directory `name` of `parentFd`, never following a link:
 * the directory is opened with O_NOFOLLOW, each entry is removed through its descriptor.
 * An entry swapped for a link meanwhile is removed as the link it now is.
 */
async function emptyDirectory(parentFd: number, name: string): Promise<void> {
  let fd: number;
  try {
    fd = await openFd(inDir(parentFd, name), O.O_RDONLY | O.O_DIRECTORY | O.O_NOFOLLOW);
  } catch (err) {
    // ELOOP/ENOTDIR: no longer a directory (a link put in its place): the caller unlinks it.
    if (code(err) === 'ELOOP' || code(err) === 'ENOTDIR' || code(err) === 'ENOENT') return;
    throw err;
  }
  try {
    const entries = await entriesIn(fd);
    // Directories one after the other (each holds a descriptor while it is emptied); the
    // rest several at a time, by unlink alone: the type the directory told is enough,
    // and a wrong guess (a directory put in its place) fails with EISDIR, then looked at.
    for (const e of entries) if (e.dir) await removeEntry(fd, e.name, true);
    const rest = entries.filter((e) => !e.dir);
    for (let i = 0; i < rest.length; i += PARALLEL) {
      await Promise.all(rest.slice(i, i + PARALLEL).map((e) => removeEntry(fd, e.name, false)));
    }
  } finally {
    await closeFd(fd);
  }
}

/** The entries of an open directory with whether readdir says it is a directory (unknown: treated as one, looked at). */
function entriesIn(fd: number): Promise<Array<{ name: string; dir: boolean }>> {
  return new Promise((resolve, reject) => {
    opendir(`/proc/self/fd/${fd}`, async (err, dir) => {
      if (err) return reject(err);
      const out: Array<{ name: string; dir: boolean }> = [];
      try {
        for await (const d of dir) {
          const known = d.isFile() || d.isSymbolicLink() || d.isFIFO() || d.isSocket() || d.isBlockDevice() || d.isCharacterDevice();
          out.push({ name: d.name, dir: !known });
        }
        resolve(out);
      } catch (e) {
        reject(e);
      }
    });
  });
}

/**
 * Removes one entry of an open directory and, for a directory, all it holds. `lookFirst`
 * false: the caller knows it is not a directory (readdir's type), so it is unlinked at once.
 */
export async function removeEntry(dirFd: number, name: string, lookFirst = true): Promise<void> {
  const at = inDir(dirFd, name);
  for (let attempt = 0; ; attempt++) {
    let isDir = false;
    if (lookFirst || attempt > 0) {
      const st = await lstat(at).catch((err: unknown) => {
        if (code(err) === 'ENOENT') return undefined;
        throw err;
      });
      if (!st) return;
      isDir = st.isDirectory();
    }
    try {
      if (isDir) {
        await emptyDirectory(dirFd, name);
        await rmdir(at);
      } else {
        await unlink(at);
      }
      return;
    } catch (err) {
      // Changed under us (a file became a directory, something was added): look again, a few times.
      const c = code(err);
      if (c === 'ENOENT') return;
      if (attempt >= 4 || (c !== 'EISDIR' && c !== 'ENOTDIR' && c !== 'ENOTEMPTY' && c !== 'EEXIST' && c !== 'EPERM')) throw err;
    }
  }
}
