// The recording state machine: idle -> recording -> finished | failed, one at a time.
// A recording is one consumer of its device's capture (src/audio/captures.ts): it feeds
// exactly `duration` of PCM to a sox encoder writing a temp file, renamed into place when
// the encoder has finalized it. The record is persisted at every change.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { fileCompleted } from '../util/completed.ts';
import { rename, stat, syncPath } from '../util/fsp.ts';
import { dirname, join, relative, sep } from 'node:path';
import type { Writable } from 'node:stream';
import { joinName } from '../util/paths.ts';
import { errnoName } from '../util/errno.ts';
import { encodeStage, frameBytes, pcmBytes, type AudioFormat, type PcmFormat, type RecorderName } from './argv.ts';
import { CaptureFailed, type Capture, type Consumer } from './capture.ts';
import type { Captures } from './captures.ts';
import { explainFailure, hung, notInstalled } from './messages.ts';
import { LevelMeter } from './pcm.ts';
import { preflight, RecorderUnavailable } from './preflight.ts';
import { makeRecordingsDir } from './recordings-dir.ts';
import { IDLE, loadRecord, saveRecord, type RecordingRecord, type RecordingState, type StoppedBy } from './record.ts';
import { isoTime } from '../util/time.ts';
import type { Log } from '../util/logger.ts';
import { monotonicMs } from '../util/clock.ts';

export { RecorderUnavailable };

/** A stop asked while nothing records (docs/api.md#stopping-a-recording: 409). */
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

/** Who started a recording: the audit trail names them at its start and its end. */
export interface Actor {
  user: string | null;
  credential: string;
  client: string;
}

/** The audit events the recorder writes (src/audit/trail.ts's record, narrowed). */
export type AuditSink = (event: {
  event: string;
  outcome: 'ok' | 'failed';
  user: string | null;
  credential: string;
  client: string;
  [k: string]: unknown;
}) => void;

export interface RecorderOptions {
  recorder: RecorderName;
  device: string;
  baseDir: string;
  recordingsDir: string;
  /** Where the last record is kept across restarts. */
  stateFile: string;
  log: Log;
  captures: Captures;
  /** A flac or mp3 recording ends when its file reaches this (the download limit). */
  maxFileBytes: number;
  /**
   * How long a start waits, at most, for sound from the device, so that a busy or missing
   * device is a refusal rather than a 202 (it usually opens or fails within milliseconds).
   */
  startWaitMs?: number;
  /** How long an encoder may take to finalize after its input ended before SIGKILL. */
  stopGraceMs?: number;
  /**
   * Hears how each recording ended (metrics; the retention sweep): called once per
   * recording, after its record is stored, with that record.
   */
  onEnded?: (result: 'finished' | 'failed', record: RecordingRecord) => void;
  audit?: AuditSink;
}

export interface StartRequest {
  format: AudioFormat;
  duration: number;
  /** Default: audio.device. */
  device?: string;
  sampleRate: number;
  channels: number;
  who?: Actor;
}

/**
 * How long past its duration a recording may run before the watchdog ends it: the device
 * may take a moment to open and the encoder to finish, but a capture that hangs (SIGSTOP,
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
const STDERR_TAIL = 4096;
/**
 * The encoder gets the recording's sound in batches of about a second (128 KiB at most),
 * not chunk by chunk: nobody waits for a file being written, and each write woke the
 * encoder (and cost the agent a write) 5-8 times a second (see docs/performance.md,
 * "Audio"). What the agent holds counts towards the size checks.
 */
export function encoderBatchBytes(input: PcmFormat): number {
  return Math.min(input.rate * frameBytes(input), 128 * 1024);
}

/**
 * Sound for an encoder, gathered into batches (encoderBatchBytes) and written one batch at
 * a time without waiting (a recording's encoder and a schedule's segment's,
 * src/schedule/segments.ts). Copies each chunk once: the capture's chunk is its read
 * buffer, valid during the call only. A batch has room for itself and one more read. The
 * buffer of a batch the encoder's pipe has taken whole is filled again (`spare`): a new
 * one a second would wait for a collection to be freed.
 */
export class EncoderBatch {
  private held: Buffer | null = null;
  /** A batch's buffer the encoder's pipe has taken, to fill again. */
  private spare: Buffer | null = null;
  /** How much sound is held, not yet written. */
  bytes = 0;

