// GET /api/v1/files/list (docs/api.md#directory-listing): one directory of the download base, confined by
// the download's own code (confine.ts), read through its descriptor; entries whose real
// location leaves the base and special files are left out, never opened.
import { opendir, type Dirent } from 'node:fs';
import { posix, resolve } from 'node:path';
import type { Config } from '../config/config.ts';
import { errnoText } from '../util/errno.ts';
import { lstat } from '../util/fsp.ts';
import { Errors } from '../http/errors.ts';
import { isWithin, joinName } from '../util/paths.ts';
import { isoTime } from '../util/time.ts';
import { closeFd, fdLocation, lexicalPath, openConfined, realLocation } from './confine.ts';

/** At most this many entries are read from one directory; a larger one is listed in part (`truncated`). */
export const MAX_ENTRIES = 10_000;
/** lstat calls in flight at once: the thread pool has 4 threads, downloads share it. */
const PARALLEL = 16;

export interface ListEntry {
  name: string;
  type: 'file' | 'directory';
  sizeBytes: number | null;
  modifiedAt: string;
}

/** Up to `max` names of an open directory, read through /proc so that it is the checked one. */
function readNames(fd: number, max: number): Promise<{ names: Dirent<Buffer>[]; more: boolean }> {
  return new Promise((resolveNames, reject) => {
    opendir(`/proc/self/fd/${fd}`, { encoding: 'buffer' as BufferEncoding, bufferSize: 256 }, async (err, dir) => {
      if (err) return reject(err);
      const names: Dirent<Buffer>[] = [];
      let more = false;
      try {
        for await (const d of dir) {
          if (names.length === max) {
            more = true;
            break;
          }
          names.push(d as unknown as Dirent<Buffer>);
        }
        resolveNames({ names, more });
      } catch (e) {
        reject(e);
      }
      // for-await closes the directory when it ends or breaks.
    });
  });
}

/** What one entry is, or undefined when it is left out (outside, special, unreadable, not UTF-8). */
async function describe(dir: { fd: number; real: string }, baseReal: string, raw: Buffer): Promise<ListEntry | undefined> {
  const name = raw.toString('utf8');
  if (!Buffer.from(name).equals(raw)) return undefined; // a client could not name it in a path
  let st;
  try {
    // Through the open descriptor: the very directory that was checked, whatever was renamed since.
    st = await lstat(`/proc/self/fd/${dir.fd}/${name}`);
    if (st.isSymbolicLink()) {
      // Followed only on paper (lstat and readlink, as download's check): a link whose
      // real location leaves the base is never stat'ed, let alone opened.
      const path = await realLocation(joinName(dir.real, name));
      if (!isWithin(baseReal, path)) return undefined;
      st = await lstat(path); // its real location: a link again means it was swapped meanwhile
    }
  } catch {
    return undefined; // gone meanwhile, dangling, a loop: nothing a client could open
  }
  const type = st.isDirectory() ? 'directory' : st.isFile() ? 'file' : undefined;
  if (!type) return undefined;
  // Rounded to the millisecond as Node's stat().mtime is.
  return { name, type, sizeBytes: type === 'file' ? st.size : null, modifiedAt: isoTime(Math.round(st.mtimeMs)) };
}

/** Directories first, then by name in byte order (UTF-8), as docs/api.md#directory-listing fixes. */
export function compareEntries(a: ListEntry, b: ListEntry): number {
  if (a.type !== b.type) return a.type === 'directory' ? -1 : 1;
  return Buffer.compare(Buffer.from(a.name), Buffer.from(b.name));
}

export async function listDirectory(
  config: Config,
  clientPath: string,
  root = config.baseDir,
): Promise<{ path: string; entries: ListEntry[]; truncated?: true }> {
  const shown = posix.relative(resolve(config.baseDir), lexicalPath(config.baseDir, clientPath, root));
  const { fd, st, baseReal } = await openConfined(config.baseDir, clientPath, root);
  const entries: ListEntry[] = [];
  let more: boolean;
  try {
    if (!st.isDirectory()) throw Errors.notDirectory(clientPath);
    const dir = { fd, real: fdLocation(fd) };
    const read = await readNames(fd, MAX_ENTRIES).catch((err: unknown) => {
      throw Errors.readFailed(errnoText(err));
    });
    more = read.more;
    for (let i = 0; i < read.names.length; i += PARALLEL) {
      const batch = await Promise.all(read.names.slice(i, i + PARALLEL).map((d) => describe(dir, baseReal, d.name)));
      for (const e of batch) if (e) entries.push(e);
    }
  } finally {
    await closeFd(fd);
  }
  entries.sort(compareEntries);
  return more ? { path: shown, entries, truncated: true } : { path: shown, entries };
}
