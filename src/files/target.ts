// Where an upload lands: saveToPath checked lexically and through its links, its directory
// opened and confirmed by descriptor, so the final rename cannot be redirected outside.
import { errnoText } from '../util/errno.ts';
import { stat } from '../util/fsp.ts';
import { basename, dirname, join } from 'node:path';
import { Errors } from '../http/errors.ts';
import { isWithin } from '../util/paths.ts';
import { closeFd, confirmInside, lexicalPath, O, openFd, realLocation } from './confine.ts';

export interface Destination {
  /** An open descriptor of the real directory the file goes into. */
  dirFd: number;
  dirReal: string;
  /** The file name inside it, or undefined when saveToPath names a directory. */
  name: string | undefined;
}

/** Opens a directory (links followed) and confirms by descriptor that it is inside. */
export async function openDirInside(dir: string, baseReal: string, shown: string): Promise<number> {
  let fd: number;
  try {
    fd = await openFd(dir, O.O_RDONLY | O.O_DIRECTORY);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw Errors.createFailed(`directory of ${shown} does not exist`);
    throw Errors.createFailed(errnoText(err));
  }
  await confirmInside(fd, baseReal);
  return fd;
}

async function realInside(abs: string, baseReal: string): Promise<string> {
  let real: string;
  try {
    real = await realLocation(abs);
  } catch {
    throw Errors.pathNotAllowed(); // a link loop cannot be shown to stay inside
  }
  if (!isWithin(baseReal, real)) throw Errors.pathNotAllowed();
  return real;
}

/**
 * Resolves saveToPath under the upload directory. A trailing "/" or an existing directory
 * means "put each file inside under its own name" (docs/api.md#upload).
 */
export async function resolveSavePath(uploadDir: string, baseReal: string, savePath: string, root = uploadDir): Promise<Destination> {
  const real = await realInside(lexicalPath(uploadDir, savePath, root), baseReal);
  const isDir = savePath.endsWith('/') || (await stat(real).catch(() => undefined))?.isDirectory() === true;
  const dirReal = isDir ? real : dirname(real);
  if (!isDir && real === baseReal) throw Errors.createFailed(`${savePath} is the upload directory`);
  const dirFd = await openDirInside(dirReal, baseReal, savePath);
  return { dirFd, dirReal, name: isDir ? undefined : basename(real) };
}

/** A client's file name as a basename, or 400: never a path, never a hidden way out. */
export function checkFileName(name: string): string {
  if (name === '' || name === '.' || name === '..' || /[/\\\0\x01-\x1f\x7f]/.test(name) || Buffer.byteLength(name) > 255) {
    throw Errors.badFileName(name.slice(0, 300));
  }
  return name;
}

/** The final place of one file saved inside a directory destination (its name may be a link). */
export async function fileInDirectory(dest: Destination, name: string, baseReal: string): Promise<Destination> {
  const real = await realInside(join(dest.dirReal, name), baseReal);
  if (dirname(real) === dest.dirReal) return { ...dest, name: basename(real) };
  const dirFd = await openDirInside(dirname(real), baseReal, name);
  return { dirFd, dirReal: dirname(real), name: basename(real) };
}

export async function closeDestination(dest: Destination): Promise<void> {
  await closeFd(dest.dirFd).catch(() => {});
}
