// The schedule at work (docs/schedule.md, "The recorder"): the stored document, its state
// (off / waiting / recording, and why), and the segment run it starts and stops. Looked at
// every second (tick(), on the file pollers' shared timer: src/schedule/host.ts) and at
// each boundary of a period, on the wall clock: after a jump the windows are re-evaluated
// at the next look. Loaded only once a schedule exists.
import { join } from 'node:path';
import { freeBytes } from '../audio/disk-guard.ts';
import type { Captures } from '../audio/captures.ts';
import type { Log } from '../util/logger.ts';
import { soundStored } from '../native/memory.ts';
import type { Schedule } from './document.ts';
import { FormatBusy, type Segment, SegmentRun } from './segments.ts';
import { readScheduleFile, type Stored } from './store.ts';
import { type Compiled, compile, type MergedWindow, type Moment, momentAt, type Span } from './windows.ts';
import { SCHEDULE_OFF, type ScheduleState, type StateName } from './state.ts';
import { type Zone, zoneNamed } from './zone.ts';

export interface ScheduleDeps {
  /** The running config's values (a reload may change them). */
  file: () => string;
  device: () => string;
  minFreeBytes: () => number;
  /** Below minFreeBytes: makes room if it can (the outbox's uploaded files, docs/outbox.md). */
  reclaim?: () => void;
  baseDir: string;
  recordingsDir: string;
  captures: Captures;
  log: Log;
  synchronized: () => boolean;
  /** The state at every change (the events stream's `schedule`). */
  onState: (state: ScheduleState) => void;
  /** A segment stored (the `segment` event, the audit's recording.end, metrics, retention). */
  onSegment: (segment: ScheduleState['lastSegment'] & object) => void;
}

/** How often the state is looked at (the schedule file's poll, src/schedule/host.ts). */
const LOOK_MS = 1000;
/** A device that failed to open is tried again this often, not every second. */
const RETRY_MS = 5000;
/**
 * After a segment's disk filled (its encoder failed for want of space), no segment starts
 * until this many seconds of the schedule's PCM are free (or minFreeBytes, if more), looked
 * at each second: the next one would meet the same wall at once.
 */
const DISK_FULL_ROOM_SECONDS = 10;
/** A period with less than this left does not start a run. */
const MIN_RUN_MS = 1000;
/**
 * A run starts this long before its period (the capture program takes a moment to give its
 * first sound; more on a small board) and drops what comes before the period's start, so a
 * period's first sample is its start's, within a chunk's timing (docs/schedule.md, "Segments").
 */
export const PREROLL_MS = 2000;
/** How long a run whose period ended may go on taking the sound captured before that end (it arrives a chunk, ~0.2 s, late). */
const TAIL_MS = 1500;

/** The period under way at `now`, or the next one when it begins within PREROLL_MS. */
function periodAt(m: Moment, now: number): Span | null {
  if (m.on) return m.on;
  const next = m.window?.on.find(([s]) => s > now) ?? m.next?.on[0];
  return next && next[0] - now <= PREROLL_MS ? next : null;
}

let UTC: Zone | undefined;

export class ScheduleService {
  private stored: Stored = { kind: 'none' };
  private compiled: Compiled | null = null;
  private run: SegmentRun | null = null;
  private runKey = '';
  private runDevice = '';
  private starting = false;
  private startingDevice = '';
  private stopping: Promise<void> | null = null;
  private retryAt = 0;
  private failure: string | null = null;
  /**
   * The last period whose every sample a run took ([start, end], epoch ms). It is not
   * recorded again while the clock says it still runs: a device faster than the clock (a
   * drifting one, or ALSA's `null`, which gives its samples at once) would otherwise have
   * a second run, and more, add samples beyond the on time × rate.
   */
  private taken: [number, number] | null = null;
  private current: ScheduleState = SCHEDULE_OFF;
  private shown = '';
  private boundary: NodeJS.Timeout | undefined;
  private closed = false;
  private lastSegmentAt: number | null = null;
  /** A segment's disk filled: the free bytes needed before the next one starts (DISK_FULL_ROOM_SECONDS), or 0. */
  private diskFullNeeds = 0;

  constructor(private readonly deps: ScheduleDeps) {}

  /** Reads the file again (a change on disk, a PUT, a DELETE) and applies it now. */
  reload(): void {
    this.stored = readScheduleFile(this.deps.file());
    if (this.stored.kind === 'invalid') this.deps.log.error(`schedule: ${this.stored.error}; not recording on it`);
    this.compiled = this.stored.kind === 'valid' ? compile(this.stored.schedule) : null;
    this.failure = null;
    this.retryAt = 0;
    this.look();
  }

  /** The look of every second (LOOK_MS), on the timer the schedule file's poller shares. */
  tick(): void {
    this.look();
  }

  get schedule(): Schedule | null {
    return this.stored.kind === 'valid' ? this.stored.schedule : null;
  }

  get zone(): Zone | null {
    return this.compiled?.zone ?? null;
  }

  state(): ScheduleState {
    return this.current;
  }

  get recording(): boolean {
    return this.run?.active ?? false;
  }

