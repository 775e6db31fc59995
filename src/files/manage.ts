// Deleting, making directories and moving (docs/behaviour.md, "Managing files"): each
// change is made on a name inside a directory opened and confirmed by descriptor
// (confine.ts, openParent), through /proc/self/fd/N/name, never on a path walked again.
import { opendir, read, write, type Stats } from 'node:fs';
import { posix } from 'node:path';
import { crypto } from '../crypto.ts';
import { errnoText } from '../errno.ts';
import { fchmod, fstat, fsync, futimes, lstat, mkdir, readlink, rename, rmdir, symlink, unlink } from '../fsp.ts';
import { Errors, HttpError } from '../http/errors.ts';
import { isWithin, joinName } from '../paths.ts';
import { closeFd, confirmInside, fdLocation, lexicalPath, O, openFd, openParent, realBase, realLocation, type OpenedParent } from './confine.ts';
import { inDir } from './tempfile.ts';

const code = (err: unknown) => (err as NodeJS.ErrnoException | undefined)?.code;

/** A failed system call as the client sees it: a full disk is 507, the rest 500 with the detail. */
function failure(err: unknown): Error {
  if (err instanceof HttpError) return err;
  if (code(err) === 'ENOSPC' || code(err) === 'EDQUOT') return Errors.noSpace();
  return Errors.manageFailed(errnoText(err));
}

/** The client's path as the answers name it: relative to the base, normalised ("" for the base). */
export function shownPath(base: string, clientPath: string): string {
  return posix.relative(posix.resolve(base), lexicalPath(base, clientPath));
}

/**
 * What the entry is, or 404: only files, directories and links that stay inside may be
 * changed; FIFOs, sockets and devices are refused as a download refuses them (403), and a
 * link whose real location leaves the root is 403 like any way out.
 */
async function entryOf(p: OpenedParent, shown: string): Promise<Stats> {
  let st: Stats;
  try {
    st = await lstat(inDir(p.dirFd, p.name));
  } catch (err) {
    if (code(err) === 'ENOENT' || code(err) === 'ENAMETOOLONG') throw Errors.fileNotFound(shown);
    throw failure(err);
  }
  if (st.isSymbolicLink()) {
    const real = await realLocation(joinName(p.dirReal, p.name)).catch(() => undefined);
    if (real === undefined || !isWithin(p.rootReal, real)) throw Errors.pathNotAllowed();
  } else if (!st.isFile() && !st.isDirectory()) {
    throw Errors.notRegular();
  }
  return st;
}

