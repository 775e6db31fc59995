// At start: remove upload temp files orphaned by a crash or a kill during an upload.
import { lstat, readdir, unlink } from '../util/fsp.ts';
import type { Log } from '../util/logger.ts';
import { joinName as join } from '../util/paths.ts';
import { TEMP_PATTERN } from './tempfile.ts';

/** Bounds on the walk: an upload tree of millions of directories must not stall the start. */
const MAX_DIRS = 10_000;
const MAX_DEPTH = 16;

/** What a sweep removes: names of a pattern, and how its log line calls them. */
export interface Leftovers {
  pattern: RegExp;
  name: string;
}

export const UPLOAD_TEMPS: Leftovers = { pattern: TEMP_PATTERN, name: 'orphaned upload temp file(s)' };

/**
 * A schedule's segment being written, `.<YYYYMMDD>_<HHMMSS>[_<n>].<ext>.part` (docs/schedule.md):
 * one left by a kill or a power cut goes at the start, whether or not a schedule is stored then
 * (the schedule's modules load only once one is).
 */
export const SEGMENT_TEMPS: Leftovers = {
  pattern: /^\.\d{8}_\d{6}(?:_\d+)?\.(?:flac|wav|mp3)\.part$/,
  name: 'segment temp file(s) left by a kill or a power cut',
};

/**
 * Walks `dir` without following links and removes the leftovers older than `before`
 * (a newer one belongs to an upload or a segment running now). Runs in the background; logs what it did.
 */
export async function sweepTempFiles(dir: string, log: Log, what: Leftovers = UPLOAD_TEMPS, before = Date.now()): Promise<number> {
  let removed = 0;
  let visited = 0;
  const walk = async (path: string, depth: number): Promise<void> => {
    if (++visited > MAX_DIRS || depth > MAX_DEPTH) return;
    const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isDirectory()) {
        await walk(join(path, entry.name), depth + 1);
      } else if (entry.isFile() && what.pattern.test(entry.name)) {
        const full = join(path, entry.name);
        const st = await lstat(full).catch(() => undefined);
        if (
          st &&
          st.mtimeMs < before &&
          (await unlink(full).then(
            () => true,
            () => false,
          ))
        )
          removed++;
      }
    }
  };
  await walk(dir, 0);
  if (removed > 0) log.info(`removed ${removed} ${what.name} under ${dir}`);
  return removed;
}