  constructor(
    private readonly stdin: Writable,
    readonly size: number,
  ) {}

  /** Holds `part`, and writes the batch once it is full. */
  add(part: Buffer): void {
    if (!this.held || this.bytes + part.length > this.held.length) {
      const size = Math.max(this.size + 64 * 1024, this.bytes + part.length);
      const next = this.spare && this.spare.length >= size ? this.spare : Buffer.allocUnsafe(size);
      this.spare = null;
      this.held?.copy(next, 0, 0, this.bytes);
      this.held = next;
    }
    part.copy(this.held, this.bytes);
    this.bytes += part.length;
    if (this.bytes >= this.size) this.flush();
  }

  /** Writes the sound held (one write, without waiting for it). */
  flush(): void {
    if (this.bytes === 0) return;
    const buffer = this.held!;
    this.held = null;
    const batch = buffer.subarray(0, this.bytes);
    this.bytes = 0;
    this.stdin.write(batch, (err) => {
      if (!err) this.spare = buffer; // written: the pipe holds its own copy
    });
  }
}

/** How often, at most, a flac/mp3 file's size is compared with maxFileBytes (on a chunk's arrival: no timer of its own). */
const SIZE_CHECK_MS = 100;

/**
 * The most a second of audio can add to an encoded file: flac never writes more than the
 * PCM itself (a frame the encoder cannot shrink is stored verbatim, behind a header of a
 * few bytes per 4096 samples: 5 % covers it), and mp3 never more than 320 kbit/s, the
 * format's ceiling.
 */
export function maxEncodedBytesPerSecond(format: AudioFormat, out: PcmFormat): number {
  return format === 'mp3' ? 40_000 : out.rate * frameBytes(out) * 1.05;
}

/**
 * Input the encoder may have taken but not yet written, besides what waits in its stdin:
 * the pipe (64 KiB), sox's and the encoder's blocks, and the file's headers; counted as
 * bytes of input, plus a second of sound.
 */
const ENCODER_HOLDS_BYTES = 256 * 1024;

/**
 * How much more input the file can take before a size check could end the recording, in
 * bytes of the capture's PCM (0: check at the next chunk). After a check found `size`
 * bytes: the file grows at most by maxEncodedBytesPerSecond a second of input, from the
 * input it had taken (what it holds counts as not yet written), and the recording ends
 * once size + half a second of its average rate + 32 KiB reach the limit. So the checks
 * (a stat each, 5 a second) wait until the limit is within reach: none in the first
 * ~8 minutes of a mono 48 kHz flac under the 50 MiB default.
 */
export function uncheckedInput(
  size: number,
  fedBytes: number,
  pending: number,
  input: PcmFormat,
  bound: number,
  maxFileBytes: number,
): number {
  const perSecondIn = input.rate * frameBytes(input);
  const seconds = fedBytes / perSecondIn;
  if (seconds <= 0) return 0;
  // At any later point (seconds' >= seconds) the average rate is size'/seconds', so the
  // ending condition size' (1 + 1/(2 seconds')) + 32 KiB >= max is not met while size'
  // stays under this.
  const ceiling = (maxFileBytes - 32 * 1024) / (1 + 1 / (2 * seconds));
  const held = (pending + ENCODER_HOLDS_BYTES) / perSecondIn + 1;
  const more = (ceiling - size) / bound - held;
  return more > 0 ? Math.floor(more * perSecondIn) : 0;
}

/** What sox reads from the file's header (`sox --i -D`), or null when sox cannot tell. */
export function fileSeconds(file: string): Promise<number | null> {
  return new Promise((resolve) => {
    execFile('sox', ['--i', '-D', file], { timeout: 10_000 }, (err, stdout) => {
      const seconds = Number(stdout.trim());
      resolve(err || !Number.isFinite(seconds) ? null : seconds);
    });
  });
}

/** How an encoder ended: its exit, or the error that kept it from starting, and its stderr's tail. */
export interface EncoderExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  spawnError: string | null;
  stderr: string;
}

/**
 * Starts sox encoding the PCM written to its stdin into `temp` (a recording's, a
 * segment's): it finalizes the file when its input ends; `exited` resolves once it is gone.
 */
