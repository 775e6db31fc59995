// The schedule file (docs/schedule.md, "The document"): read and validated, written
// atomically (temp, fsync, rename) under `<scheduleFile>.lock` as the tokens file is, so
// the API and the CLI never interleave; removed under the same lock.
import { readFileSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { withFileLock, withFileLockSync } from '../auth/file-lock.ts';
import { replaceStateFile, syncDir } from '../util/atomic.ts';
import { errnoName } from '../util/errno.ts';
import { parseSchedule, type Schedule, ScheduleInvalid } from './document.ts';

/** What the file holds: nothing, a valid document (as stored, and with defaults), or the reason it is not one. */
export type Stored = { kind: 'none' } | { kind: 'valid'; schedule: Schedule } | { kind: 'invalid'; error: string };

export function readScheduleFile(file: string): Stored {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    return { kind: 'invalid', error: `could not read ${file}: ${errnoName(err)}` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { kind: 'invalid', error: `${file} is not valid JSON: ${(err as Error).message}` };
  }
  try {
    return { kind: 'valid', schedule: parseSchedule(raw) };
  } catch (err) {
    if (err instanceof ScheduleInvalid) return { kind: 'invalid', error: err.message };
    throw err;
  }
}

/** The document as written: what was given, validated first (ScheduleInvalid), pretty-printed. */
function textOf(doc: unknown): string {
  parseSchedule(doc);
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** Stores a document (validated first: a refused one changes nothing). */
export function writeScheduleFile(file: string, doc: unknown): Promise<void> {
  const text = textOf(doc);
  return withFileLock(file, () => replaceStateFile(file, text));
}

export function writeScheduleFileSync(file: string, doc: unknown): void {
  const text = textOf(doc);
  withFileLockSync(file, () => replaceStateFile(file, text));
}

function remove(file: string): boolean {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  syncDir(dirname(file));
  return true;
}

/** Removes the schedule; false when there was none. */
export function removeScheduleFile(file: string): Promise<boolean> {
  return withFileLock(file, () => remove(file));
}

export function removeScheduleFileSync(file: string): boolean {
  return withFileLockSync(file, () => remove(file));
}
