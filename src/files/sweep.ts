// At start: remove upload temp files orphaned by a crash or a kill during an upload.
import { lstat, readdir, unlink } from '../util/fsp.ts';
import type { Log } from '../util/logger.ts';
import { joinName as join } from '../util/paths.ts';
import { TEMP_PATTERN } from './tempfile.ts';

/** Bounds on the walk: an upload tree of millions of directories must not stall the start. */
const MAX_DIRS = 10_000;
const MAX_DEPTH = 16;

/**
 * Walks `dir` without following links and removes temp files older than `before`
 * (a newer one belongs to an upload running now). Runs in the background; logs what it did.
 */
export async function sweepTempFiles(dir: string, log: Log, before = Date.now()): Promise<number> {
  let removed = 0;
  let visited = 0;
  const walk = async (path: string, depth: number): Promise<void> => {
    if (++visited > MAX_DIRS || depth > MAX_DEPTH) return;
    const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isDirectory()) {
        await walk(join(path, entry.name), depth + 1);
      } else if (entry.isFile() && TEMP_PATTERN.test(entry.name)) {
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
  if (removed > 0) log.info(`removed ${removed} orphaned upload temp file(s) under ${dir}`);
  return removed;
}