/** The names in an open directory, read through /proc so that it is the checked one. */
function namesIn(fd: number): Promise<string[]> {
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
async function removeEntry(dirFd: number, name: string): Promise<void> {
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

/** DELETE /api/v1/files: a file, a link (itself), an empty directory, or with `recursive` any directory. */
export async function deletePath(base: string, clientPath: string, recursive: boolean, root: string): Promise<void> {
  const p = await openParent(base, clientPath, root, () => Errors.fileNotFound(clientPath));
  try {
    const at = inDir(p.dirFd, p.name);
    for (let attempt = 0; ; attempt++) {
      const st = await entryOf(p, clientPath);
      try {
        if (!st.isDirectory()) await unlink(at);
        else if (!recursive) await rmdir(at);
        else await removeEntry(p.dirFd, p.name);
        break;
      } catch (err) {
        const c = code(err);
        // Swapped between the look and the change (a link became a directory or back): look again.
        if ((c === 'EISDIR' || c === 'ENOTDIR') && attempt < 4) continue;
        if (c === 'ENOTEMPTY' || c === 'EEXIST') throw Errors.notEmpty();
        if (c === 'ENOENT') throw Errors.fileNotFound(clientPath);
        if (c === 'EBUSY') throw Errors.busy(clientPath);
        throw failure(err);
      }
    }
    await fsync(p.dirFd).catch(() => {}); // durability of the removal only; it happened
  } finally {
    await closeFd(p.dirFd);
  }
}

/**
 * POST /api/v1/files/mkdir: each missing directory on the way is made (0755) inside the one
 * before it, through its descriptor; existing ones are opened, links followed and confirmed
 * inside. Resolves true when the last one was made, false when it was already there.
 */
export async function makeDirectory(base: string, clientPath: string, root: string): Promise<boolean> {
  const abs = lexicalPath(base, clientPath, root);
  const rootAbs = posix.resolve(root);
  const parts = posix.relative(rootAbs, abs).split('/').filter((s) => s !== '');
  const rootReal = root === base ? await realBase(root) : await realBase(root).catch(() => { throw Errors.pathNotAllowed(); });
  let fd: number;
  try {
    fd = await openFd(rootReal, O.O_RDONLY | O.O_DIRECTORY);
  } catch (err) {
    throw root === base ? failure(err) : Errors.pathNotAllowed();
  }
  await confirmInside(fd, rootReal);
  const baseShown = posix.relative(posix.resolve(base), rootAbs);
  let made = false;
  try {
    for (const [i, part] of parts.entries()) {
      const at = inDir(fd, part);
      const shown = posix.join(baseShown, ...parts.slice(0, i + 1));
      if (Buffer.byteLength(part) > 255) throw Errors.badField('path', 'has a name longer than 255 bytes');
      made = false;
      try {
        await mkdir(at, 0o755);
        made = true;
      } catch (err) {
        if (code(err) === 'ENOENT') throw Errors.fileNotFound(clientPath); // a directory on the way removed meanwhile
        if (code(err) !== 'EEXIST') throw failure(err);
      }
      let next: number;
      try {
        // An existing link is followed, as everywhere; the descriptor says where it led.
        next = await openFd(at, O.O_RDONLY | O.O_DIRECTORY | (made ? O.O_NOFOLLOW : 0));
      } catch (err) {
        const c = code(err);
        if (c === 'ENOTDIR') {
          const outside = await realLocation(joinName(fdLocation(fd), part)).then((r) => !isWithin(rootReal, r), () => true);
          throw outside ? Errors.pathNotAllowed() : Errors.notADirectoryInWay(shown);
        }
        if (c === 'ENOENT' || c === 'ELOOP') throw Errors.pathNotAllowed(); // a dangling link or a loop
        throw failure(err);
      }
      await closeFd(fd);
      fd = next;
      await confirmInside(fd, rootReal).catch((err: unknown) => { fd = -1; throw err; });
      if (made) await fchmod(fd, 0o755); // whatever the umask
    }
  } finally {
    if (fd >= 0) await closeFd(fd);
  }
  return made;
}

export interface MoveResult { crossed: boolean }

/** POST /api/v1/files/move: rename; across file systems a copy renamed into place, then the source removed. */
export async function movePath(base: string, from: string, to: string, overwrite: boolean, root: string): Promise<MoveResult> {
  const src = await openParent(base, from, root, () => Errors.fileNotFound(from));
  let dst: OpenedParent | undefined;
  try {
    const st = await entryOf(src, from);
    dst = await openParent(base, to, root, () => Errors.fileNotFound(posix.dirname(to)));
    const fromReal = joinName(src.dirReal, src.name);
    if (st.isDirectory() && isWithin(fromReal, dst.dirReal)) throw Errors.moveIntoItself();
    const target = inDir(dst.dirFd, dst.name);
    const there = await lstat(target).catch((err: unknown) => {
      if (code(err) === 'ENOENT') return undefined;
      if (code(err) === 'ENAMETOOLONG') throw Errors.badField('to', 'has a name longer than 255 bytes');
      throw failure(err);
    });
    if (there) {
      if (fromReal === joinName(dst.dirReal, dst.name)) return { crossed: false }; // onto itself: nothing to do
      if (!overwrite) throw Errors.alreadyExists(to);
      await entryOf(dst, to); // a link leading out, a FIFO: not to be replaced either
    }
    try {
      await rename(inDir(src.dirFd, src.name), target);
      await fsync(dst.dirFd).catch(() => {});
      if (dst.dirReal !== src.dirReal) await fsync(src.dirFd).catch(() => {});
      return { crossed: false };
    } catch (err) {
      if (code(err) !== 'EXDEV') throw renameFailure(err, from, to);
    }
    await copyAcross(src, dst, st, from, to);
    return { crossed: true };
  } finally {
    await closeFd(src.dirFd);
    if (dst) await closeFd(dst.dirFd);
  }
}

function renameFailure(err: unknown, from: string, to: string): Error {
  const c = code(err);
  if (c === 'EINVAL') return Errors.moveIntoItself();
  // A directory over a file, a file over a directory, over a directory that is not empty.
  if (c === 'EISDIR' || c === 'ENOTDIR' || c === 'ENOTEMPTY' || c === 'EEXIST') return Errors.alreadyExists(to);
  if (c === 'EBUSY') return Errors.busy(from);
  if (c === 'ENOENT') return Errors.fileNotFound(from); // removed meanwhile
  return failure(err);
}

const tempName = () => `.device-agent-upload-${crypto().randomBytes(16).toString('hex')}.tmp`;

/**
 * A move to another file system: the entry is copied under a temp name beside its target
 * (files fsynced), renamed into place, and only then is the source removed. A failure on
 * the way removes the copy: the target appears whole or not at all, the source stays.
 */
async function copyAcross(src: OpenedParent, dst: OpenedParent, st: Stats, from: string, to: string): Promise<void> {
  const temp = tempName();
  try {
    await copyEntry(src.dirFd, src.name, dst.dirFd, temp, st);
    await fsync(dst.dirFd);
    try {
      await rename(inDir(dst.dirFd, temp), inDir(dst.dirFd, dst.name));
    } catch (err) {
      throw renameFailure(err, from, to);
    }
  } catch (err) {
    await removeEntry(dst.dirFd, temp).catch(() => {}); // nothing of it may stay behind
    throw failure(err);
  }
  await fsync(dst.dirFd).catch(() => {});
  try {
    await removeEntry(src.dirFd, src.name);
  } catch (err) {
    throw Errors.manageFailed(`copied to ${to}, but the source could not be removed: ${errnoText(err)}`);
  }
}

/** Copies one entry, never following a link: files by descriptor, links as links, directories entry by entry. */
async function copyEntry(fromDir: number, name: string, toDir: number, newName: string, st: Stats): Promise<void> {
  const from = inDir(fromDir, name);
  const to = inDir(toDir, newName);
  if (st.isSymbolicLink()) {
    await symlink(await readlink(from), to);
  } else if (st.isFile()) {
    await copyFile(from, to);
  } else if (st.isDirectory()) {
    await mkdir(to, 0o700); // opened up once its content is in
    const [a, b] = [await openFd(from, O.O_RDONLY | O.O_DIRECTORY | O.O_NOFOLLOW), await openFd(to, O.O_RDONLY | O.O_DIRECTORY | O.O_NOFOLLOW)];
    try {
      for (const entry of await namesIn(a)) {
        const est = await lstat(inDir(a, entry));
        await copyEntry(a, entry, b, entry, est);
      }
      await fsync(b);
      await fchmod(b, st.mode & 0o7777);
      await futimes(b, st.atime, st.mtime);
    } finally {
      await closeFd(a);
      await closeFd(b);
    }
  } else {
    throw Errors.notRegular(); // a FIFO, socket or device inside a directory moved across
  }
}

/** A regular file's bytes, mode and times, read from the descriptor opened without following links. */
async function copyFile(from: string, to: string): Promise<void> {
  const input = await openFd(from, O.O_RDONLY | O.O_NOFOLLOW | O.O_NONBLOCK);
  let output = -1;
  try {
    const st = await fstat(input);
    if (!st.isFile()) throw Errors.notRegular();
    output = await openFd(to, O.O_WRONLY | O.O_CREAT | O.O_EXCL | O.O_NOFOLLOW, 0o600);
    await copyBytes(input, output);
    await fchmod(output, st.mode & 0o7777);
    await futimes(output, st.atime, st.mtime);
    await fsync(output);
  } finally {
    await closeFd(input);
    if (output >= 0) await closeFd(output);
  }
}

async function copyBytes(input: number, output: number): Promise<void> {
  const buf = Buffer.allocUnsafe(1024 * 1024);
  const readAt = () => new Promise<number>((res, rej) => read(input, buf, 0, buf.length, null, (e, n) => (e ? rej(e) : res(n))));
  const writeAll = async (n: number) => {
    let off = 0;
    while (off < n) {
      off += await new Promise<number>((res, rej) => write(output, buf, off, n - off, null, (e, w) => (e ? rej(e) : res(w))));
    }
  };
  for (;;) {
    const n = await readAt();
    if (n === 0) return;
    await writeAll(n);
  }
}
