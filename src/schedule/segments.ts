// Continuous recording into segments (docs/schedule.md, "Segments"): one consumer of the
// device's capture (shared with manual recordings and live streams) cuts the PCM into
// files of exactly segmentSeconds × rate samples, one sox encoder per segment; the next
// encoder starts on the very chunk the last one ends on, so no sample is lost or repeated.
// A segment is written to `.<name>.part` and renamed once its encoder finalized it, through
// the recorder's encoder, batches and keeping (src/audio/recorder.ts).
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, statfsSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { frameBytes, type AudioFormat, type PcmFormat } from '../audio/argv.ts';
import type { Capture, Consumer } from '../audio/capture.ts';
import type { Captures } from '../audio/captures.ts';
import { capturingAt } from '../audio/messages.ts';
import { EncoderBatch, encoderBatchBytes, encoderFailed, fileSeconds, keepEncoded, spawnEncoder } from '../audio/recorder.ts';
import type { Log } from '../util/logger.ts';
import { diskFullText, salvageSegment } from './salvage.ts';

/** A window cannot start while the device captures in another format: the text is the 409's. */
export class FormatBusy extends Error {
  constructor(device: string, f: PcmFormat) {
    super(capturingAt(device, f));
    this.name = 'FormatBusy';
  }
}

export interface Segment {
  /** Relative to baseDir. */
  file: string;
  /** Epoch ms of its first sample (wall clock). */
  startedAt: number;
  durationSeconds: number;
  sizeBytes: number;
}

export interface SegmentOptions {
  captures: Captures;
  device: string;
  format: AudioFormat;
  pcm: PcmFormat;
  segmentSeconds: number;
  /** Absolute: `<recordingsDir>/<directory>`. */
  dir: string;
  baseDir: string;
  log: Log;
  onSegment: (segment: Segment) => void;
  /**
   * The run ended by itself: the capture ended under it (unplugged, killed: the text naming
   * the device), a segment's encoder died (`diskFull`: the disk filled; else its error
   * text), or its period's last sample was taken (null).
   */
  onEnded: (failure: string | null, diskFull: boolean) => void;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `<YYYY-MM-DD>/<YYYYMMDD>_<HHMMSS>` of an instant, in UTC. */
export function segmentName(ms: number): { day: string; base: string } {
  const d = new Date(ms);
  const [y, mo, da] = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
  return {
    day: `${pad(y, 4)}-${pad(mo)}-${pad(da)}`,
    base: `${pad(y, 4)}${pad(mo)}${pad(da)}_${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`,
  };
}

/**
 * The final paths of the segments begun and not yet stored, by every run of this process: a
 * name is never given twice, even after the clock went back (docs/schedule.md, "Segments").
 */
const underWay = new Set<string>();

/**
 * `<base>.<ext>` in `dayDir`, or `<base>_1.<ext>`, `<base>_2.<ext>` … when that name is taken:
 * stored, or a segment being written (a clock stepped back names a segment after one it made).
 */
function freeName(dayDir: string, base: string, ext: string): string {
  for (let n = 0; ; n++) {
    const final = join(dayDir, n === 0 ? `${base}.${ext}` : `${base}_${n}.${ext}`);
    if (!underWay.has(final) && !existsSync(final) && !existsSync(tempOf(final))) return final;
  }
}

const tempOf = (final: string) => join(dirname(final), `.${basename(final)}.part`);

interface Open {
  encoder: ChildProcess;
  done: Promise<void>;
  temp: string;
  final: string;
  /** `<YYYYMMDD>_<HHMMSS>` of its first sample: its name, unless taken. */
  base: string;
  startedAt: number;
  fed: number;
  target: number;
  batch: EncoderBatch;
}

export class SegmentRun {
  private capture: Capture | undefined;
  private current: Open | null = null;
  private readonly finishing = new Set<Promise<void>>();
  private feeding = true;
  /** PCM bytes still to take before the run ends by itself (the end of the "on" period), or Infinity. */
  private budget = Number.POSITIVE_INFINITY;
  private untilMs: number | null = null;
  /** The period's first instant (epoch ms): samples captured before it are dropped, until the run has taken one. */
  private fromMs: number | null = null;
  private taking = false;
  private full = false;
  /** Where the next segment begins (epoch ms) when the last one ended full: its first sample's time by sample count. */
  private nextStart: number | null = null;
  private readonly bytesPerSecond: number;
  private readonly segmentBytes: number;
  private readonly consumer: Consumer;

  private constructor(private readonly opts: SegmentOptions) {
    this.bytesPerSecond = opts.pcm.rate * frameBytes(opts.pcm);
    this.segmentBytes = opts.segmentSeconds * this.bytesPerSecond;
    this.consumer = {
      data: (chunk, _level, at) => this.data(chunk, at),
      end: (failure) => {
        this.endInput();
        void this.stopped().then(() => opts.onEnded(failure, false));
      },
    };
  }

