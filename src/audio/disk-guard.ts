// The disk guard and retention around the recorder (docs/behaviour.md, "Recordings and the
// disk"): a start needs `audio.minFreeBytes` free where recordings go; a running recording
// is ended (kept, playable, stoppedBy "disk") once free space falls below half of it; the
// retention limits are applied at start, after each recording and daily. Both read the
// config at each use, so a reload changes them without a restart.
import { statfsSync } from 'node:fs';
import type { AudioConfig } from '../config/config.ts';
import type { Log } from '../util/logger.ts';
import type { Recorder } from './recorder.ts';
import { makeRecordingsDir } from './recordings-dir.ts';
import { applyRetention, type Recording, type toDelete } from './retention.ts';
import { clockPlausible, monotonicMs } from '../util/clock.ts';
import { joinName } from '../util/paths.ts';
import type { RecordingOrder } from './recording-order.ts';

/** A start refused for want of space (the route answers 507 with both figures). */
export class NotEnoughSpace extends Error {
  constructor(
    readonly freeBytes: number,
    readonly requiredBytes: number,
  ) {
    super(`not enough free space: ${freeBytes} bytes free, ${requiredBytes} required`);
    this.name = 'NotEnoughSpace';
  }
}

/**
 * Bytes an unprivileged writer may still use on the file system holding `dir` (df's
 * "Avail"). Synchronous: statfs(2) of a local file system answers from memory.
 */
export function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

/**
 * How often, at most, free space is looked at while a recording runs (a 48 kHz wav grows
 * ~94 KiB/s): with the chunk of sound that reaches the recording this long after the last
 * look, no timer of its own (a timer woke the agent twice a second during every recording,
 * and a wakeup costs more than the look; see docs/performance.md, "Audio"). A recording
 * that gets no sound does not grow.
 */
export const WATCH_MS = 500;
const DAY_MS = 86_400_000;
const CLOCK_WATCH_MS = 60_000;
/** How often, at most, a look below minFreeBytes tries to make room (each second while a window waits for disk). */
const RECLAIM_MS = 10_000;

export interface GuardOptions {
  recorder: Recorder;
  recordingsDir: string;
  /** The running config's audio section (changes with a reload). */
  audio: () => AudioConfig;
  /** The order the recordings were made in (src/audio/recording-order.ts). */
  order: RecordingOrder;
  /** Where a recording record's `file` is relative to. */
  baseDir: string;
  /** Hears each recording retention deleted (the audit trail's `delete`, reason `retention`). */
  onDeleted: (recording: Recording) => void;
  /** Which recordings retention deletes, when not the oldest (the outbox's preference); read at each pass. */
  choose?: () => typeof toDelete | undefined;
  log: Log;
  /**
   * Free space below minFreeBytes: deletes what may go for space (the outbox's uploaded files,
   * docs/outbox.md) and returns how many; measured again after it.
   */
  reclaim?: (minFree: number) => number;
  /** The first pass waits for it (serve.ts: the outbox on, so the start's deletions say whether they had been uploaded). */
  after?: Promise<unknown>;
}

export interface RecordingsGuard {
  /**
   * Returns when a start may go ahead; throws NotEnoughSpace. Synchronous (statfs(2) of a
   * local file system answers from memory): nothing can slip between this check and the
   * recorder taking the start, so a stop sent right after a start still finds it.
   */
  admit(): void;
  /**
   * Applies the retention limits now (also run at start, after each recording, daily);
   * `keep` (a path under recordingsDir): the recording whose end started it, never deleted.
   */
  retain(keep?: string): Promise<void>;
  /**
   * Below minFreeBytes, makes room with opts.reclaim: at most every 10 s, or `now` (a file just
   * became deletable, a start would be refused).
   */
  reclaim(now?: boolean): void;
  close(): void;
  /** Resolves once the passes begun have ended and the order record is on disk (a clean stop). */
  flush(): Promise<void>;
}