export function spawnEncoder(
  format: AudioFormat,
  input: PcmFormat,
  out: PcmFormat,
  temp: string,
): { encoder: ChildProcess; exited: Promise<EncoderExit> } {
  const stage = encodeStage(format, input, out, temp);
  const encoder = spawn(stage.program, stage.args, { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  encoder.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString('utf8')).slice(-STDERR_TAIL);
  });
  encoder.stdin!.on('error', () => {
    /* EPIPE: the encoder died; its exit says why */
  });
  const exited = new Promise<EncoderExit>((resolve) => {
    let spawnError: string | null = null;
    let done = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (done) return;
      done = true;
      resolve({ code, signal, spawnError, stderr });
    };
    encoder.once('error', (err: NodeJS.ErrnoException) => {
      spawnError = errnoName(err);
      if (encoder.pid === undefined) finish(null, null);
    });
    encoder.once('close', finish);
  });
  return { encoder, exited };
}

/** The encoder did not write a whole file; sox reports a failed write ("sox FAIL ... No space left on device") and may still exit 0. */
export function encoderFailed(r: EncoderExit): boolean {
  return r.spawnError !== null || r.code !== 0 || /\bsox FAIL\b/.test(r.stderr);
}

/**
 * Puts a file its encoder finalized under its final name, durably (the file, then the
 * rename), and tells the outbox (src/util/completed.ts); resolves with its size. On the
 * thread pool: an fsync took ~45 ms here and takes far longer on an SD card, and on the
 * event loop it held up every request and the capture's reading (a pipe holds 0.34 s of
 * 48 kHz stereo) once per segment.
 */
export async function keepEncoded(temp: string, final: string): Promise<number> {
  await syncPath(temp);
  await rename(temp, final);
  await syncPath(dirname(final));
  const size = (await stat(final)).size;
  fileCompleted(final);
  return size;
}

/** One running recording: the consumer of the capture, the encoder, and how it ends. */
interface Job {
  encoder: ChildProcess;
  consumer: Consumer;
  capture: Capture | undefined;
  /** The encoder has exited: resolves with its exit and stderr. */
  encoded: Promise<EncoderExit>;
  /** Resolves when the record is stored. */
  ended: Promise<void>;
  input: PcmFormat;
  fed: number;
  /** When the file's size was last compared with maxFileBytes. */
  sizeAt: number;
  /** No size check is needed before this much input has been fed (uncheckedInput), under this limit. */
  checkFrom: number;
  checkedLimit: number;
  /** maxEncodedBytesPerSecond of the recording's format. */
  bound: number;
  /** Sound not yet written to the encoder. */
  batch: EncoderBatch;
  target: number;
  meter: LevelMeter;
  stoppedBy: StoppedBy | null;
  /** The capture ended under the recording (unplugged, killed): the text naming the device. */
  failure: string | null;
  hung: boolean;
  feeding: boolean;
  /** The start was refused (the device did not open): the start itself stored the record. */
  aborted: boolean;
}

export class Recorder {
  private record: RecordingRecord;
  private busy = false;
  private stopping = false;
  private job: Job | undefined;
  /** The start in progress (device check, spawn). */
  private starting: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<(record: RecordingRecord) => void>();
  private readonly fedListeners = new Set<() => void>();

  constructor(private opts: RecorderOptions) {
    this.record = loadRecord(opts.stateFile, opts.log);
    // Temp files of a recording the agent did not live to finish are incomplete: remove them.
    for (const name of readdirSync(opts.recordingsDir)) {
      if (TEMP.test(name)) unlinkSync(join(opts.recordingsDir, name));
    }
    if (this.record.state !== 'idle') this.persist();
  }

  /** A config reload: the next recording uses this program, device and size limit; a running one goes on. */
  configure(audio: Pick<RecorderOptions, 'recorder' | 'device'> & { maxFileBytes?: number }): void {
    this.opts = {
      ...this.opts,
      recorder: audio.recorder,
      device: audio.device,
      maxFileBytes: audio.maxFileBytes ?? this.opts.maxFileBytes,
    };
  }

  get state(): RecordingState {
    return this.record.state;
  }

  /** The device the running recording captures from, if one runs. */
  get device(): string | null {
    return this.busy ? this.record.device : null;
  }

  get configuredDevice(): string {
    return this.opts.device;
  }

  status(): RecordingRecord {
    return { ...this.record };
  }

