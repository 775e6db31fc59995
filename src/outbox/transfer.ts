// One HTTP request of the outbox: a body streamed from a range of a file (never the whole
// file in memory: a 1 GiB file ships in 8 MiB parts read 256 KiB at a time), through the
// shared rate limit, with an idle timeout. Answers are read up to 64 KiB (error texts, XML).
// A transfer reads into two buffers of its own, each reused once the socket has taken what
// was written from it: a read stream's fresh 256 KiB buffer per read left ~34 MB of them for
// the collector to find while a 64 MiB file shipped (bench/outbox.mjs).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { close, open, read } from '../util/fsp.ts';
import { type ClientRequest, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { monotonicMs } from '../util/clock.ts';
import { giveWay } from '../util/give-way.ts';

const CHUNK = 256 * 1024;
const IDLE_TIMEOUT_MS = 60_000;

export interface Range {
  file: string;
  start: number;
  /** Exclusive. */
  end: number;
}

export interface Digests {
  sha256: string;
  md5: string;
}

/**
 * Full-size chunk buffers kept between transfers. Each 8 MiB part took three fresh 256 KiB
 * buffers (its digests, then its two for sending): ~96 MB of garbage per 1 GiB file, found
 * by the collector only later, which the peak RSS showed (docs/outbox.md, "Figures").
 */
const spare: Buffer[] = [];
const SPARE_MAX = 8;

function chunkBuffer(size: number): Buffer {
  return (size === CHUNK && spare.pop()) || Buffer.allocUnsafe(size);
}

/** Buffers no read or write holds any more. */
function giveBack(bufs: Buffer[]): void {
  for (const b of bufs) if (b.length === CHUNK && spare.length < SPARE_MAX) spare.push(b);
}

/** SHA-256 (hex) and MD5 (base64, as Content-MD5) of a file range, read once. */
export async function digestRange(r: Range): Promise<Digests> {
  const sha = createHash('sha256');
  const md5 = createHash('md5');
  if (r.end > r.start) {
    const buf = chunkBuffer(Math.min(CHUNK, r.end - r.start));
    await eachChunk(r, [buf], async (chunk) => {
      sha.update(chunk);
      md5.update(chunk);
    });
    giveBack([buf]); // the hashes copied what they read; a failed read leaves it to the collector
  }
  return { sha256: sha.digest('hex'), md5: md5.digest('base64') };
}

/**
 * Reads the range into `bufs` in turn (up to the file's end, if it is shorter) and hands
 * each filled part to `use`, one call after another in the file's order (the next read
 * overlaps the running call, the next call never does: a call that waits for the rate
 * limit mid-way would otherwise let the next part's bytes in between its own). A buffer
 * is read into again only once `use`'s promise for it has settled, and a read waits while
 * the API is busy.
 */
async function eachChunk(r: Range, bufs: Buffer[], use: (chunk: Buffer) => Promise<void>): Promise<void> {
  let fd: number | undefined;
  const using: Promise<void>[] = bufs.map(() => Promise.resolve());
  let previous: Promise<void> = Promise.resolve();
  try {
    fd = await open(r.file, 'r');
    for (let at = r.start, i = 0; at < r.end; i = (i + 1) % bufs.length) {
      await using[i]!;
      await giveWay(); // a busy API first (src/util/give-way.ts)
      const buf = bufs[i]!;
      const { bytesRead } = await read(fd, buf, 0, Math.min(buf.length, r.end - at), at);
      if (bytesRead === 0) break;
      at += bytesRead;
      const chunk = buf.subarray(0, bytesRead);
      previous = using[i] = previous.then(() => use(chunk));
      // A failure of an earlier use ends the loop at its next turn; this one's is awaited below.
      using[i]!.catch(() => {});
    }
    await Promise.all(using);
  } finally {
    if (fd !== undefined) await close(fd);
  }
}

/** Writes a chunk; resolves once the socket has taken it (the buffer may then be reused). */
function written(req: ClientRequest, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    req.write(chunk, (err) => (err ? reject(err) : resolve()));
  });
}

/** A token bucket on the monotonic clock; one per outbox, so the limit bounds all transfers together. */
export class RateLimit {
  private tokens = 0;
  private last = monotonicMs();
  constructor(public bytesPerSecond: number | null) {}

  async take(n: number, signal?: AbortSignal): Promise<void> {
    while (this.bytesPerSecond !== null) {
      const now = monotonicMs();
      // At most a second's worth saved up: an idle hour does not buy a burst.
      this.tokens = Math.min(this.bytesPerSecond, this.tokens + ((now - this.last) / 1000) * this.bytesPerSecond);
      this.last = now;
      if (this.tokens >= n || this.tokens >= this.bytesPerSecond) {
        this.tokens -= n;
        return;
      }
      const waitMs = ((Math.min(n, this.bytesPerSecond) - this.tokens) / this.bytesPerSecond) * 1000;
      await new Promise((r) => setTimeout(r, Math.max(5, waitMs)));
      if (signal?.aborted) throw signal.reason;
    }
  }
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Sending {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: Range | Buffer;
  ca?: Buffer;
  limit: RateLimit;
  signal: AbortSignal;
  /** Counts body bytes as they leave. */
  onBytes?: (n: number) => void;
}

const caCache = new Map<string, Buffer>();
/** A caFile's PEM, read once per path (a reload with a new file names a new path or restarts). */
export function caOf(file: string | null): Buffer | undefined {
  if (!file) return undefined;
  let ca = caCache.get(file);
  if (!ca) caCache.set(file, (ca = readFileSync(file)));
  return ca;
}

export function send(s: Sending): Promise<Answer> {
  const { url } = s;
  const bodyLength = s.body === undefined ? 0 : Buffer.isBuffer(s.body) ? s.body.length : s.body.end - s.body.start;
  const make = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Answer>((resolve, reject) => {
    const req = make(url, {
      method: s.method,
      headers: { ...s.headers, 'content-length': String(bodyLength) },
      ca: s.ca,
      signal: s.signal,
      agent: false,
    });
    req.setTimeout(IDLE_TIMEOUT_MS, () => req.destroy(new Error(`no answer from ${url.host} in ${IDLE_TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size < 65536) parts.push(c);
        size += c.length;
      });
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString('utf8') }));
    });
    if (bodyLength === 0) {
      req.end();
      return;
    }
    if (Buffer.isBuffer(s.body)) {
      req.end(s.body);
      return;
    }
    // Under a limit, slices small beside a second's allowance: a 256 KiB read at 64 KiB/s
    // would otherwise leave at once and only the next one wait.
    const range = s.body as Range;
    const bufs = [0, 1].map(() => chunkBuffer(Math.min(CHUNK, bodyLength)));
    eachChunk(range, bufs, async (chunk) => {
      const step = s.limit.bytesPerSecond === null ? chunk.length : Math.max(1024, Math.floor(s.limit.bytesPerSecond / 8));
      let last: Promise<void> = Promise.resolve();
      for (let at = 0; at < chunk.length; at += step) {
        const piece = chunk.subarray(at, at + step);
        await s.limit.take(piece.length, s.signal);
        s.onBytes?.(piece.length);
        last = written(req, piece);
        last.catch(() => {}); // a failed write fails every later one: the last is awaited
      }
      await last; // writes complete in order: the last one's callback means the chunk is taken
    }).then(
      () => {
        giveBack(bufs); // every write's callback came: the socket took (or encrypted) them all
        req.end();
      },
      (err: unknown) => {
        req.destroy(err as Error);
        reject(err);
      },
    );
  });
}
