// A download into a local file that survives a cut: while it runs, DEST.dagent holds the
// file's ETag and size; a later call finds DEST shorter than that size and asks for the
// rest with Range and If-Range (the ETag), so a file changed on the device meanwhile comes
// whole instead of being spliced. The length is checked before DEST.dagent goes.
//
// The bytes take the short way when they can (raw-http.ts): a connection of its own, read
// into one reused 1 MiB buffer and written from it with writeSync at the file's offset.
// An answer that path does not take (chunked, no Content-Length, 1xx...) is asked for
// again through node:http (DeviceAgent.download) and written the same way.
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { Writable } from 'node:stream';
import { streams } from './builtins.ts';
import { ApiError, ConnectionError } from './errors.ts';
import { BodyCut, rawGet } from './raw-http.ts';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Transport } from './transport.ts';

/** Called as bytes arrive: `total` null when the size is unknown. */
export type Progress = (p: { bytes: number; total: number | null }) => void;

/**
 * What a download to a file needs of the client (DeviceAgent in client.ts, which imports
 * this module): its transport, and its plain download for the answers the short way
 * does not take.
 */
export interface Downloader {
  transport: Transport;
  download(
    filepath: string,
    opts: { fstype?: string | undefined; signal?: AbortSignal | undefined; range?: { start: number }; ifRange?: string },
  ): Promise<DownloadHead & { status: number; body: IncomingMessage }>;
}

export interface DownloadToFileOptions {
  onProgress?: Progress;
  /** Resume a partial DEST left by an earlier cut download (default true). */
  resume?: boolean;
  fstype?: string;
  signal?: AbortSignal;
  /**
   * Ignored (kept so that programs that pass it still compile): the body is always written
   * with writeSync straight from the read buffer into the page cache.
   * @deprecated
   */
  syncWrites?: boolean;
}

export interface SavedFile {
  /** The local file written. */
  path: string;
  /** Its size, equal to the file's on the device. */
  size: number;
  /** Bytes received by this call. */
  transferred: number;
  /** Offset this call resumed from (0: from the start). */
  resumedFrom: number;
}

interface Control {
  filepath: string;
  etag: string;
  total: number;
}

/** The control file beside a partial download. */
export const controlFile = (dest: string) => `${dest}.dagent`;

function readControl(file: string): Control | null {
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as Partial<Control>;
    if (typeof c.filepath === 'string' && typeof c.etag === 'string' && typeof c.total === 'number') return c as Control;
  } catch {
    // Missing or unreadable: nothing to resume; the download starts over.
  }
  return null;
}

function sizeOf(file: string): number | null {
  try {
    return statSync(file).size;
  } catch {
    return null;
  }
}

/** Path and headers of GET /api/download for a file, a range of it, an If-Range validator. */
export function downloadRequest(
  filepath: string,
  opts: { fstype?: string; range?: { start: number; end?: number }; ifRange?: string },
): { path: string; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  if (opts.range) headers.Range = `bytes=${opts.range.start}-${opts.range.end ?? ''}`;
  if (opts.range && opts.ifRange) headers['If-Range'] = opts.ifRange;
  const fstype = opts.fstype === undefined ? '' : `&fstype=${encodeURIComponent(opts.fstype)}`;
  return { path: `/api/download?filepath=${encodeURIComponent(filepath)}${fstype}`, headers };
}

/** What a 2xx answer of GET /api/download says of its body and of the file. */
export interface DownloadHead {
  /** Bytes in this body. */
  length: number;
  /** Offset of the body's first byte in the file (0 for a 200). */
  start: number;
  /** Size of the whole file. */
  total: number;
  etag: string | null;
  lastModified: string | null;
  contentType: string | null;
}

/** Reads a download answer's head; a 206 whose Content-Range is not `bytes a-b/n` is an ApiError. */
export function downloadHead(status: number, headers: IncomingHttpHeaders | Record<string, string>): DownloadHead {
  const length = Number(headers['content-length'] ?? NaN);
  let start = 0;
  let total = length;
  if (status === 206) {
    const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(headers['content-range'] ?? ''));
    if (!m) throw new ApiError(206, `unexpected Content-Range: ${headers['content-range']}`);
    start = Number(m[1]);
    total = Number(m[3]);
  }
  const h = (name: string) => (headers[name] as string | undefined) ?? null;
  return { length, start, total, etag: h('etag'), lastModified: h('last-modified'), contentType: h('content-type') };
}

/** The file being written: at `from`, with writeSync, each piece counted and reported. */
class Target {
  private readonly fd: number;
  private position: number;
  received = 0;

