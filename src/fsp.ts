// Promise forms of the few file-system calls the agent awaits, made from the callback API.
// Not node:fs/promises: loading it brings nine more built-in modules with it (FileHandle,
// fs watchers, readline, REPL history, ...). Measured on the executable: idle RSS 52.5 →
// 50.0 MB with nothing else changed (bench/, "idle RSS").
import * as fs from 'node:fs';
import { promisify } from 'node:util';

export const copyFile = promisify(fs.copyFile);
export const lstat = promisify(fs.lstat);
export const readdir = promisify(fs.readdir);
export const readFile = promisify(fs.readFile);
export const readlink = promisify(fs.readlink);
/** The system's realpath(3), as fs/promises' realpath (fs.realpath walks in JS). */
export const realpath = promisify(fs.realpath.native);
export const rename = promisify(fs.rename);
export const stat = promisify(fs.stat);
export const statfs = promisify(fs.statfs);
export const unlink = promisify(fs.unlink);
