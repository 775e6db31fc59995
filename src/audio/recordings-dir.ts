// The recordings directory (docs/behaviour.md, "Recordings and the disk"): made at start and
// again whenever a recording needs it, since a client may delete it through the file routes.
import { mkdirSync } from 'node:fs';

/** Makes `dir` (and its parents) when missing, mode 0755 as at start; a no-op when it exists. */
export function makeRecordingsDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
}