  /** `total` null: the answer gave no length (chunked, or a body that ends with the connection). */
  constructor(
    readonly dest: string,
    readonly from: number,
    readonly total: number | null,
    private readonly onProgress?: Progress,
  ) {
    this.fd = openSync(dest, from > 0 ? 'r+' : 'w');
    this.position = from;
    onProgress?.({ bytes: from, total });
  }

  write(buf: Buffer, start: number, end: number): void {
    for (let at = start; at < end; ) {
      const n = writeSync(this.fd, buf, at, end - at, this.position);
      at += n;
      this.position += n;
    }
    this.received += end - start;
    this.onProgress?.({ bytes: this.from + this.received, total: this.total });
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * Starts the file for a 200 or 206 answer: a 206 from our offset appends; anything else
 * (a 200: the file changed, or no resume) starts over, with DEST.dagent naming the ETag.
 */
function begin(filepath: string, dest: string, offset: number, status: number, head: DownloadHead, onProgress?: Progress): Target {
  const from = status === 206 && head.start === offset ? offset : 0;
  const total = Number.isSafeInteger(head.total) ? head.total : null;
  const control = controlFile(dest);
  if (from === 0) {
    // Without a length there is nothing to resume against: a cut starts over.
    if (head.etag && total !== null) writeFileSync(control, JSON.stringify({ filepath, etag: head.etag, total: head.total }));
    else {
      try {
        unlinkSync(control);
      } catch {
        // None there.
      }
    }
  }
  return new Target(dest, from, total, onProgress);
}

/** A failure while the body came: the file's own errors as they are, else a cut to resume. */
async function cut(err: unknown, filepath: string, dest: string, total: number | null): Promise<Error> {
  const e = err as NodeJS.ErrnoException;
  if (e.name === 'AbortError') return e;
  if (err instanceof BodyCut) return cutError(filepath, dest, total, err.code, err);
  if (e.code && /^E(NOENT|ACCES|PERM|ISDIR|NOSPC|ROFS|NOTDIR|EXIST|FBIG|IO|DQUOT)$/.test(e.code)) return e;
  return cutError(filepath, dest, total, e.code ?? 'ECONNRESET', err);
}

async function cutError(filepath: string, dest: string, total: number | null, code: string, cause: unknown): Promise<ConnectionError> {
  const saved = sizeOf(dest) ?? 0;
  const text =
    total === null
      ? `${saved} bytes; run the same command again to start over`
      : `${saved} of ${total} bytes; run the same command again to resume`;
  return new ConnectionError(`the download of ${filepath} was cut after ${text}`, code, { cause });
}

export async function downloadToFile(
  agent: Downloader,
  filepath: string,
  dest: string,
  opts: DownloadToFileOptions = {},
): Promise<SavedFile> {
  const control = controlFile(dest);
  let offset = 0;
  let etag: string | undefined;
  if (opts.resume !== false) {
    const c = readControl(control);
    const have = sizeOf(dest);
    if (c && c.filepath === filepath && have !== null && have > 0 && have < c.total) {
      offset = have;
      etag = c.etag;
    }
  }
  const ranged = etag ? { range: { start: offset }, ifRange: etag } : {};
  let target: Target | undefined;
  try {
    const { path, headers } = downloadRequest(filepath, { fstype: opts.fstype, ...ranged });
    const fast = await rawGet({
      transport: agent.transport,
      path,
      headers,
      signal: opts.signal,
      onHead: (head) => {
        if (head.status !== 200 && head.status !== 206) return null;
        target = begin(filepath, dest, offset, head.status, downloadHead(head.status, head.headers), opts.onProgress);
        return (buf, start, end) => target!.write(buf, start, end);
      },
    });
    if (fast === 'fallback') {
      const dl = await agent.download(filepath, { fstype: opts.fstype, signal: opts.signal, ...ranged });
      target = begin(filepath, dest, offset, dl.status, dl, opts.onProgress);
      const into = target;
      await streams().pipeline(
        dl.body,
        new Writable({
          write(chunk: Buffer, _enc, done) {
            try {
              into.write(chunk, 0, chunk.length);
              done();
            } catch (err) {
              done(err as Error);
            }
          },
        }),
      );
    }
  } catch (err) {
    const t = target;
    target = undefined;
    t?.close();
    throw t ? await cut(err, filepath, dest, t.total) : err;
  }
  const done = target!;
  done.close();
  const size = sizeOf(dest);
  if (done.total !== null && size !== done.total) {
    throw new ConnectionError(
      `${dest} has ${size} bytes, the file on the device ${done.total}; run the same command again to resume`,
      'ESHORT',
    );
  }
  try {
    unlinkSync(control);
  } catch {
    // Gone already.
  }
  return { path: dest, size: size ?? 0, transferred: done.received, resumedFrom: done.from };
}
