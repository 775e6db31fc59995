// Recordings retention (docs/behaviour.md, "Recordings and the disk"): the oldest recordings
// under recordingsDir are deleted until every limit of `audio.retention` holds. Only the
// agent's own recordings count (its name pattern, regular files, in recordingsDir or a real
// subdirectory of it); anything else there stays. "Oldest" is the order in which they were
// made (the order record, src/audio/recording-order.ts), never a time in a name: a device
// without a real-time clock names recordings from 1970 until NTP answers.
import { close, constants as O, open, opendir } from 'node:fs';
import { promisify } from 'node:util';
import type { RetentionConfig } from '../config/config.ts';
import { clockPlausible } from '../util/clock.ts';
import { lstat, unlink } from '../util/fsp.ts';
import type { Found, Recording, RecordingOrder } from './recording-order.ts';

export type { Recording } from './recording-order.ts';

const openFd = promisify(open) as (path: string, flags: number) => Promise<number>;
const closeFd = promisify(close);
/** A name inside the directory opened: the very one that was listed, whatever was renamed since. */
const inDir = (fd: number, name: string) => `/proc/self/fd/${fd}/${name}`;

/**
 * `recording-<start time, ':' as '-'>.<format>`, as the recorder names them, or a schedule's
 * segment, `<YYYYMMDD>_<HHMMSS>.<format>` or, its name taken, `<YYYYMMDD>_<HHMMSS>_<n>.<format>`
 * (docs/schedule.md).
 */
const NAME = /^(?:recording-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(?:\.\d+)?Z|\d{8}_\d{6}(?:_\d+)?)\.(?:flac|wav|mp3)$/;

/** Whether a file name is one of the agent's recordings (the time in it is never read). */
export function isRecordingName(name: string): boolean {
  return NAME.test(name);
}

/** How deep retention looks into subdirectories of recordingsDir (schedule segments live in them). */
const MAX_DEPTH = 3;

export interface RetentionPass {
  /** Wall-clock now (ms). */
  now: number;
  /** The wall clock is plausible (src/util/clock.ts): else nothing goes by age or count. */
  plausible: boolean;
  /** The recording whose end started this pass: never deleted. */
  keep?: string;
}

/**
 * Which of `recordings` go, oldest first, so that the newest ones left hold every limit:
 * at most maxCount, at most maxBytes together, none older than maxAgeDays. While the clock
 * is implausible only maxBytes applies; `keep` stays whatever the limits (and counts).
 */
export function toDelete(recordings: Recording[], limits: RetentionConfig, pass: RetentionPass): Recording[] {
  const newestFirst = [...recordings].sort((a, b) => b.seq - a.seq || (a.name < b.name ? 1 : -1));
  const maxCount = pass.plausible ? limits.maxCount : null;
  const oldest = limits.maxAgeDays === null || !pass.plausible ? -Infinity : pass.now - limits.maxAgeDays * 86_400_000;
  let kept = 0;
  let bytes = 0;
  let going = false;
  const out: Recording[] = [];
  for (const r of newestFirst) {
    const fits =
      (maxCount === null || kept < maxCount) &&
      (limits.maxBytes === null || bytes + r.bytes <= limits.maxBytes) &&
      (r.madeAt === null || r.madeAt >= oldest);
    // Once one goes, every older one goes too: what is kept is always the newest.
    if (r.name === pass.keep || (fits && !going)) {
      kept++;
      bytes += r.bytes;
    } else {
      going = true;
      out.push(r);
    }
  }
  return out.reverse();
}

interface Dir {
  fd: number;
  /** Relative to recordingsDir, '' for itself. */
  prefix: string;
}

/** The agent's recordings under an open directory (regular files; real subdirectories, no links). */
async function scan(dir: Dir, depth: number, found: Found[], dirs: Dir[]): Promise<void> {
  const entries = await new Promise<Array<{ name: string; file: boolean; dir: boolean }>>((resolve, reject) => {
    opendir(`/proc/self/fd/${dir.fd}`, async (err, d) => {
      if (err) return reject(err);
      const out: Array<{ name: string; file: boolean; dir: boolean }> = [];
      try {
        for await (const e of d) out.push({ name: e.name, file: e.isFile(), dir: e.isDirectory() });
        resolve(out);
      } catch (e) {
        reject(e);
      }
    });
  });
  for (const e of entries) {
    if (e.file && NAME.test(e.name)) {
      const st = await lstat(inDir(dir.fd, e.name)).catch(() => undefined);
      if (st?.isFile()) found.push({ name: dir.prefix + e.name, bytes: st.size, mtimeMs: st.mtimeMs, dir: dir.fd, base: e.name });
    } else if (e.dir && depth < MAX_DEPTH && !e.name.startsWith('.')) {
      // O_NOFOLLOW: a link swapped in for the directory is not followed out of recordingsDir.
      const fd = await openFd(inDir(dir.fd, e.name), O.O_RDONLY | O.O_DIRECTORY | O.O_NOFOLLOW).catch(() => undefined);
      if (fd === undefined) continue;
      const sub = { fd, prefix: `${dir.prefix}${e.name}/` };
      dirs.push(sub);
      await scan(sub, depth + 1, found, dirs);
    }
  }
}

/**
 * Applies the limits to `dir` once; resolves with what was deleted. Each directory is opened
 * once and each name unlinked through its descriptor (a link is never followed). The order
 * record learns of every recording found; without limits only at a recording's end (`keep`).
 */
export async function applyRetention(
  dir: string,
  limits: RetentionConfig,
  order: RecordingOrder,
  opts: { now?: number; keep?: string; choose?: typeof toDelete } = {},
): Promise<Recording[]> {
  const none = limits.maxCount === null && limits.maxBytes === null && limits.maxAgeDays === null;
  // No limits: nothing to do at start or daily (an idle agent reads nothing), but a
  // recording's end still enters the order record, for when limits are set.
  if (none && opts.keep === undefined) return [];
  const now = opts.now ?? Date.now();
  const top = { fd: await openFd(dir, O.O_RDONLY | O.O_DIRECTORY), prefix: '' };
  const dirs: Dir[] = [top];
  const deleted: Recording[] = [];
  try {
    const found: Found[] = [];
    await scan(top, 0, found, dirs);
    const recordings = order.reconcile(found, now);
    if (none) return [];
    const where = new Map(found.map((f) => [f.name, f]));
    const choose = opts.choose ?? toDelete;
    for (const r of choose(recordings, limits, { now, plausible: clockPlausible(now), keep: opts.keep })) {
      const f = where.get(r.name)!;
      try {
        await unlink(inDir(f.dir, f.base));
        deleted.push(r);
      } catch (err) {
        // Gone meanwhile (a client deleted it): the limit holds all the same.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    if (deleted.length > 0) order.forget(deleted.map((r) => r.name));
  } finally {
    await Promise.all(dirs.map((d) => closeFd(d.fd)));
  }
  return deleted;
}
