// One HTTP request of the outbox: a body streamed from a range of a file (never the whole
// file in memory: a 1 GiB file ships in 8 MiB parts read 256 KiB at a time), through the
// shared rate limit, with an idle timeout. Answers are read up to 64 KiB (error texts, XML).
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

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

/** SHA-256 (hex) and MD5 (base64, as Content-MD5) of a file range, read once. */
export async function digestRange(r: Range): Promise<Digests> {
  const sha = createHash('sha256');
  const md5 = createHash('md5');
  if (r.end > r.start) {
    for await (const chunk of createReadStream(r.file, { start: r.start, end: r.end - 1, highWaterMark: CHUNK })) {
      sha.update(chunk as Buffer);
      md5.update(chunk as Buffer);
    }
  }
  return { sha256: sha.digest('hex'), md5: md5.digest('base64') };
}

/** A token bucket on the monotonic clock; one per outbox, so the limit bounds all transfers together. */
export class RateLimit {
  private tokens = 0;
  private last = performance.now();
  constructor(public bytesPerSecond: number | null) {}

  async take(n: number, signal?: AbortSignal): Promise<void> {
    while (this.bytesPerSecond !== null) {
      const now = performance.now();
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
    const source: Readable = Buffer.isBuffer(s.body)
      ? Readable.from([s.body])
      : createReadStream((s.body as Range).file, { start: (s.body as Range).start, end: (s.body as Range).end - 1, highWaterMark: CHUNK });
    const paced = new Transform({
      transform(chunk: Buffer, _enc, done) {
        // Under a limit, slices small beside a second's allowance: a 256 KiB read at 64 KiB/s
        // would otherwise leave at once and only the next one wait.
        const step = s.limit.bytesPerSecond === null ? chunk.length : Math.max(1024, Math.floor(s.limit.bytesPerSecond / 8));
        const next = (at: number): void => {
          if (at >= chunk.length) {
            done();
            return;
          }
          const piece = chunk.subarray(at, at + step);
          s.limit.take(piece.length, s.signal).then(() => {
            s.onBytes?.(piece.length);
            this.push(piece);
            next(at + piece.length);
          }, done);
        };
        next(0);
      },
    });
    pipeline(source, paced, req).catch((err: unknown) => {
      req.destroy(err as Error);
      reject(err);
    });
  });
}
