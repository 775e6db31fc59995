// Recordings retention (docs/behaviour.md, "Recordings and the disk"): the oldest recordings
// in recordingsDir are deleted until every limit of `audio.retention` holds. Only the
// agent's own recordings count (its name pattern, regular files); anything else there stays.
import { close, constants as O, open, opendir } from 'node:fs';
import { promisify } from 'node:util';
import { lstat, unlink } from '../util/fsp.ts';
import type { RetentionConfig } from '../config/config.ts';

const openFd = promisify(open) as (path: string, flags: number) => Promise<number>;
const closeFd = promisify(close);
/** A name inside the directory opened: the very one that was listed, whatever was renamed since. */
const inDir = (fd: number, name: string) => `/proc/self/fd/${fd}/${name}`;

/** `recording-<start time, ':' as '-'>.<format>`, as the recorder names them. */
const NAME = /^recording-(\d{4}-\d\d-\d\d)T(\d\d)-(\d\d)-(\d\d(?:\.\d+)?)Z\.(?:flac|wav|mp3)$/;

/** When a recording began, from its name; undefined for a name that is not a recording's. */
export function startedAt(name: string): number | undefined {
  const m = NAME.exec(name);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

export interface Recording {
  name: string;
  startedMs: number;
  bytes: number;
}

/**
 * Which of `recordings` go, oldest first, so that the newest ones left hold every limit:
 * at most maxCount, at most maxBytes together, none older than maxAgeDays.
 */
export function toDelete(recordings: Recording[], limits: RetentionConfig, now: number): Recording[] {
  const newestFirst = [...recordings].sort((a, b) => b.startedMs - a.startedMs || (a.name < b.name ? 1 : -1));
  const oldest = limits.maxAgeDays === null ? -Infinity : now - limits.maxAgeDays * 86_400_000;
  let kept = 0;
  let bytes = 0;
  const out: Recording[] = [];
  for (const r of newestFirst) {
    const keep =
      (limits.maxCount === null || kept < limits.maxCount) &&
      (limits.maxBytes === null || bytes + r.bytes <= limits.maxBytes) &&
      r.startedMs >= oldest;
    // Once one goes, every older one goes too: what is kept is always the newest.
    if (keep && out.length === 0) {
      kept++;
      bytes += r.bytes;
    } else {
      out.push(r);
    }
  }
  return out.reverse();
}

/** The agent's recordings in an open directory: name, start time, size (regular files only). */
async function recordingsIn(dirFd: number): Promise<Recording[]> {
  const names = await new Promise<string[]>((resolve, reject) => {
    opendir(`/proc/self/fd/${dirFd}`, async (err, dir) => {
      if (err) return reject(err);
      const out: string[] = [];
      try {
        for await (const d of dir) if (d.isFile()) out.push(d.name);
        resolve(out);
      } catch (e) {
        reject(e);
      }
    });
  });
  const found: Recording[] = [];
  for (const name of names) {
    const startedMs = startedAt(name);
    if (startedMs === undefined) continue;
    const st = await lstat(inDir(dirFd, name)).catch(() => undefined);
    if (st?.isFile()) found.push({ name, startedMs, bytes: st.size });
  }
  return found;
}

/**
 * Applies the limits to `dir` once; resolves with what was deleted. The directory is opened
 * once and each name unlinked through its descriptor (a link is never followed).
 */
export async function applyRetention(
  dir: string,
  limits: RetentionConfig,
  now = Date.now(),
  /** Another choice of what goes (the outbox's: uploaded recordings first, src/outbox/retention-order.ts). */
  choose: typeof toDelete = toDelete,
): Promise<Recording[]> {
  if (limits.maxCount === null && limits.maxBytes === null && limits.maxAgeDays === null) return [];
  const fd = await openFd(dir, O.O_RDONLY | O.O_DIRECTORY);
  const deleted: Recording[] = [];
  try {
    for (const r of choose(await recordingsIn(fd), limits, now)) {
      try {
        await unlink(inDir(fd, r.name));
        deleted.push(r);
      } catch (err) {
        // Gone meanwhile (a client deleted it): the limit holds all the same.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  } finally {
    await closeFd(fd);
  }
  return deleted;
}
