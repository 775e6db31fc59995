// Confinement to a base directory: a lexical check first, then the real location of what
// was actually opened (/proc/self/fd/N), so a symlink or a swapped directory cannot lead out.
import { errnoText } from '../errno.ts';
import { close, constants, open, readlinkSync } from 'node:fs';
import { lstat, readlink, realpath } from '../fsp.ts';
import { isAbsolute, posix, resolve } from 'node:path';
import { isWithin } from '../paths.ts';
import { Errors } from '../http/errors.ts';
import { promisify } from 'node:util';

export const openFd = promisify(open) as (path: string, flags: number, mode?: number) => Promise<number>;
export const closeFd = promisify(close);

/** The absolute path a client path names under `base`, or 403 when it leaves it lexically. */
export function lexicalPath(base: string, clientPath: string): string {
  const abs = resolve(base, clientPath);
  if (!isWithin(resolve(base), abs)) throw Errors.pathNotAllowed();
  return abs;
}

/** The base directory as the kernel sees it (it may itself be reached through a symlink). */
export async function realBase(dir: string): Promise<string> {
  try {
    return await realpath(dir);
  } catch (err) {
    throw Errors.absPathFailed(errnoText(err));
  }
}

/**
 * Where an open descriptor really is; the kernel's answer, not a path we computed. Read
 * synchronously: /proc answers from memory, and a thread-pool round trip queued behind
 * running transfers cost a download more than the call itself.
 */
export function fdLocation(fd: number): string {
  return readlinkSync(`/proc/self/fd/${fd}`);
}

/** Throws 403 (and closes the descriptor) unless the opened file lies inside `baseReal`. */
export async function confirmInside(fd: number, baseReal: string): Promise<void> {
  let where: string;
  try {
    where = fdLocation(fd);
  } catch (err) {
    await closeFd(fd);
    throw Errors.absPathFailed(errnoText(err));
  }
  if (!isWithin(baseReal, where)) {
    await closeFd(fd);
    throw Errors.pathNotAllowed();
  }
}

/**
 * Resolves symlinks as far as the path exists, like `realpath -m`: a dangling link is
 * followed to where it points. Used to tell "outside" (403) from "missing" (404) and to
 * find an upload's real target. Throws ELOOP after 40 links, as the kernel does.
 */
export async function realLocation(path: string): Promise<string> {
  const pending = path.split('/').filter(Boolean).reverse();
  let resolved = '/';
  let links = 0;
  while (pending.length > 0) {
    const part = pending.pop()!;
    if (part === '.') continue;
    if (part === '..') { resolved = posix.dirname(resolved); continue; }
    const candidate = posix.join(resolved, part);
    let st;
    try {
      st = await lstat(candidate);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'ENAMETOOLONG') throw err;
      // The rest does not exist: no link below it can redirect anything.
      return posix.join(candidate, ...pending.reverse());
    }
    if (!st.isSymbolicLink()) { resolved = candidate; continue; }
    if (++links > 40) throw Object.assign(new Error('too many levels of symbolic links'), { code: 'ELOOP' });
    const target = await readlink(candidate);
    if (isAbsolute(target)) resolved = '/';
    pending.push(...target.split('/').filter(Boolean).reverse());
  }
  return resolved;
}

/** Does the path, links followed, lead outside the base? Loops count as outside. */
export async function leadsOutside(path: string, baseReal: string): Promise<boolean> {
  try {
    return !isWithin(baseReal, await realLocation(path));
  } catch {
    // A link loop or an unreadable link cannot be shown to stay inside: refuse it.
    return true;
  }
}

export const O = constants;