  /**
   * Starts a recording and answers once sound flows (or it has already ended). Throws
   * RecorderBusy while one runs, RecorderUnavailable when it could not start.
   */
  start(req: StartRequest): Promise<RecordingRecord> {
    if (this.busy) return Promise.reject(new RecorderBusy());
    this.busy = true;
    const begun = this.begin(req);
    this.starting = begun.catch(() => {});
    return begun;
  }

  private async begin(req: StartRequest): Promise<RecordingRecord> {
    const { opts } = this;
    const device = req.device ?? opts.device;
    const who = req.who ?? { user: null, credential: 'none', client: 'local' };
    const startedMs = Date.now();
    const started = isoTime(startedMs);
    const name = `recording-${started.replace(/:/g, '-')}.${req.format}`;
    const final = join(opts.recordingsDir, name);
    const temp = join(opts.recordingsDir, `.${name}.part`);
    const out: PcmFormat = { rate: req.sampleRate, channels: req.channels };
    this.record = {
      ...IDLE,
      state: 'recording',
      fileExtension: req.format,
      durationSeconds: req.duration,
      startedAt: started,
      device,
      sampleRate: out.rate,
      channels: out.channels,
    };
    const refuse = (message: string): never => {
      this.fail(message);
      opts.audit?.({ event: 'recording.start', outcome: 'failed', ...who, device, reason: message });
      throw new RecorderUnavailable(message);
    };
    try {
      await preflight(
        [
          { program: opts.recorder, args: [] },
          { program: 'sox', args: [] },
        ],
        req.format,
      );
      if (this.stopping) throw new RecorderUnavailable('the agent is shutting down');
    } catch (err) {
      return refuse(err instanceof Error ? err.message : String(err));
    }
    try {
      makeRecordingsDir(opts.recordingsDir);
    } catch (err) {
      return refuse(`cannot create the recordings directory ${opts.recordingsDir}: ${errnoName(err)}`);
    }
    this.persist();
    // A capture already running on the device (a live stream) keeps its format; the encoder converts.
    const running = opts.captures.get(device);
    const input = running && !running.ended && !running.stopping ? running.format : out;
    const job = this.spawnJob(req, input, out, temp);
    this.job = job;
    job.ended = job.encoded
      .then((result) => this.finish(job, result, temp, final, req, who))
      .catch((err: unknown) => {
        // A bug here must not leave the recorder busy forever, nor crash the agent.
        opts.log.error(`recording: ${String((err as Error)?.stack ?? err)}`);
        this.job = undefined;
        this.discard(temp);
        this.fail('internal error while storing the recording');
      });
    const margin = watchdogMarginSeconds(req.duration);
    const watchdog = setTimeout(
      () => {
        job.hung = true;
        opts.log.warn(`recording: no end ${margin} s after its ${req.duration} s: the capture of "${device}" stalled; killing it`);
        job.capture?.kill();
        this.endInput(job);
      },
      (req.duration + margin) * 1000,
    );
    void job.ended.finally(() => {
      clearTimeout(watchdog);
    });

    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<'late'>((r) => {
      timer = setTimeout(() => r('late'), opts.startWaitMs ?? 3000);
    });
    const attached = opts.captures.attach(device, out, job.consumer).then((capture) => {
      job.capture = capture;
      // A stop or shutdown that came while the device opened.
      if (!job.feeding) capture.detach(job.consumer);
      return 'open' as const;
    });
    let outcome: 'open' | 'late';
    try {
      outcome = await Promise.race([attached, waited]);
    } catch (err) {
      clearTimeout(timer);
      job.feeding = false;
      job.aborted = true;
      job.encoder.kill('SIGKILL');
      await job.encoded;
      this.job = undefined;
      this.discard(temp);
      return refuse(err instanceof CaptureFailed ? err.message : String(err));
    }
    clearTimeout(timer);
    if (outcome === 'late') {
      // Still opening: the answer is 202; a failure after this shows in the record.
      attached.catch((err: unknown) => {
        job.failure = err instanceof Error ? err.message : String(err);
        this.endInput(job);
      });
    }
    opts.audit?.({
      event: 'recording.start',
      outcome: 'ok',
      ...who,
      device,
      file: relative(opts.baseDir, final).split(sep).join('/'),
      format: req.format,
      duration: req.duration,
      sampleRate: out.rate,
      channels: out.channels,
    });
    return this.status();
  }

