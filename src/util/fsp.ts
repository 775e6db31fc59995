// Promise forms of the few file-system calls the agent awaits, made from the callback API.
// Not node:fs/promises: loading it brings nine more built-in modules (FileHandle, fs
// watchers, readline, REPL history, ...) into every agent: 0.6 MB of idle RSS after a
// reboot-like start, 2.4 MB with the executable still cached from the build.
// node:fs is imported by name everywhere: `import * as fs` makes esbuild copy every
// property of the module (and that loads fs.Dir's modules too).
import {
  close as closeCb,
  copyFile as copyFileCb,
  fchmod as fchmodCb,
  fchown as fchownCb,
  fstat as fstatCb,
  fsync as fsyncCb,
  ftruncate as ftruncateCb,
  futimes as futimesCb,
  lstat as lstatCb,
  mkdir as mkdirCb,
  open as openCb,
  read as readCb,
  readdir as readdirCb,
  readFile as readFileCb,
  readlink as readlinkCb,
  realpath as realpathCb,
  rename as renameCb,
  rmdir as rmdirCb,
  stat as statCb,
  statfs as statfsCb,
  symlink as symlinkCb,
  unlink as unlinkCb,
  write as writeCb,
} from 'node:fs';
import { promisify } from 'node:util';

export const close = promisify(closeCb);
export const copyFile = promisify(copyFileCb);
export const fchmod = promisify(fchmodCb);
export const fchown = promisify(fchownCb);
export const fstat = promisify(fstatCb);
export const fsync = promisify(fsyncCb);
export const ftruncate = promisify(ftruncateCb);
export const futimes = promisify(futimesCb);
export const lstat = promisify(lstatCb);
export const mkdir = promisify(mkdirCb);
export const open = promisify(openCb);
/** Resolves with `{ bytesRead, buffer }` (read's own promisified form). */
export const read = promisify(readCb);
export const readdir = promisify(readdirCb);
export const readFile = promisify(readFileCb);
export const readlink = promisify(readlinkCb);
/** The system's realpath(3), as fs/promises' realpath (the callback realpath walks in JS). */
export const realpath = promisify(realpathCb.native);
export const rename = promisify(renameCb);
export const rmdir = promisify(rmdirCb);
export const stat = promisify(statCb);
export const statfs = promisify(statfsCb);
export const symlink = promisify(symlinkCb);
export const unlink = promisify(unlinkCb);
/** Resolves with `{ bytesWritten, buffer }` (write's own promisified form). */
export const write = promisify(writeCb);

/** fsync of a file or directory by its path (a file's data, or a new name in a directory). */
export async function syncPath(path: string): Promise<void> {
  const fd = await open(path, 'r');
  try {
    await fsync(fd);
  } finally {
    await close(fd);
  }
}
