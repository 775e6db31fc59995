// Live audio (GET /api/v1/audio/live): each stream is one more consumer of its device's
// capture. wav is the PCM itself behind a header of unknown length; flac and mp3 go
// through a sox encoder of their own. A client that stops reading is dropped, never waited
// for: the capture (and a recording on it) goes on at the device's pace.
import { spawn, type ChildProcess } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { encodeStage, type AudioFormat, type PcmFormat } from './argv.ts';
import type { Consumer } from './capture.ts';
import type { Captures } from './captures.ts';
import { streamingWavHeader } from './pcm.ts';
import { Slots, type SlotRefusal } from '../util/slots.ts';

export const LIVE_LIMITS = {
  /** Open live streams at most; the next one is 503. */
  maxStreams: 4,
  /** Open live streams of one user at most, all their tokens and sessions (docs/api.md, "Stream slots"). */
  maxStreamsPerUser: 2,
  /** What may wait for a client (or its encoder) before it counts as not reading: ~2.7 s of 48 kHz stereo. */
  maxBufferedBytes: 512 * 1024,
  /** How often a stream's credential is checked (revoked, expired). */
  checkMs: 2_000,
};

export const CONTENT_TYPES: Record<AudioFormat, string> = { wav: 'audio/wav', flac: 'audio/flac', mp3: 'audio/mpeg' };

/** The headers of a live stream's answer. */
export function liveHeaders(format: AudioFormat): Record<string, string> {
  return {
    'Content-Type': CONTENT_TYPES[format],
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'X-Accel-Buffering': 'no', // a reverse proxy passes the sound on at once
  };
}

/** Whose stream: the user (their id), its credential's expiry, and whether it still holds. */
export interface LiveOwner {
  user: string;
  expiresAtMs: number;
  valid: () => boolean;
}

interface Stream {
  end(): void;
}

export class LiveStreams {
  private readonly streams = new Set<Stream>();
  /** Places taken, counting streams still opening their device. */
  private readonly slots: Slots;
  private closed = false;

  constructor(
    private readonly captures: Captures,
    private readonly limits = LIVE_LIMITS,
  ) {
    this.slots = new Slots(limits.maxStreams, limits.maxStreamsPerUser);
  }

  get size(): number {
    return this.streams.size;
  }

  /** Why another stream of `user` may not open now (503), or null. */
  refusal(user: string): SlotRefusal | null {
    return this.slots.refusal(user);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Streams the device's input to `res` until the client leaves, its credential ends, the
   * capture ends or the agent stops. Resolves once the stream runs; rejects (nothing sent
   * yet) when the device cannot be opened.
   */
  async open(res: ServerResponse, device: string, format: AudioFormat, fallback: PcmFormat, owner: LiveOwner): Promise<void> {
    const release = this.slots.take(owner.user);
    let ready = false;
    let over = false;
    const pending: Buffer[] = [];
    let encoder: ChildProcess | undefined;
    let timer: NodeJS.Timeout | undefined;
    let unhook = () => {};
    const stream: Stream = { end: () => finish(true) };
    const finish = (graceful: boolean) => {
      if (over) return;
      over = true;
      clearInterval(timer);
      unhook();
      this.streams.delete(stream);
      release();
      this.captures.get(device)?.detach(consumer);
      encoder?.stdin?.destroy();
      encoder?.kill('SIGKILL');
      if (graceful && !res.destroyed) res.end();
      else res.destroy();
    };
    /** The client (or its encoder) holds too much unread: it is not reading. */
    const tooSlow = (w: { writableLength: number }) => w.writableLength > this.limits.maxBufferedBytes;
    const send = (chunk: Buffer) => {
      if (encoder) {
        if (tooSlow(encoder.stdin!) || tooSlow(res)) return finish(false);
        encoder.stdin!.write(chunk);
      } else {
        if (tooSlow(res)) return finish(false);
        res.write(chunk);
      }
    };
    const consumer: Consumer = {
      // A write to the client or its encoder may queue the chunk: the capture's copy of it.
      keeps: true,
      data: (chunk) => {
        if (over) return;
        if (ready) send(chunk);
        else pending.push(chunk);
      },
      end: () => finish(true),
    };
    let capture;
    try {
      capture = await this.captures.attach(device, fallback, consumer);
    } catch (err) {
      release();
      over = true;
      throw err;
    }
    if (this.closed || res.destroyed) {
      finish(false);
      return;
    }
    this.streams.add(stream);
    res.writeHead(200, liveHeaders(format));
    // The headers go now: an encoder may hold its first bytes a while (silence compresses to little).
    res.flushHeaders();
    res.once('close', () => finish(false));
    // A live client sends nothing more: its FIN means it left (the server keeps half-closed
    // connections open to answer them), so its place is free now, not at the next write.
    const socket = res.socket;
    const gone = () => finish(false);
    socket?.once('end', gone);
    unhook = () => socket?.removeListener('end', gone);
    if (format === 'wav') {
      res.write(streamingWavHeader(capture.format));
    } else {
      const stage = encodeStage(format, capture.format, capture.format, '-');
      encoder = spawn(stage.program, stage.args, { stdio: ['pipe', 'pipe', 'ignore'] });
      encoder.stdin!.on('error', () => finish(false));
      encoder.on('error', () => finish(false));
      encoder.stdout!.on('data', (d: Buffer) => {
        if (tooSlow(res)) return finish(false);
        res.write(d);
      });
      encoder.once('close', () => finish(true));
    }
    ready = true;
    for (const chunk of pending.splice(0)) send(chunk);
    const check = () => {
      if (!(Date.now() < owner.expiresAtMs) || !owner.valid()) finish(true);
    };
    // Checked every checkMs (a revoked credential), and at the expiry itself when that comes sooner.
    timer = setInterval(check, this.limits.checkMs);
    const left = owner.expiresAtMs - Date.now();
    if (left < this.limits.checkMs) setTimeout(check, Math.max(0, left)).unref();
  }

  /** Shutdown: every stream ends now, and no new one opens. */
  close(): void {
    this.closed = true;
    for (const s of [...this.streams]) s.end();
  }
}