  private spawnJob(req: StartRequest, input: PcmFormat, out: PcmFormat, temp: string): Job {
    const { encoder, exited: encoded } = spawnEncoder(req.format, input, out, temp);
    const job: Job = {
      encoder,
      encoded,
      ended: Promise.resolve(),
      capture: undefined,
      input,
      fed: 0,
      sizeAt: -Infinity,
      checkFrom: 0,
      checkedLimit: 0,
      bound: maxEncodedBytesPerSecond(req.format, out),
      batch: new EncoderBatch(encoder.stdin!, encoderBatchBytes(input)),
      target: pcmBytes(input, req.duration),
      meter: new LevelMeter(),
      stoppedBy: null,
      failure: null,
      hung: false,
      feeding: true,
      aborted: false,
      consumer: {
        data: (chunk, level) => {
          if (!job.feeding) return;
          const take = Math.min(chunk.length, job.target - job.fed);
          const part = take === chunk.length ? chunk : chunk.subarray(0, take);
          job.fed += take;
          // The capture measured the chunk; only the last, cut one is gone over again.
          if (part === chunk) job.meter.absorb(level);
          else job.meter.add(part);
          // Never waits for the encoder: the capture feeds everyone at its own pace.
          job.batch.add(part);
          for (const listener of this.fedListeners) listener();
          if (job.fed >= job.target) return this.endInput(job, 'duration');
          if (
            req.format !== 'wav' &&
            (job.fed >= job.checkFrom || job.checkedLimit !== this.opts.maxFileBytes) &&
            monotonicMs() - job.sizeAt >= SIZE_CHECK_MS
          ) {
            job.sizeAt = monotonicMs();
            this.checkSize(job, temp);
          }
        },
        end: (failure) => {
          if (failure !== null && job.feeding) job.failure = failure;
          this.endInput(job, failure === null ? 'shutdown' : undefined);
        },
      },
    };
    return job;
  }

  /** Stops feeding the encoder: it finalizes the file on its input's end. */
  private endInput(job: Job, by?: StoppedBy): void {
    if (!job.feeding) return;
    job.feeding = false;
    job.stoppedBy = by ?? null;
    job.capture?.detach(job.consumer);
    job.batch.flush();
    job.encoder.stdin!.end();
    const grace = setTimeout(() => job.encoder.kill('SIGKILL'), this.opts.stopGraceMs ?? 5000);
    void job.encoded.then(() => clearTimeout(grace));
  }

  /**
   * A flac or mp3 file nearing maxFileBytes ends: the agent holds up to a batch for the
   * encoder, and the encoder up to a block and its trailer, so it stops while the held
   * sound and half a second at the file's rate so far, and 32 KiB, still fit
   * (test/audio-live.test.ts: a 96 kHz stereo flac ends under the limit).
   */
  private checkSize(job: Job, temp: string): void {
    if (!job.feeding) return;
    let size: number;
    try {
      size = statSync(temp).size;
    } catch {
      return; // not created yet
    }
    const perSecondIn = job.input.rate * frameBytes(job.input);
    const seconds = job.fed / perSecondIn;
    const perSecond = seconds > 0 ? size / seconds : 0;
    // What the agent still holds for the encoder becomes file too.
    const held = (job.batch.bytes / perSecondIn) * perSecond;
    if (size + held + perSecond / 2 + 32 * 1024 >= this.opts.maxFileBytes) {
      this.endInput(job, 'size');
      return;
    }
    job.checkedLimit = this.opts.maxFileBytes;
    const pending = job.batch.bytes + job.encoder.stdin!.writableLength;
    job.checkFrom = job.fed + uncheckedInput(size, job.fed, pending, job.input, job.bound, this.opts.maxFileBytes);
  }

  /**
   * Ends the running recording now: audiorecordstop ('request'), the disk guard
   * ('disk'). The encoder finalizes its file, and the record gets the length actually
   * recorded. Resolves with the stored record; NotRecording when nothing records.
   */
  async stop(by: StoppedBy = 'request'): Promise<RecordingRecord> {
    if (!this.busy) throw new NotRecording();
    await this.starting; // a start still opening the device: stop what it began
    if (!this.busy) throw new NotRecording(); // that start failed
    const job = this.job;
    if (job) {
      this.endInput(job, by);
      await job.ended;
    }
    return this.status();
  }

