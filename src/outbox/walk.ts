// Walking the outbox's directories for complete files, one lstat at a time so that a scan
// of 10,000 files never holds the event loop for long (docs/outbox.md, "What ships").
import type { Stats } from 'node:fs';
import { lstat, readdir } from '../util/fsp.ts';
import { joinName } from '../util/paths.ts';
import { shipsByName } from './eligible.ts';

/** Calls `found` for every regular file under `dir` that ships by name; links are not followed. */
export async function walk(
  dir: string,
  relOf: (abs: string) => string,
  found: (abs: string, rel: string, st: Stats) => void,
): Promise<void> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return; // a directory that is gone or unreadable has nothing to ship now; the next scan looks again
  }
  for (const entry of entries) {
    const abs = joinName(dir, entry.name);
    const rel = relOf(abs);
    if (!shipsByName(rel)) continue;
    if (entry.isDirectory()) await walk(abs, relOf, found);
    else if (entry.isFile()) {
      const st = await lstat(abs).catch(() => undefined);
      if (st?.isFile()) found(abs, rel, st);
    }
  }
}