  /**
   * Attaches to the device's capture (started at the schedule's format when none runs).
   * The run keeps the samples from `fromMs` (a period's start: the service starts a run a
   * moment early, so its first sample is the period's, not the capture's) to `untilMs`.
   * Throws FormatBusy or CaptureFailed.
   */
  static async start(opts: SegmentOptions, fromMs: number | null, untilMs: number | null): Promise<SegmentRun> {
    const busy = SegmentRun.busy(opts.captures, opts.device, opts.pcm);
    if (busy) throw busy;
    const differs = (f: PcmFormat) => f.rate !== opts.pcm.rate || f.channels !== opts.pcm.channels;
    const run = new SegmentRun(opts);
    run.fromMs = fromMs;
    run.untilMs = untilMs;
    const capture = await opts.captures.attach(opts.device, opts.pcm, run.consumer);
    if (differs(capture.format)) {
      capture.detach(run.consumer);
      throw new FormatBusy(opts.device, capture.format);
    }
    run.capture = capture;
    return run;
  }

  /** The device captures in another format than `pcm` now: a start would throw this. */
  static busy(captures: Captures, device: string, pcm: PcmFormat): FormatBusy | null {
    const running = captures.get(device);
    if (!running || running.ended || running.stopping) return null;
    const f = running.format;
    return f.rate !== pcm.rate || f.channels !== pcm.channels ? new FormatBusy(device, f) : null;
  }

  /** A segment's encoder failed for want of space: the run took no more sound after it. */
  get diskFull(): boolean {
    return this.full;
  }

  get active(): boolean {
    return this.feeding;
  }

  /** The run took its period's last sample (it did not stop early, nor lose its capture). */
  get complete(): boolean {
    return this.untilMs !== null && this.budget <= 0;
  }

  /** The start of the run's period (epoch ms), or null. */
  get startsAt(): number | null {
    return this.fromMs;
  }

  /** The end of the run's period (epoch ms), or null. */
  get endsAt(): number | null {
    return this.untilMs;
  }

  /** Moves the run's end (a changed schedule, a clock that jumped): sample-exact from the next chunk. */
  until(ms: number | null): void {
    if (ms === this.untilMs) return;
    this.untilMs = ms;
    this.budget = Number.POSITIVE_INFINITY; // counted again from the next chunk
  }

  /** `startOfChunk`: the wall-clock time of the chunk's first sample (the capture's timing). */
  private data(chunk: Buffer, startOfChunk: number): void {
    if (!this.feeding) return;
    let off = 0;
    if (!this.taking && this.fromMs !== null) {
      const fb = frameBytes(this.opts.pcm);
      const early = Math.max(0, Math.round(((this.fromMs - startOfChunk) / 1000) * this.opts.pcm.rate));
      if (early * fb >= chunk.length) return; // all of it before the period's start
      off = early * fb;
    }
    this.taking = true;
    // The run's end in samples, counted from the first sample it takes of this chunk.
    if (this.untilMs !== null && this.budget === Number.POSITIVE_INFINITY) {
      const first = startOfChunk + (off / this.bytesPerSecond) * 1000;
      const frames = Math.max(0, Math.round(((this.untilMs - first) / 1000) * this.opts.pcm.rate));
      this.budget = frames * frameBytes(this.opts.pcm);
    }
    while (off < chunk.length && this.feeding) {
      if (this.budget <= 0) break;
      // Its first sample's time, to the millisecond: a period's start when the run began on it (the trim above is sample-exact).
      if (!this.current) {
        const estimate = Math.round(startOfChunk + (off / this.bytesPerSecond) * 1000);
        // After a segment of this run the next begins where that one's samples end: the
        // capture's timing jitters by a few ms, which named it a second early (…114 after a
        // 15 s segment from …100). A clock that stepped meanwhile (a second or more) names it.
        const follows = this.nextStart !== null && Math.abs(this.nextStart - estimate) < 1000;
        this.current = this.open(follows ? this.nextStart! : estimate);
      }
      const cur = this.current;
      const take = Math.min(chunk.length - off, cur.target - cur.fed, this.budget);
      cur.batch.add(chunk.subarray(off, off + take));
      cur.fed += take;
      off += take;
      this.budget -= take;
      if (cur.fed >= cur.target) {
        this.nextStart = Math.round(cur.startedAt + (cur.fed / this.bytesPerSecond) * 1000);
        this.close(cur);
      }
    }
    if (this.budget <= 0) this.ended();
  }

  private open(startedAt: number): Open {
    const { day, base } = segmentName(startedAt);
    const dayDir = join(this.opts.dir, day);
    mkdirSync(dayDir, { recursive: true, mode: 0o755 });
    const final = this.claim(dayDir, base);
    const temp = tempOf(final);
    const { encoder, exited } = spawnEncoder(this.opts.format, this.opts.pcm, this.opts.pcm, temp);
    const open: Open = {
      encoder,
      temp,
      final,
      base,
      startedAt,
      fed: 0,
      target: this.segmentBytes,
      batch: new EncoderBatch(encoder.stdin!, encoderBatchBytes(this.opts.pcm)),
      done: Promise.resolve(),
    };
    open.done = exited
      .then((r) => {
        const ok = !encoderFailed(r);
        const why = `${r.spawnError ?? `code ${r.code} signal ${r.signal}`}: ${r.stderr.trim()}`;
        const full = !ok && this.noRoom(r.stderr, dayDir);
        // Died while it was being fed: the run ends (the next segment would meet the same wall).
        if (this.current === open) this.died(full ? null : `the segment encoder failed: sox ${why}`);
        return this.keep(open, ok, why, full);
      })
      .finally(() => underWay.delete(open.final));
    return open;
  }