  /** Calls `listener` with the record at every state change; returns the unsubscribe. */
  onChange(listener: (record: RecordingRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Calls `listener` each time a chunk of sound has gone to the running recording's
   * encoder (5-8 times a second): work that must follow a recording as it grows (the
   * disk guard) rides on it instead of waking the agent with a timer. Returns the
   * unsubscribe.
   */
  onFed(listener: () => void): () => void {
    this.fedListeners.add(listener);
    return () => this.fedListeners.delete(listener);
  }

  /** Stops a running recording so its file is kept complete; resolves when it is stored. */
  async shutdown(): Promise<void> {
    this.stopping = true;
    await this.starting;
    const job = this.job;
    if (!job) return;
    this.endInput(job, 'shutdown');
    await job.ended;
  }

  private async finish(
    job: Job,
    result: Awaited<Job['encoded']>,
    temp: string,
    final: string,
    req: StartRequest,
    who: Actor,
  ): Promise<void> {
    if (job.aborted) return;
    this.job = undefined;
    const { opts } = this;
    const device = this.record.device ?? opts.device;
    const end = (record: RecordingRecord) => {
      opts.audit?.({
        event: 'recording.end',
        outcome: record.state === 'finished' ? 'ok' : 'failed',
        ...who,
        device,
        file: record.file,
        bytes: record.sizeBytes,
        stoppedBy: record.stoppedBy,
        ...(record.error ? { reason: record.error } : {}),
      });
    };
    if (job.hung) {
      this.discard(temp);
      this.fail(hung(job.capture?.program ?? opts.recorder, req.duration, watchdogMarginSeconds(req.duration)));
      return end(this.record);
    }
    if (encoderFailed(result)) {
      opts.log.error(
        `recording failed: sox encoder ${result.spawnError ?? `code ${result.code} signal ${result.signal}`}: ${result.stderr.trim()}`,
      );
      this.discard(temp);
      this.fail(
        result.spawnError === 'ENOENT' ? notInstalled('sox') : explainFailure('sox', device, result.stderr, result.code, result.signal),
      );
      return end(this.record);
    }
    let sizeBytes: number;
    try {
      if (job.fed === 0) throw new Error(job.failure ?? 'no sound came from the device');
      sizeBytes = await keepEncoded(temp, final);
    } catch (err) {
      this.discard(temp);
      this.fail(job.failure ?? `could not keep the recording: ${(err as Error).message}`);
      return end(this.record);
    }
    const stoppedBy = job.stoppedBy ?? (job.failure ? null : 'duration');
    // Ended early: the file's own length (an mp3 is padded by its encoder), else the PCM fed.
    const own = stoppedBy === 'duration' ? null : await fileSeconds(final);
    const recorded = Math.round((own ?? job.fed / (job.input.rate * frameBytes(job.input))) * 1000) / 1000;
    const early = stoppedBy === 'shutdown' ? `stopped early after ${recorded.toFixed(1)} s because the agent shut down` : null;
    this.record = {
      ...this.record,
      state: job.failure ? 'failed' : 'finished',
      durationSeconds: stoppedBy === 'duration' ? req.duration : recorded,
      finishedAt: isoTime(),
      file: relative(opts.baseDir, final).split(sep).join('/'),
      sizeBytes,
      // The capture ended under the recording: what was recorded is kept, and the record says why it is short.
      error: job.failure ? `${job.failure}; the ${recorded} s recorded so far were kept` : early,
      peakDbfs: job.meter.take().peakDbfs,
      stoppedBy,
    };
    if (job.failure) opts.log.error(`recording: ${job.failure} after ${recorded} s`);
    this.busy = false;
    this.persist();
    opts.onEnded?.(this.record.state === 'finished' ? 'finished' : 'failed', this.status());
    end(this.record);
  }

  private fail(message: string): void {
    this.record = { ...this.record, state: 'failed', finishedAt: isoTime(), file: null, sizeBytes: null, error: message };
    this.busy = false;
    this.persist();
    this.opts.onEnded?.('failed', this.status());
  }

  private discard(temp: string): void {
    try {
      unlinkSync(temp);
    } catch {
      /* the encoder never created it */
    }
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
