// The recording state machine: idle -> recording -> finished | failed, one at a time.
// Spawns the capture pipeline, keeps the file only when complete, persists the record.
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { joinName } from '../util/paths.ts';
import { capturePlan, type AudioFormat, type RecorderName } from './argv.ts';
import { LENGTH_TOLERANCE, pcmSeconds, soxSeconds } from './length.ts';
import { endedEarly, explainFailure, hung, notInstalled } from './messages.ts';
import { Pipeline, type StageResult } from './pipeline.ts';
import { preflight, RecorderUnavailable } from './preflight.ts';
import { IDLE, loadRecord, saveRecord, type RecordingRecord, type RecordingState } from './record.ts';
import { fixWavHeader } from './wav-header.ts';
import { isoTime } from '../util/time.ts';
import type { Log } from '../util/logger.ts';

export { RecorderUnavailable };

/** A stop asked while nothing records (CONTRACT §11: 409). */
export class NotRecording extends Error {
  constructor() {
    super('no recording is in progress');
    this.name = 'NotRecording';
  }
}

export class RecorderBusy extends Error {
  constructor() {
    super('a recording is already in progress');
    this.name = 'RecorderBusy';
  }
}

export interface RecorderOptions {
  recorder: RecorderName;
  device: string;
  baseDir: string;
  recordingsDir: string;
  /** Where the last record is kept across restarts. */
  stateFile: string;
  log: Log;
  /**
   * How long a start waits, at most, for the device to open, so that a busy or missing
   * device is a refusal rather than a 202 (it usually opens or fails within milliseconds).
   */
  startWaitMs?: number;
  /** How long a stopped program may take to finalize before SIGKILL. */
  stopGraceMs?: number;
  /** Hears how each recording ended (device_agent_recordings_total). */
  onEnded?: (result: 'finished' | 'failed') => void;
}

/**
 * How long past its duration a capture may run before the watchdog kills it: the device
 * may take a moment to open and an encoder to finish, but a program that hangs (SIGSTOP,
 * a stalled device) must not leave the agent "recording" forever.
 */
export function watchdogMarginSeconds(duration: number): number {
  return 5 + duration * 0.05;
}

/** The record lives in the state directory beside the users file, not among the downloads. */
export function recordingStateFile(usersFile: string): string {
  return joinName(dirname(usersFile), 'last-recording.json');
}

const TEMP = /^\.recording-.*\.part$/;

/**
 * arecord stopped by SIGINT/SIGTERM exits 1, silently (-q) or with an EINTR read error;
 * it stopped, it did not fail. Real failures always print why, even with -q. The signal
 * may come from systemd (to the whole cgroup) before the agent's own stop, hence stderr.
 */
function interrupted(r: StageResult): boolean {
  return r.program === 'arecord' && r.code === 1 &&
    (r.stderr.trim() === '' || /Interrupted system call|Aborted by signal/.test(r.stderr));
}

/** sox reports a failed write ("sox FAIL ... No space left on device") and still exits 0. */
function failedQuietly(r: StageResult): boolean {
  return r.program === 'sox' && r.code === 0 && /\bsox FAIL\b/.test(r.stderr);
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try { fsyncSync(fd); } finally { closeSync(fd); }
}

/** Resolves once `path` exists, or when `until` settles. */
async function appears(path: string, until: Promise<unknown>): Promise<void> {
  let over = false;
  void until.then(() => { over = true; });
  while (!over && !existsSync(path)) await new Promise((r) => setTimeout(r, 20));
}

interface Job {
  pipeline: Pipeline;
  ended: Promise<void>;
  /** Set when the watchdog killed the pipeline. */
  hung: boolean;
  /** Set when a client asked to stop it now (audiorecordstop): its length is what was recorded. */
  stopAsked: boolean;
}

export class Recorder {
  private record: RecordingRecord;
  private busy = false;
  private stopping = false;
  private job: Job | undefined;
  /** The start in progress (device check, spawn), and the end of the last recording spawned. */
  private starting: Promise<unknown> = Promise.resolve();
  private ending: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<(record: RecordingRecord) => void>();

