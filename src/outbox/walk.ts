// Walking the outbox's directories for complete files, a few at a time so that a scan of
// 10,000 files never holds the event loop (docs/outbox.md, "What ships").
import { lstat, opendir } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { joinName } from '../util/paths.ts';
import { shipsByName } from './eligible.ts';

/** Calls `found` for every regular file under `dir` that ships by name; links are not followed. */
export async function walk(
  dir: string,
  relOf: (abs: string) => string,
  found: (abs: string, rel: string, st: Stats) => void,
): Promise<void> {
  let handle: Awaited<ReturnType<typeof opendir>>;
  try {
    handle = await opendir(dir, { bufferSize: 64 });
  } catch {
    return; // a directory that is gone or unreadable has nothing to ship now; the next scan looks again
  }
  for await (const entry of handle) {
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
