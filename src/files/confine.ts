// Confinement to a base directory: a lexical check first, then the real location of what
// was actually opened (/proc/self/fd/N), so a symlink or a swapped directory cannot lead out.
import { errnoText } from '../util/errno.ts';
import { close, constants, fstatSync, open, readlinkSync, type Stats } from 'node:fs';
import { lstat, readlink, realpath } from '../util/fsp.ts';
import { isAbsolute, posix, relative, resolve } from 'node:path';
import { isWithin } from '../util/paths.ts';
import { Errors } from '../http/errors.ts';
import { promisify } from 'node:util';

export const openFd = promisify(open) as (path: string, flags: number, mode?: number) => Promise<number>;
export const closeFd = promisify(close);

/**
 * The absolute path a client path names under `base`, or 403 when it leaves `root`
 * lexically: the base, or the credential's directory inside it (src/files/scope-dir.ts).
 */
export function lexicalPath(base: string, clientPath: string, root = base): string {
  const abs = resolve(base, clientPath);
  if (!isWithin(resolve(root), abs)) throw Errors.pathNotAllowed();
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
 * The real location a request is confined to: the base's (which may itself be reached
 * through a symlink), or a credential's directory, which must really be that name under the
 * real base. A directory swapped for a link (to elsewhere in the base, or out of it), or
 * gone, confines to nothing: 403. Taking the directory's own realpath instead would make a
 * link in its place the confinement, and the files it leads to "inside".
 */
export async function realRoot(base: string, root: string): Promise<string> {
  if (root === base) return realBase(base);
  const [baseReal, rootReal] = await Promise.all([realBase(base), realpath(root).catch(() => undefined)]);
  const expected = posix.join(baseReal, relative(base, root));
  if (rootReal !== expected) throw Errors.pathNotAllowed();
  return expected;
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
    if (part === '..') {
      resolved = posix.dirname(resolved);
      continue;
    }
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
    if (!st.isSymbolicLink()) {
      resolved = candidate;
      continue;
    }
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

/** A client's path opened inside the base: the descriptor (the caller's to close) and its fstat. */
export interface Opened {
  fd: number;
  st: Stats;
  baseReal: string;
}

/**
 * Opens what a client path names under `base` (download and list) and confirms by
 * descriptor that it lies inside `root` (the base, or the credential's directory in it:
 * the same check, so links are followed and confined alike); every refusal is the download's (docs/api.md#download): 403 for a
 * way out (lexical, or through links), 404 for a missing one, 403 for an unreadable one.
 * O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOCTTY: a terminal stays free.
 */
export async function openConfined(base: string, clientPath: string, root = base): Promise<Opened> {
  const abs = lexicalPath(base, clientPath, root);
  // The root's real path and the open run side by side: each is a thread-pool round trip,
  // queued behind running transfers.
  const [real, opened] = await Promise.allSettled([realRoot(base, root), openFd(abs, O.O_RDONLY | O.O_NONBLOCK | O.O_NOCTTY)]);
  if (real.status === 'rejected') {
    if (opened.status === 'fulfilled') await closeFd(opened.value);
    throw real.reason;
  }
  const baseReal = real.value;
  if (opened.status === 'rejected') {
    const err: unknown = opened.reason;
    if (await leadsOutside(abs, baseReal)) throw Errors.pathNotAllowed();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG') throw Errors.fileNotFound(clientPath);
    if (code === 'EACCES' || code === 'EPERM') throw Errors.notReadable();
    if (code === 'ENXIO' || code === 'EOPNOTSUPP') throw Errors.notRegular(); // a socket
    throw Errors.openFailed(errnoText(err));
  }
  const fd = opened.value;
  await confirmInside(fd, baseReal);
  try {
    return { fd, st: fstatSync(fd), baseReal }; // an open descriptor's inode: no disk read, no round trip
  } catch (err) {
    await closeFd(fd);
    throw Errors.readFailed(errnoText(err));
  }
}

/** A client path split for changing it: its directory opened and confirmed, its last name not followed. */
export interface OpenedParent {
  /** The directory holding the entry: the caller's to close. */
  dirFd: number;
  /** Where that directory really is (the kernel's answer). */
  dirReal: string;
  /** The entry's name in it: a link there is the link itself. */
  name: string;
  /** The real location of the directory the request is confined to. */
  rootReal: string;
}

/**
 * Opens the directory that holds what a client path names (delete, mkdir, move), confined
 * by the download's rules: the way there may pass links that stay inside `root`; the last
 * name is left as it is, so a link is changed itself, never what it points to. The
 * directory is confirmed by descriptor and every later step names the entry through it
 * (/proc/self/fd/N/name), so a directory swapped for a link meanwhile cannot redirect the
 * change. `root` itself (the base, or the credential's directory) is never the entry: 403.
 * `missing` is the answer when the directory is not there.
 */
export async function openParent(base: string, clientPath: string, root: string, missing: () => Error): Promise<OpenedParent> {
  const abs = lexicalPath(base, clientPath, root);
  if (abs === resolve(root)) throw Errors.pathNotAllowed();
  // A credential's directory that is gone, or is not really that name under the base: 403.
  const rootReal = await realRoot(base, root);
  // A link loop, or a link changed while it was read (readlink's EINVAL), cannot be shown to stay inside.
  const parent = await realLocation(posix.dirname(abs)).catch(() => {
    throw Errors.pathNotAllowed();
  });
  if (!isWithin(rootReal, parent)) throw Errors.pathNotAllowed();
  let dirFd: number;
  try {
    dirFd = await openFd(parent, O.O_RDONLY | O.O_DIRECTORY);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG' || code === 'ELOOP') throw missing();
    if (code === 'EACCES' || code === 'EPERM') throw Errors.notReadable();
    throw Errors.openFailed(errnoText(err));
  }
  await confirmInside(dirFd, rootReal);
  return { dirFd, dirReal: fdLocation(dirFd), name: posix.basename(abs), rootReal };
}