  constructor(private opts: RecorderOptions) {
    this.record = loadRecord(opts.stateFile, opts.log);
    // Temp files of a recording the agent did not live to finish are incomplete: remove them.
    for (const name of readdirSync(opts.recordingsDir)) {
      if (TEMP.test(name)) unlinkSync(join(opts.recordingsDir, name));
    }
    if (this.record.state !== 'idle') this.persist();
  }

  /** A config reload: the next recording uses this program and device; a running one goes on. */
  configure(audio: Pick<RecorderOptions, 'recorder' | 'device'>): void {
    this.opts = { ...this.opts, recorder: audio.recorder, device: audio.device };
  }

  get state(): RecordingState {
    return this.record.state;
  }

  status(): RecordingRecord {
    return { ...this.record };
  }

  /**
   * Starts a recording and answers once it runs (or has already ended). Throws
   * RecorderBusy while one runs, RecorderUnavailable when it could not start.
   */
  start(format: AudioFormat, duration: number): Promise<RecordingRecord> {
    if (this.busy) return Promise.reject(new RecorderBusy());
    this.busy = true;
    const begun = this.begin(format, duration);
    this.starting = begun.catch(() => {});
    return begun;
  }

  private async begin(format: AudioFormat, duration: number): Promise<RecordingRecord> {
    const { opts } = this;
    const startedMs = Date.now();
    const started = isoTime(startedMs);
    const name = `recording-${started.replace(/:/g, '-')}.${format}`;
    const final = join(opts.recordingsDir, name);
    const temp = join(opts.recordingsDir, `.${name}.part`);
    const stages = capturePlan(opts.recorder, opts.device, format, duration, temp);
    this.record = { ...IDLE, state: 'recording', fileExtension: format, durationSeconds: duration, startedAt: started };
    try {
      await preflight(stages, format);
      if (this.stopping) throw new RecorderUnavailable('the agent is shutting down');
    } catch (err) {
      this.fail(err instanceof Error ? err.message : String(err));
      throw err;
    }
    this.persist();
    const pipeline = new Pipeline(stages);
    const margin = watchdogMarginSeconds(duration);
    const watchdog = setTimeout(() => {
      job.hung = true;
      opts.log.warn(`recording: ${stages[0]!.program} still running ${margin} s after its ${duration} s: killing it`);
      pipeline.kill();
    }, (duration + margin) * 1000);
    const ended = pipeline.done.then((results) => {
      clearTimeout(watchdog);
      if (job.hung) {
        this.job = undefined;
        this.discard(temp);
        return this.fail(hung(stages[0]!.program, duration, margin));
      }
      return this.finish(results, temp, final, format, startedMs, job.stopAsked ? null : duration);
    }).catch((err: unknown) => {
      // A bug here must not leave the recorder busy forever, nor crash the agent.
      opts.log.error(`recording: ${String((err as Error)?.stack ?? err)}`);
      this.job = undefined;
      this.discard(temp);
      this.fail('internal error while storing the recording');
    });
    const job: Job = { pipeline, ended, hung: false, stopAsked: false };
    this.job = job;
    this.ending = ended;
    // sox and arecord open their output file only once the device is open; an encoder
    // stage creates its file at once, so there the first sound through the pipe counts.
    let timer: NodeJS.Timeout | undefined;
    const over = Promise.race([ended, new Promise<void>((r) => { timer = setTimeout(r, opts.startWaitMs ?? 3000); })]);
    await Promise.race([over, stages.length > 1 ? pipeline.flowing : appears(temp, over)]);
    clearTimeout(timer);
    if (this.record.state === 'failed') throw new RecorderUnavailable(this.record.error ?? 'recording failed');
    return this.status();
  }

  /**
   * Ends the running recording now (audiorecordstop): the program finalizes its file on
   * SIGINT, as at shutdown, and the record gets the length actually recorded. Resolves
   * with the stored record; NotRecording when nothing records.
   */
  async stop(): Promise<RecordingRecord> {
    if (!this.busy) throw new NotRecording();
    await this.starting; // a start still checking the device: stop what it spawned
    if (!this.busy) throw new NotRecording(); // that start failed
    const job = this.job;
    if (job && !job.stopAsked) {
      job.stopAsked = true; // a second SIGINT within a second makes sox abort without finalizing
      job.pipeline.stop(this.opts.stopGraceMs ?? 5000);
    }
    await this.ending;
    return this.status();
  }