  /** The device the schedule records from now, or starts a run on (its state says `recording` already), or null. */
  get recordingDevice(): string | null {
    return this.recording ? this.runDevice : this.starting ? this.startingDevice : null;
  }

  /** The zone times are shown in: the schedule's, UTC without one (whole seconds either way). */
  private get shownZone(): Zone {
    return this.compiled?.zone ?? (UTC ??= zoneNamed('UTC')!);
  }

  private set(state: StateName, reason: string | null, window: MergedWindow | null, next: MergedWindow | null): void {
    const zone = this.compiled?.zone;
    const span = (w: MergedWindow | null) => (w && zone ? { start: zone.iso(w.start), end: zone.iso(w.end) } : null);
    // The last segment's time in today's zone: a schedule stored since may name another.
    const last =
      this.current.lastSegment && this.lastSegmentAt !== null
        ? { ...this.current.lastSegment, startedAt: this.shownZone.iso(this.lastSegmentAt) }
        : this.current.lastSegment;
    this.current = { state, reason, window: span(window), next: span(next), lastSegment: last };
    const text = JSON.stringify(this.current);
    if (text === this.shown) return;
    this.shown = text;
    this.deps.onState(this.current);
  }

  /** Compares what should be with what is, and acts. */
  private look(): void {
    if (this.closed) return;
    const stored = this.stored;
    if (stored.kind !== 'valid' || !this.compiled) {
      this.halt();
      this.set('off', stored.kind === 'invalid' ? stored.error : 'no schedule', null, null);
      return;
    }
    const s = stored.schedule;
    if (!s.enabled) {
      this.halt();
      this.set('off', 'disabled', null, null);
      return;
    }
    const now = Date.now();
    const m = momentAt(this.compiled, now);
    this.arm(m, now);
    if (!this.deps.synchronized()) {
      this.halt();
      this.set('waiting', 'clock not synchronized', m.window, m.next);
      return;
    }
    const period = periodAt(m, now);
    // Before a period: waiting, with a run already capturing when the period is near.
    const waiting = !m.window ? 'outside windows' : !m.on ? 'duty cycle pause' : null;
    const shown = (state: StateName, reason: string | null) => this.set(waiting ? 'waiting' : state, waiting ?? reason, m.window, m.next);
    const run = this.run;
    if (run) {
      const end = run.endsAt ?? Number.POSITIVE_INFINITY;
      if (end <= now) {
        // Its period is over, but the sound captured before the end arrives a chunk later: it ends on its sample count.
        if (run.active && now - end < TAIL_MS) {
          shown('recording', null);
          return;
        }
        this.halt();
      } else if (!m.on && run.startsAt !== period?.[0]) this.halt(); // neither in its period nor ahead of it any more (a changed schedule)
    }
    if (!period) {
      this.halt();
      shown('waiting', null);
      return;
    }
    const min = this.deps.minFreeBytes();
    let free = Number.POSITIVE_INFINITY;
    try {
      free = min > 0 ? freeBytes(this.deps.recordingsDir) : free;
      if (free < min && this.deps.reclaim) {
        this.deps.reclaim();
        free = freeBytes(this.deps.recordingsDir);
      }
    } catch (err) {
      this.deps.log.error(`schedule: cannot read free space of ${this.deps.recordingsDir}: ${String(err)}`);
    }
    if (this.run?.diskFull) this.filled();
    const room = this.diskFullNeeds;
    if (room > 0 && !this.recording) {
      try {
        if (free === Number.POSITIVE_INFINITY) free = freeBytes(this.deps.recordingsDir);
        if (free < room && this.deps.reclaim) {
          this.deps.reclaim();
          free = freeBytes(this.deps.recordingsDir);
        }
      } catch (err) {
        this.deps.log.error(`schedule: cannot read free space of ${this.deps.recordingsDir}: ${String(err)}`);
      }
      if (free >= room) {
        this.diskFullNeeds = 0;
        this.deps.log.info(`schedule: ${free} bytes free under ${this.deps.recordingsDir} again: segments may start`);
      }
    }
    if (free < (this.recording ? min / 2 : Math.max(min, this.diskFullNeeds))) {
      if (this.recording) this.deps.log.warn(`schedule: ${free} bytes free under ${this.deps.recordingsDir}: ending the segment`);
      this.halt();
      this.set('waiting', 'disk', m.window, m.next);
      return;
    }
    const r = s.recording;
    const device = r.device ?? this.deps.device();
    const key = JSON.stringify([device, r.fileExtension, r.sampleRate, r.channels, r.segmentSeconds, r.directory]);
    if (this.run && (!this.run.active || this.runKey !== key)) this.halt();
    if (this.run) {
      this.run.until(period[1]);
      shown('recording', null);
      return;
    }
    // A run that ended on its own at the period's end (by sample count) before the clock says so: no sliver of a segment.
    const ending = period[1] - now < MIN_RUN_MS || (this.taken !== null && this.taken[0] === period[0] && this.taken[1] >= period[1]);
    if (this.starting || this.stopping || now < this.retryAt || ending) {
      // `recording` while a run starts, or is to start once the last one has stopped (as
      // below); a schedule just stored gets it too rather than keep the `off` before it.
      const state =
        this.failure || waiting
          ? 'waiting'
          : this.starting || this.stopping || this.current.state === 'off'
            ? 'recording'
            : this.current.state;
      this.set(state, this.failure ?? waiting ?? (state === 'recording' ? null : this.current.reason), m.window, m.next);
      return;
    }
    const pcm = { rate: r.sampleRate, channels: r.channels };
    const busy = SegmentRun.busy(this.deps.captures, device, pcm);
    if (busy) {
      // Known before a start: no `recording` for the moment a start would take to fail.
      this.failure = busy.message;
      this.retryAt = now + LOOK_MS;
      this.set('waiting', this.failure, m.window, m.next);
      return;
    }
    this.starting = true;
    this.startingDevice = device;
    // The state at once, not once the capture gives its first sound (a moment; seconds on a
    // small board): a PUT answers the new schedule's. A start that fails sets `waiting` with
    // its error, which stays the reason while it is tried again, until a start succeeds.
    if (this.failure) this.set('waiting', this.failure, m.window, m.next);
    else shown('recording', null);
    SegmentRun.start(
      {
        captures: this.deps.captures,
        device,
        format: r.fileExtension,
        pcm,
        segmentSeconds: r.segmentSeconds,
        dir: join(this.deps.recordingsDir, r.directory),
        baseDir: this.deps.baseDir,
        log: this.deps.log,
        onSegment: (seg) => this.segment(seg),
        onEnded: (failure, diskFull) => {
          if (diskFull) this.filled();
          else if (failure) {
            this.failure = failure;
            this.retryAt = Date.now() + RETRY_MS;
            this.deps.log.error(`schedule: ${failure}`);
          }
          this.look();
        },
      },
      period[0],
      period[1],
    ).then(
      (run) => {
        this.starting = false;
        if (this.closed) return void run.stop();
        this.run = run;
        this.runKey = key;
        this.runDevice = device;
        this.failure = null;
        this.look();
      },
      (err: unknown) => {
        this.starting = false;
        this.failure = err instanceof Error ? err.message : String(err);
        // A capture in another format: try again as soon as it may have ended.
        this.retryAt = Date.now() + (err instanceof FormatBusy ? LOOK_MS : RETRY_MS);
        if (!(err instanceof FormatBusy)) this.deps.log.error(`schedule: ${this.failure}`);
        this.look();
      },
    );
  }

