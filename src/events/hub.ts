// GET /api/v1/events (docs/api.md#events): Server-Sent Events. One hub holds every open stream:
// one status refresh every 2 s shared by all (no timer at all while none is open), the
// recording record at each state change, a comment line every 15 s, a stream cap (and half
// of it per user), each stream ended when its token expires, and all ended at once on shutdown.
import type { RecordingRecord } from '../audio/record.ts';
import type { Captures, Level } from '../audio/captures.ts';
import type { Recorder } from '../audio/recorder.ts';
import { Errors } from '../http/errors.ts';
import type { Request, Response } from '../http/types.ts';
import type { JsonText, StatusSampler } from '../status/sampler.ts';
import { Slots } from '../util/slots.ts';

export const EVENT_LIMITS = {
  /** Open streams at most; the next one is 503. */
  maxStreams: 32,
  /** Open streams of one user at most, all their tokens and sessions (docs/api.md, "Stream slots"). */
  maxStreamsPerUser: 16,
  /** A `status` event this often while any stream is open. */
  statusMs: 2_000,
  /** A comment line this often, so that proxies and clients see the stream alive. */
  commentMs: 15_000,
  /** A client that reads nothing while this much waits for it is cut (it would hold memory). */
  maxBufferedBytes: 256 * 1024,
};

/** What the hub needs from the status sampler and the recorder (src/serve.ts wires them). */
export interface EventSources {
  statusJson(): JsonText | Promise<JsonText>;
  recording(): RecordingRecord;
  onRecordingChange(listener: (record: RecordingRecord) => void): () => void;
  /** Each running capture's level, a few times a second (src/audio/captures.ts). */
  onLevel?(listener: (level: Level) => void): () => void;
}

/** The agent's sampler and recorder as the hub's sources. */
export function eventSources(sampler: StatusSampler, recorder: Recorder, captures?: Captures): EventSources {
  return {
    statusJson: () => sampler.json(),
    recording: () => recorder.status(),
    onRecordingChange: (listener) => recorder.onChange(listener),
    onLevel: captures && ((listener) => captures.onLevel(listener)),
  };
}

/** One SSE event: JSON.stringify never emits a newline, so `data` is one line. */
export const frame = (event: string, json: string) => `event: ${event}\ndata: ${json}\n\n`;

/** The longest delay setTimeout takes (about 24.8 days); a later expiry is re-armed. */
const MAX_DELAY = 2 ** 31 - 1;

/** Whose stream: the user (their id), its token's expiry, and whether the token still holds (not revoked). */
export interface StreamOwner {
  user: string;
  expiresAtMs: number;
  valid: () => boolean;
}

interface Stream {
  res: Response;
  owner: StreamOwner;
  expiry: NodeJS.Timeout | undefined;
  /** Gives its place back. */
  release: () => void;
  /** The client closed its side: it left (the server keeps half-closed connections open to answer them). */
  left: () => void;
}

export class EventHub {
  private readonly streams = new Set<Stream>();
  private readonly slots: Slots;
  private statusTimer: NodeJS.Timeout | undefined;
  private commentTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly listeners = new Set<(event: string, json: string) => void>();

  constructor(
    private readonly sources: EventSources,
    private readonly limits = EVENT_LIMITS,
  ) {
    this.slots = new Slots(limits.maxStreams, limits.maxStreamsPerUser);
    sources.onRecordingChange((record) => this.emit('recording', JSON.stringify(record)));
    // While a recording or a live stream runs: its device's level, every LEVEL_EVERY_MS.
    sources.onLevel?.((level) => {
      if (this.streams.size > 0) this.broadcast(frame('level', JSON.stringify(level)));
    });
  }

  /**
   * Sends a named event to every stream and to each listener (the MQTT link's `event/<name>`).
   * `level` and `status` go to the streams only.
   */
  emit(event: string, json: string): void {
    if (this.streams.size > 0) this.broadcast(frame(event, json));
    for (const l of this.listeners) l(event, json);
  }