  /** Calls `listener` with the record at every state change; returns the unsubscribe. */
  onChange(listener: (record: RecordingRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops a running recording so its file is kept complete; resolves when it is stored. */
  async shutdown(): Promise<void> {
    this.stopping = true;
    if (!this.job) return;
    // A client's stop already signalled it (a second SIGINT would make sox abort): wait for it.
    if (!this.job.stopAsked) this.job.pipeline.stop(this.opts.stopGraceMs ?? 5000);
    await this.job.ended;
  }

  /** `duration`: the length asked, or null when a client stopped it (the file's own length counts). */
  private async finish(results: StageResult[], temp: string, final: string, format: AudioFormat, startedMs: number, duration: number | null): Promise<void> {
    this.job = undefined;
    const bad = results.find((r) => r.spawnError !== null || (r.code !== 0 && !interrupted(r)) || failedQuietly(r));
    if (bad) {
      this.opts.log.error(`recording failed: ${bad.program} ${bad.spawnError ?? `code ${bad.code} signal ${bad.signal}`}: ${bad.stderr.trim()}`);
      const message = bad.spawnError === 'ENOENT'
        ? notInstalled(bad.program)
        : explainFailure(bad.program, this.opts.device, bad.stderr, bad.code, bad.signal);
      this.discard(temp);
      return this.fail(message);
    }
    let sizeBytes: number;
    let recorded = duration;
    try {
      const arecordWav = results.length === 1 && results[0]!.program === 'arecord';
      const dataBytes = arecordWav ? fixWavHeader(temp) : 0;
      if (!this.stopping && duration !== null) {
        const seconds = arecordWav ? pcmSeconds(dataBytes) : await soxSeconds(temp);
        if (seconds !== null && seconds < duration - LENGTH_TOLERANCE) {
          this.opts.log.error(`recording: ${results[0]!.program} ended after ${seconds} s of ${duration} s`);
          this.discard(temp);
          return this.fail(endedEarly(results[0]!.program, seconds, duration));
        }
      }
      syncFile(temp);
      renameSync(temp, final);
      syncFile(dirname(final));
      sizeBytes = statSync(final).size;
      if (duration === null) {
        // Stopped by a client: the length is the file's own (read under its final name,
        // whose extension tells sox an mp3), else the time it ran.
        const seconds = arecordWav ? pcmSeconds(dataBytes) : await soxSeconds(final);
        recorded = Math.round((seconds ?? (Date.now() - startedMs) / 1000) * 1000) / 1000;
      }
    } catch (err) {
      this.discard(temp);
      return this.fail(`could not keep the recording: ${(err as Error).message}`);
    }
    const early = this.stopping && duration !== null
      ? `stopped early after ${((Date.now() - startedMs) / 1000).toFixed(1)} s because the agent shut down`
      : null;
    this.record = {
      ...this.record, state: 'finished', fileExtension: format, durationSeconds: recorded, finishedAt: isoTime(),
      file: relative(this.opts.baseDir, final).split(sep).join('/'), sizeBytes, error: early,
    };
    this.busy = false;
    this.persist();
    this.opts.onEnded?.('finished');
  }

  private fail(message: string): void {
    this.record = { ...this.record, state: 'failed', finishedAt: isoTime(), file: null, sizeBytes: null, error: message };
    this.busy = false;
    this.persist();
    this.opts.onEnded?.('failed');
  }

  private discard(temp: string): void {
    try { unlinkSync(temp); } catch { /* the program never created it */ }
  }

  private persist(): void {
    for (const listener of this.listeners) listener(this.status());
    try {
      saveRecord(this.opts.stateFile, this.record);
    } catch (err) {
      // The record in memory stays right; only a restart would forget it.
      this.opts.log.error(`could not save the recording state to ${this.opts.stateFile}: ${String(err)}`);
    }
  }
}