  /** A segment's disk filled (its run has ended): no segment starts until there is room (DISK_FULL_ROOM_SECONDS). */
  private filled(): void {
    if (this.diskFullNeeds > 0) return;
    const r = this.schedule?.recording;
    const pcmBytes = r ? DISK_FULL_ROOM_SECONDS * r.sampleRate * r.channels * 2 : 0;
    this.diskFullNeeds = Math.max(this.deps.minFreeBytes(), pcmBytes, 1);
    this.deps.log.warn(
      `schedule: the disk under ${this.deps.recordingsDir} is full: no segment starts until ${this.diskFullNeeds} bytes are free`,
    );
  }

  /** A timer at the next boundary (a period's start or end, a window's end, a run's early start), so periods begin on time, not at the next look. */
  private arm(m: Moment, now: number): void {
    // Each period's start, and the moment its run starts ahead of it.
    const starts = [m.window?.on.find(([s]) => s > now)?.[0], m.next?.start].filter((t): t is number => t !== undefined);
    const candidates = [m.on?.[1], m.window?.end, ...starts, ...starts.map((t) => t - PREROLL_MS)].filter(
      (t): t is number => t !== undefined && t > now,
    );
    clearTimeout(this.boundary);
    if (candidates.length === 0) return;
    const wait = Math.min(...candidates) - now;
    if (wait > LOOK_MS) return; // the next look comes first
    this.boundary = setTimeout(() => this.look(), wait);
    this.boundary.unref();
  }

  private segment(seg: Segment): void {
    soundStored(seg.durationSeconds);
    this.lastSegmentAt = seg.startedAt;
    const shown = {
      file: seg.file,
      startedAt: this.shownZone.iso(seg.startedAt),
      durationSeconds: Math.round(seg.durationSeconds * 1000) / 1000,
      sizeBytes: seg.sizeBytes,
    };
    this.current = { ...this.current, lastSegment: shown };
    this.deps.onSegment(shown);
  }

  /** Ends the running segment run (kept, complete); the state is set by the caller. */
  private halt(): void {
    const run = this.run;
    if (!run) return;
    this.run = null;
    if (run.complete && run.startsAt !== null && run.endsAt !== null) this.taken = [run.startsAt, run.endsAt];
    const stopping = run.stop().finally(() => {
      if (this.stopping !== stopping) return;
      this.stopping = null;
      this.look(); // the next period's run may start now, not at the next second's look
    });
    this.stopping = stopping;
  }

  /** Shutdown (SIGTERM) or the schedule removed: the current segment is finalized and kept. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.boundary);
    this.halt();
    await this.stopping;
  }
}
