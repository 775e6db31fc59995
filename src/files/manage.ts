// Deleting, making directories and moving (docs/behaviour.md, "Managing files"): each
// change is made on a name inside a directory opened and confirmed by descriptor
// (confine.ts, openParent), through /proc/self/fd/N/name, never on a path walked again.
import type { Stats } from 'node:fs';
import { posix } from 'node:path';
import { errnoText } from '../util/errno.ts';
import { fchmod, fsync, lstat, mkdir, rename, rmdir, unlink } from '../util/fsp.ts';
import { Errors, HttpError } from '../http/errors.ts';
import { isWithin, joinName } from '../util/paths.ts';
import { fileCompleted } from '../util/completed.ts';
import {
  closeFd,
  confirmInside,
  fdLocation,
  lexicalPath,
  O,
  openFd,
  openParent,
  realLocation,
  realRoot,
  type OpenedParent,
} from './confine.ts';
import { placeCopy } from './copy-across.ts';
import { removeEntry } from './remove-tree.ts';
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
  const parts = posix
    .relative(rootAbs, abs)
    .split('/')
    .filter((s) => s !== '');
  // A credential's directory that is gone, or is not really that name under the base: 403.
  const rootReal = await realRoot(base, root);
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
          const outside = await realLocation(joinName(fdLocation(fd), part)).then(
            (r) => !isWithin(rootReal, r),
            () => true,
          );
          throw outside ? Errors.pathNotAllowed() : Errors.notADirectoryInWay(shown);
        }
        if (c === 'ENOENT' || c === 'ELOOP') throw Errors.pathNotAllowed(); // a dangling link or a loop
        throw failure(err);
      }
      await closeFd(fd);
      fd = next;
      await confirmInside(fd, rootReal).catch((err: unknown) => {
        fd = -1;
        throw err;
      });
      if (made) await fchmod(fd, 0o755); // whatever the umask
    }
  } finally {
    if (fd >= 0) await closeFd(fd);
  }
  return made;
}

export interface MoveResult {
  crossed: boolean;
}

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
      fileCompleted(joinName(dst.dirReal, dst.name));
      return { crossed: false };
    } catch (err) {
      if (code(err) !== 'EXDEV') throw renameFailure(err, from, to);
    }
    // Another file system (a mount inside the base): a copy renamed into place, then the source removed.
    await placeCopy(src, dst, st).catch((err: unknown) => {
      throw renameFailure(err, from, to);
    });
    try {
      await removeEntry(src.dirFd, src.name);
    } catch (err) {
      throw Errors.manageFailed(`copied to ${to}, but the source could not be removed: ${errnoText(err)}`);
    }
    fileCompleted(joinName(dst.dirReal, dst.name));
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
