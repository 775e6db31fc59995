// One capture process of one ALSA device: raw PCM from sox or arecord, handed to every
// consumer attached (the recording's encoder, live streams, level meters). Consumers come
// and go without restarting it; it ends when the last one leaves, or when it fails.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync } from 'node:fs';
import { Socket } from 'node:net';
import { nativeAddon } from '../native/addon.ts';
import { errnoName } from '../util/errno.ts';
import { pollersAwake } from '../util/file-stamp.ts';
import { captureStage, frameBytes, type PcmFormat, type RecorderName } from './argv.ts';
import { explainCaptureEnd, notInstalled, refusal } from './messages.ts';
import { LevelMeter, StreamClock, type ChunkLevel } from './pcm.ts';
import { monotonicMs } from '../util/clock.ts';

export interface Consumer {
  /**
   * PCM as captured, whole frames or not, with its figures (the capture's meter went over
   * it once for everyone). Both are valid during the call only: the chunk is the capture's
   * own read buffer, unless the consumer `keeps` chunks (to queue them), which then get one
   * copy of each chunk, shared by all such consumers. Must not block: a slow consumer
   * buffers or leaves. `at`: the wall-clock time (epoch ms) of the chunk's first sample,
   * from its place in the stream (StreamClock, src/audio/pcm.ts).
   */
  data(chunk: Buffer, level: ChunkLevel, at: number): void;
  /** Gets chunks it may keep after the call (one copy per chunk for all that keep). */
  readonly keeps?: boolean;
  /** The capture ended: `failure` null when the agent ended it, else a sentence naming the device. */
  end(failure: string | null): void;
}

/** The capture could not open the device (or refused the format); the text says why. */
export class CaptureFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CaptureFailed';
  }
}

const STDERR_TAIL = 4096;
/**
 * How often, at least, the level of a running capture is reported (the events stream's
 * `level`, ≥ 4 a second): with the chunk that arrives once this much has passed, no timer
 * of its own (a wakeup of the agent costs more than the chunk; measured: 45 wakeups a
 * second cost a recording 4.8 ms of CPU per second of audio). The capture hands on a
 * chunk every 200 ms with sox (argv.ts, soxBuffer) and ~125-140 ms with arecord (its
 * period), so 5-8 reports a second.
 */
export const LEVEL_EVERY_MS = 100;

/** The capture's read buffer: a pipe holds 64 KiB, so one read takes what is there. */
const READ_BUFFER_BYTES = 64 * 1024;

/**
 * A pipe for the program's stdout, read into one reused buffer (net.Socket's `onread`):
 * Node's own stdio pipe is a stream that allocates a buffer and runs the stream machinery
 * for every read, which cost a 5-reads-a-second capture 1.58 ms of CPU a second against
 * 0.64 this way (docs/performance.md, "Audio"). Without the addon, the stream.
 */
function pcmPipe(): { writeFd: number; open(onData: (chunk: Buffer) => void): Socket } | null {
  const addon = nativeAddon();
  if (addon instanceof Error) return null;
  const fds = addon.pipe();
  if (typeof fds === 'number') return null;
  const [readFd, writeFd] = fds;
  const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  return {
    writeFd,
    open: (onData) =>
      new Socket({
        fd: readFd,
        readable: true,
        writable: false,
        onread: {
          buffer,
          callback: (n: number) => {
            onData(buffer.subarray(0, n));
            return true;
          },
        },
      }),
  };
}

export class Capture {
  readonly program: string;
  /** Resolves at the first PCM; rejects with CaptureFailed when the program ends before. */
  readonly opened: Promise<void>;
  /** Resolves once the program has exited. */
  readonly exited: Promise<void>;
  private readonly child: ChildProcess;
  private readonly consumers = new Set<Consumer>();
  private readonly meter = new LevelMeter();
  private levelAt = monotonicMs();
  private stderr = '';
  private stopped = false;
  private over = false;
  private flowing = false;
  /** Bytes handed on since the capture started. */
  bytes = 0;
  /** Each chunk's time (src/schedule/segments.ts cuts periods on it). */
  private readonly clock: StreamClock;

