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
    for (const entry of await namesIn(fd)) await removeEntry(fd, entry);
  } finally {
    await closeFd(fd);
  }
}

/** Removes one entry of an open directory and, for a directory, all it holds. */
export async function removeEntry(dirFd: number, name: string): Promise<void> {
  const at = inDir(dirFd, name);
  for (let attempt = 0; ; attempt++) {
    const st = await lstat(at).catch((err: unknown) => { if (code(err) === 'ENOENT') return undefined; throw err; });
    if (!st) return;
    try {
      if (st.isDirectory()) {
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