  /** A free final path for a segment named `base` (reserved until it is stored), logged when it had to take a suffix. */
  private claim(dayDir: string, base: string): string {
    const final = freeName(dayDir, base, this.opts.format);
    underWay.add(final);
    const wanted = join(dayDir, `${base}.${this.opts.format}`);
    if (final !== wanted) {
      this.opts.log.warn(`schedule: ${wanted} is taken (stored or being written: the clock went back); this segment is ${basename(final)}`);
    }
    return final;
  }

  /** Ends a segment's input: its encoder finalizes the file, then it is renamed into place. */
  private close(cur: Open): void {
    if (this.current === cur) this.current = null;
    cur.batch.flush();
    cur.encoder.stdin!.end();
    const grace = setTimeout(() => cur.encoder.kill('SIGKILL'), 10_000);
    const done = cur.done.finally(() => {
      clearTimeout(grace);
      this.finishing.delete(done);
    });
    this.finishing.add(done);
  }

  /**
   * The encoder failed for want of space: its stderr says so (wav, flac: "No space left on
   * device"; lame's only says "File write failed"), or the file system has less than a
   * block of sound left.
   */
  private noRoom(stderr: string, dir: string): boolean {
    if (diskFullText(stderr)) return true;
    try {
      const s = statfsSync(dir);
      return s.bavail * s.bsize < 64 * 1024;
    } catch {
      return false;
    }
  }

  /** The current segment's encoder exited before its input ended: the run takes no more sound and ends. */
  private died(failure: string | null): void {
    if (!this.feeding) return;
    this.full = failure === null;
    this.endInput();
    void this.stopped().then(() => this.opts.onEnded(failure, failure === null));
  }

  private async keep(cur: Open, ok: boolean, why: string, full: boolean): Promise<void> {
    const { opts } = this;
    const discard = () => {
      try {
        unlinkSync(cur.temp);
      } catch {
        /* never created */
      }
    };
    if ((!ok && !full) || cur.fed === 0) {
      if (!ok) opts.log.error(`schedule: the segment ${cur.final} could not be written (sox ${why}); discarded`);
      discard();
      return;
    }
    try {
      // The disk filled under it: what reached the disk is made a complete file, and kept.
      let seconds = cur.fed / this.bytesPerSecond;
      const held = ok ? null : await salvageSegment(cur.temp, opts.format, opts.pcm);
      if (!ok && held === null) {
        opts.log.error(`schedule: the disk is full; the segment ${cur.final} holds no whole sound (sox ${why}); discarded`);
        discard();
        return;
      }
      if (typeof held === 'number') seconds = held;
      if (existsSync(cur.final)) {
        // Put there meanwhile by another program: the rename would replace it.
        const taken = cur.final;
        underWay.delete(taken);
        cur.final = freeName(dirname(taken), cur.base, opts.format);
        underWay.add(cur.final);
        opts.log.warn(`schedule: ${taken} appeared while the segment was written; this segment is ${basename(cur.final)}`);
      }
      const sizeBytes = await keepEncoded(cur.temp, cur.final);
      if (held === 'as-is') seconds = (await fileSeconds(cur.final)) ?? seconds;
      if (!ok) {
        opts.log.warn(
          `schedule: the disk is full; the segment ${cur.final} was cut short and kept with the ${seconds.toFixed(3)} s it holds`,
        );
      }
      opts.onSegment({
        file: relative(opts.baseDir, cur.final).split(sep).join('/'),
        startedAt: cur.startedAt,
        durationSeconds: seconds,
        sizeBytes,
      });
    } catch (err) {
      opts.log.error(`schedule: could not keep the segment ${cur.final}: ${String(err)}`);
      discard();
    }
  }

  /** The period's last sample taken: the run ends on its own, and says so once its segment is stored. */
  private ended(): void {
    if (!this.feeding) return;
    this.endInput();
    void this.stopped().then(() => this.opts.onEnded(null, false));
  }

  private endInput(): void {
    if (!this.feeding) return;
    this.feeding = false;
    this.capture?.detach(this.consumer);
    if (this.current) this.close(this.current);
  }

  /** Resolves once every segment begun is stored. */
  private async stopped(): Promise<void> {
    while (this.finishing.size > 0) await Promise.all([...this.finishing]);
  }

  /** Ends the run now: the current segment is finalized and kept (shorter). Resolves once stored. */
  async stop(): Promise<void> {
    this.endInput();
    await this.stopped();
  }
}