  constructor(
    recorder: RecorderName,
    readonly device: string,
    readonly format: PcmFormat,
    onLevel: (level: { peakDbfs: number; rmsDbfs: number }) => void,
    private readonly onGone: () => void,
  ) {
    const stage = captureStage(recorder, device, format);
    this.program = stage.program;
    this.clock = new StreamClock(format.rate * frameBytes(format));
    const pipe = pcmPipe();
    try {
      this.child = spawn(stage.program, stage.args, { stdio: ['ignore', pipe ? pipe.writeFd : 'pipe', 'pipe'] });
    } finally {
      if (pipe) closeSync(pipe.writeFd); // the child has its copy
    }
    let opened: () => void = () => {};
    let refused: (err: Error) => void = () => {};
    this.opened = new Promise((resolve, reject) => {
      opened = resolve;
      refused = reject;
    });
    this.opened.catch(() => {
      /* read by whoever waits for it; a late failure goes to end() */
    });
    let refusing = false;
    this.child.stderr!.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString('utf8')).slice(-STDERR_TAIL);
      // arecord only warns of a rate it cannot have, and would go on at another one.
      if (!refusing && refusal(device, format, this.stderr)) {
        refusing = true;
        this.child.kill('SIGKILL');
      }
    });
    const onData = (chunk: Buffer) => {
      if (!this.flowing) {
        this.flowing = true;
        opened();
      }
      this.bytes += chunk.length;
      const at = this.clock.chunk(chunk.length, Date.now());
      this.meter.add(chunk);
      const now = monotonicMs();
      if (now - this.levelAt >= LEVEL_EVERY_MS) {
        this.levelAt = now;
        onLevel(this.meter.take());
      }
      const level = this.meter.last;
      let kept: Buffer | undefined;
      for (const c of this.consumers) c.data(c.keeps ? (kept ??= Buffer.from(chunk)) : chunk, level, at);
      // The agent is awake: the users and tokens file pollers look now rather than wake it later.
      pollersAwake();
    };
    // The program's output ends when it exits (or its last copy of the pipe closes): the
    // end below waits for both, as Node's 'close' of a child with a stdout stream does.
    let outputClosed: Promise<void>;
    if (pipe) {
      const socket = pipe.open(onData);
      socket.on('error', () => socket.destroy());
      outputClosed = new Promise((resolve) => socket.once('close', () => resolve()));
    } else {
      this.child.stdout!.on('data', onData);
      outputClosed = Promise.resolve();
    }
    let spawnError: string | null = null;
    this.exited = new Promise((resolve) => {
      const finish = (code: number | null, signal: NodeJS.Signals | null) => {
        if (this.over) return;
        this.over = true;
        const failure = this.stopped
          ? null
          : spawnError === 'ENOENT'
            ? notInstalled(this.program)
            : explainCaptureEnd(this.program, device, format, this.stderr, code, signal);
        if (!this.flowing) refused(new CaptureFailed(failure ?? `the capture of "${device}" was stopped before it began`));
        const consumers = [...this.consumers];
        this.consumers.clear();
        this.onGone();
        for (const c of consumers) c.end(failure);
        resolve();
      };
      this.child.once('error', (err: NodeJS.ErrnoException) => {
        spawnError = errnoName(err);
        // A child that never started emits no 'close' on every Node version.
        if (this.child.pid === undefined) finish(null, null);
      });
      this.child.once('close', (code, signal) => void outputClosed.then(() => finish(code, signal)));
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get ended(): boolean {
    return this.over;
  }

  /** Asked to stop and not yet exited: the device is still held. */
  get stopping(): boolean {
    return this.stopped && !this.over;
  }

  attach(consumer: Consumer): void {
    this.consumers.add(consumer);
  }

  /** Detaches a consumer; the last one leaving stops the capture. */
  detach(consumer: Consumer): void {
    if (!this.consumers.delete(consumer)) return;
    if (this.consumers.size === 0) this.stop();
  }

  get size(): number {
    return this.consumers.size;
  }

  /**
   * Ends the program: SIGTERM, SIGKILL after a second (it writes nothing anyone keeps:
   * the encoders finalize on their own stdin's end). Consumers get end(null).
   */
  stop(): void {
    if (this.stopped || this.over) return;
    this.stopped = true;
    this.child.kill('SIGTERM');
    const kill = setTimeout(() => this.child.kill('SIGKILL'), 1000);
    void this.exited.then(() => clearTimeout(kill));
  }

  /** The capture stalled (stopped, stuck device): ends it at once, as a failure. */
  kill(): void {
    this.child.kill('SIGKILL');
  }
}