export function guardRecordings(opts: GuardOptions): RecordingsGuard {
  const { recorder, recordingsDir, log } = opts;
  let watching = false;
  let lookedAt = -Infinity;
  let retaining: Promise<void> = (opts.after ?? Promise.resolve()).then(
    () => undefined,
    () => undefined,
  );

  // Recordings made under an implausible clock age from the moment it becomes plausible:
  // while there are any, the clock is looked at every minute (no timer otherwise).
  let clockWatch: NodeJS.Timeout | undefined;
  const watchClock = () => {
    if (opts.order.waiting && !clockWatch) {
      clockWatch = setInterval(() => {
        if (clockPlausible()) void retain();
      }, CLOCK_WATCH_MS);
      clockWatch.unref();
    } else if (!opts.order.waiting && clockWatch) {
      clearInterval(clockWatch);
      clockWatch = undefined;
    }
  };

  let reclaimedAt = Number.NEGATIVE_INFINITY;
  const reclaim = (now = false) => {
    const min = opts.audio().minFreeBytes;
    if (!opts.reclaim || min === 0) return;
    const t = monotonicMs();
    if (!now && t - reclaimedAt < RECLAIM_MS) return;
    reclaimedAt = t;
    try {
      opts.reclaim(min);
    } catch (err) {
      log.error(`disk guard: could not make room under ${recordingsDir}: ${String(err)}`);
    }
  };

  const retain = (keep?: string) => {
    // One pass at a time: a recording that ends during the daily pass waits for it.
    retaining = retaining.then(async () => {
      try {
        for (const r of await applyRetention(recordingsDir, opts.audio().retention, opts.order, { keep, choose: opts.choose?.() }))
          opts.onDeleted(r);
      } catch (err) {
        log.error(`retention: could not apply the limits in ${recordingsDir}: ${String(err)}`);
      }
      watchClock();
      reclaim(true);
    });
    return retaining;
  };

  const check = () => {
    const min = opts.audio().minFreeBytes;
    let free: number;
    try {
      free = freeBytes(recordingsDir);
      if (free < min && opts.reclaim) {
        reclaim();
        free = freeBytes(recordingsDir);
      }
    } catch (err) {
      log.error(`disk guard: cannot read free space of ${recordingsDir}: ${String(err)}`);
      return;
    }
    if (free < min / 2 && recorder.state === 'recording') {
      watching = false;
      log.warn(`disk guard: ${free} bytes free under ${recordingsDir}, below half of ${min}: ending the recording`);
      recorder.stop('disk').catch(() => {
        /* it ended meanwhile */
      });
    }
  };

  const unsubscribeFed = recorder.onFed(() => {
    if (!watching) return;
    const now = monotonicMs();
    if (now - lookedAt < WATCH_MS) return;
    lookedAt = now;
    check();
  });
  const unsubscribe = recorder.onChange((record) => {
    if (record.state === 'recording') {
      watching = true;
      lookedAt = monotonicMs();
    } else {
      watching = false;
      if (record.state === 'finished' && record.file) {
        // Its path under recordingsDir (which lies inside baseDir, config.ts checks).
        const file = joinName(opts.baseDir, record.file);
        void retain(file.startsWith(`${recordingsDir}/`) ? file.slice(recordingsDir.length + 1) : undefined);
      }
    }
  });
  const daily = setInterval(() => void retain(), DAY_MS);
  daily.unref();
  void retain();

  return {
    admit() {
      const min = opts.audio().minFreeBytes;
      if (min === 0) return;
      // Deleted through the file routes: made again, and measured where the recording will go.
      try {
        makeRecordingsDir(recordingsDir);
      } catch {
        return; // the recorder's start fails with the reason (503), as it does with the guard off
      }
      let free = freeBytes(recordingsDir);
      if (free < min && opts.reclaim) {
        reclaim(true);
        free = freeBytes(recordingsDir);
      }
      if (free < min) throw new NotEnoughSpace(free, min);
    },
    retain,
    reclaim,
    close() {
      unsubscribe();
      unsubscribeFed();
      watching = false;
      clearInterval(daily);
      clearInterval(clockWatch);
    },
    async flush() {
      await retaining;
      await opts.order.flush();
    },
  };
}