  /** Hears every event sent through emit(); returns its removal. */
  onEvent(listener: (event: string, json: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.streams.size;
  }

  /** Answers one request with a stream, or throws 503 (full, or shutting down). */
  open(req: Request, res: Response, owner: StreamOwner): void {
    if (this.closed) throw Errors.shuttingDown();
    const refusal = this.slots.refusal(owner.user);
    if (refusal === 'full') throw Errors.tooManyStreams(this.limits.maxStreams);
    if (refusal === 'user') throw Errors.tooManyStreamsForUser(this.limits.maxStreamsPerUser);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'X-Accel-Buffering': 'no', // a reverse proxy passes each event on at once
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const stream: Stream = {
      res,
      owner,
      expiry: undefined,
      release: this.slots.take(owner.user),
      left: () => {
        this.drop(stream);
        res.destroy();
      },
    };
    this.streams.add(stream);
    res.once('close', () => this.drop(stream));
    // An event stream's client sends nothing more: its FIN means it is gone (a closed tab,
    // an aborted fetch), not a half-close waiting for an answer. Free its place now rather
    // than at the next write.
    req.socket.once('end', stream.left);
    this.armExpiry(stream, owner.expiresAtMs);
    res.write(frame('recording', JSON.stringify(this.sources.recording())));
    this.sendStatus([stream]);
    this.statusTimer ??= setInterval(() => this.tick(), this.limits.statusMs).unref();
    this.commentTimer ??= setInterval(() => this.broadcast(': keep-alive\n\n'), this.limits.commentMs).unref();
  }

  /** Ends every stream (shutdown): they do not hold the server's drain. */
  close(): void {
    this.closed = true;
    for (const s of this.streams) this.end(s, ': the agent is shutting down\n\n');
  }

  private armExpiry(stream: Stream, expiresAtMs: number): void {
    const left = expiresAtMs - Date.now();
    stream.expiry = setTimeout(
      () => {
        if (Date.now() < expiresAtMs) this.armExpiry(stream, expiresAtMs);
        else this.end(stream, ': token expired\n\n');
      },
      Math.max(0, Math.min(left, MAX_DELAY)),
    ).unref();
  }

  private end(stream: Stream, comment: string): void {
    this.drop(stream);
    if (!stream.res.destroyed) stream.res.end(comment);
  }

  private drop(stream: Stream): void {
    if (!this.streams.delete(stream)) return;
    stream.release();
    clearTimeout(stream.expiry);
    stream.res.socket?.removeListener('end', stream.left); // a kept-alive socket serves other requests after
    if (this.streams.size === 0) {
      clearInterval(this.statusTimer);
      clearInterval(this.commentTimer);
      this.statusTimer = this.commentTimer = undefined;
    }
  }

  private write(stream: Stream, text: string): void {
    const { res } = stream;
    if (res.destroyed || res.writableEnded) return;
    if (res.writableLength > this.limits.maxBufferedBytes) {
      this.drop(stream);
      res.destroy(); // the client stopped reading
      return;
    }
    res.write(text);
  }

  private broadcast(text: string): void {
    for (const s of this.streams) this.write(s, text);
  }

  /** Every 2 s: streams whose token was revoked end; the others get the status. */
  private tick(): void {
    for (const s of this.streams) if (!s.owner.valid()) this.end(s, ': token revoked\n\n');
    this.sendStatus(this.streams);
  }

  /** One status refresh (the sampler's, shared with /devicestatus/get) for all the streams given. */
  private sendStatus(streams: Iterable<Stream>): void {
    const send = (body: JsonText) => {
      const text = frame('status', body.text);
      for (const s of streams) if (this.streams.has(s)) this.write(s, text);
    };
    let body: JsonText | Promise<JsonText>;
    try {
      body = this.sources.statusJson();
    } catch {
      return; // a probe failing once: the next tick tries again
    }
    if (body instanceof Promise) body.then(send, () => {});
    else send(body);
  }
}
