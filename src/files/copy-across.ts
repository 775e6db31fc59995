// A move onto another file system (rename's EXDEV): the entry is copied beside its target
// under a temp name, never following a link, each file fsynced, then renamed into place.
import { read, write, type Stats } from 'node:fs';
import { crypto } from '../util/crypto.ts';
import { fchmod, fstat, fsync, futimes, lstat, mkdir, readlink, rename, symlink } from '../util/fsp.ts';
import { Errors } from '../http/errors.ts';
import { closeFd, O, openFd, type OpenedParent } from './confine.ts';
import { namesIn, removeEntry } from './remove-tree.ts';
import { inDir } from './tempfile.ts';

const tempName = () => `.device-agent-upload-${crypto().randomBytes(16).toString('hex')}.tmp`;

/**
 * Copies the entry `src` names under a temp name beside `dst` (files fsynced) and renames
 * the copy into place. Any failure removes the copy, whole, and is thrown as it came (the
 * caller names it): the target appears whole or not at all. The source is the caller's
 * to remove, once this resolved.
 */
export async function placeCopy(src: OpenedParent, dst: OpenedParent, st: Stats): Promise<void> {
  const temp = tempName();
  try {
    await copyEntry(src.dirFd, src.name, dst.dirFd, temp, st);
    await fsync(dst.dirFd);
    await rename(inDir(dst.dirFd, temp), inDir(dst.dirFd, dst.name));
  } catch (err) {
    await removeEntry(dst.dirFd, temp).catch(() => {}); // nothing of it may stay behind
    throw err;
  }
  await fsync(dst.dirFd).catch(() => {});
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
    const [a, b] = [
      await openFd(from, O.O_RDONLY | O.O_DIRECTORY | O.O_NOFOLLOW),
      await openFd(to, O.O_RDONLY | O.O_DIRECTORY | O.O_NOFOLLOW),
    ];
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
