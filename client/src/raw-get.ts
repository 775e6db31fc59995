// A GET on a connection of its own whose body is handed over straight from one reused
// 1 MiB read buffer (net/tls `onread`): no Buffer per chunk, no stream, no HTTP parser
// between the socket and the caller. It takes only the plain case: an HTTP/1.x answer with
// a Content-Length and no Transfer-Encoding; anything else (chunked, no length, 1xx, a head
// it cannot read or longer than 64 KiB) resolves 'fallback' before a byte is passed on, and
// the caller sends the request again through node:http. Errors are those of Transport:
// ApiError for a non-2xx answer (its JSON `error`, the body read up to 64 KiB),
// ConnectionError, TrustError (the pin checked before the request leaves), AbortError.
import { connect as netConnect, type Socket } from 'node:net';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import { tls as nodeTls } from './builtins.ts';
import { ApiError } from './errors.ts';
import type { Transport } from './transport.ts';
import { checkPin, tlsOptionsFor } from './trust.ts';

const READ_BUFFER = 1 << 20;
const HEAD_MAX = 64 * 1024;
const ERROR_BODY_MAX = 64 * 1024;

/** An answer's status line and headers (names in lower case, repeated ones joined by ", "). */
export interface RawHead {
  status: number;
  statusText: string;
  headers: Record<string, string>;
}

/** Where the body of a 2xx answer goes: called with each piece, in order, synchronously. */
export type BodySink = (buf: Buffer, start: number, end: number) => void;

export interface RawGetOptions {
  transport: Transport;
  /** Path with its query. */
  path: string;
  headers: Record<string, string>;
  signal?: AbortSignal;
  /**
   * Called once the head of a 2xx answer with a Content-Length (`length`) is in: the sink
   * for its body, or null to leave this answer to the fallback. What it throws fails the GET.
   */
  onHead(head: RawHead, length: number): BodySink | null;
}

/** The connection failed after the body began (its cause says how); the sink had what came. */
export class BodyCut extends Error {
  constructor(readonly received: number, cause: NodeJS.ErrnoException) {
    super(`cut after ${received} bytes: ${cause.message}`, { cause });
  }

  get code(): string {
    return (this.cause as NodeJS.ErrnoException).code ?? 'ECONNRESET';
  }
}

/** Node's error for an aborted operation (what node:http throws on its signal). */
function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted', { cause: signal.reason }), { name: 'AbortError', code: 'ABORT_ERR' });
}

/** Header values node:http would send (else it throws, and the fallback lets it say so). */
const SENDABLE = /^[\t\x20-\x7e\x80-\xff]*$/;

function requestHead(o: RawGetOptions, url: URL): Buffer | null {
  const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
  for (const [name, value] of Object.entries(o.transport.headersOf({ headers: o.headers }))) {
    const text = String(value);
    if (!SENDABLE.test(text)) return null;
    lines.push(`${name}: ${text}`);
  }
  lines.push('Connection: close', '', '');
  return Buffer.from(lines.join('\r\n'), 'latin1');
}

/** The head's text (up to the blank line) as RawHead, or null when this parser does not take it. */
function parseHead(text: string): RawHead | null {
  const lines = text.split('\r\n');
  const m = /^HTTP\/1\.[01] ([2-9]\d\d)(?: ([^\r\n]*))?$/.exec(lines[0] ?? '');
  if (!m) return null; // 1xx, HTTP/2 or 0.9, garbage
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const h = /^([!#$%&'*+.^`|~\w-]+):[\t ]*(.*?)[\t ]*$/.exec(line);
    if (!h) return null; // obsolete line folding, a bare CR or LF, a bad name
    const name = h[1]!.toLowerCase();
    const value = h[2]!;
    if (name === 'content-length' && headers[name] !== undefined && headers[name] !== value) return null;
    headers[name] = headers[name] === undefined || name === 'content-length' ? value : `${headers[name]}, ${value}`;
  }
  return { status: Number(m[1]), statusText: m[2] ?? '', headers };
}

/** The ApiError of a non-2xx answer, as transport.ts's apiError() makes it. */
function apiErrorOf(head: RawHead, body: Buffer): ApiError {
  let message = `${head.status} ${head.statusText}`.trim();
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { error?: unknown };
    if (typeof parsed.error === 'string') message = parsed.error;
  } catch {
    // Not JSON (or cut short): keep the status line.
  }
  return new ApiError(head.status, message, head.headers);
}

/**
 * Sends the GET; resolves 'done' once the whole body went to the sink, 'fallback' when the
 * answer is not one this parser takes (nothing went to the sink, no onHead was called).
 * Rejects with BodyCut when the connection fails mid-body, with what the sink throws, and
 * otherwise as Transport does.
 */
export function rawGet(o: RawGetOptions): Promise<'done' | 'fallback'> {
  const t = o.transport;
  const url = new URL(o.path, t.base);
  const request = requestHead(o, url);
  if (!request) return Promise.resolve('fallback');
  if (o.signal?.aborted) return Promise.reject(abortError(o.signal));
  return new Promise((resolve, reject) => {
    let state: 'head' | 'body' | 'error-body' | 'over' = 'head';
    let pending: Buffer | null = null; // head bytes so far, copied out of the read buffer
    let head: RawHead | undefined;
    let sink: BodySink | undefined;
    let left = 0; // body bytes still to come
    let received = 0;
    const errorBody: Buffer[] = [];
    let failure: NodeJS.ErrnoException | undefined;

    const finish = (err: unknown, value?: 'done' | 'fallback') => {
      if (state === 'over') return;
      state = 'over';
      o.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      if (err) reject(err);
      else resolve(value!);
    };
    // At once, not on the socket's close: no piece read meanwhile may reach the sink.
    const onAbort = () => finish(abortError(o.signal!));

    const body = (buf: Buffer, start: number, end: number) => {
      const n = Math.min(end - start, left);
      if (state === 'error-body') {
        errorBody.push(Buffer.from(buf.subarray(start, start + n)));
        left -= n;
        if (left === 0) finish(apiErrorOf(head!, Buffer.concat(errorBody)));
        return;
      }
      if (n > 0) sink!(buf, start, start + n);
      left -= n;
      received += n;
      if (left === 0) finish(null, 'done');
    };

    const onHead = (all: Buffer, end: number) => {
      const parsed = parseHead(all.toString('latin1', 0, end));
      const length = parsed?.headers['content-length'];
      if (!parsed || parsed.headers['transfer-encoding'] !== undefined || length === undefined || !/^\d{1,15}$/.test(length)) {
        finish(null, 'fallback');
        return;
      }
      head = parsed;
      left = Number(length);
      if (head.status >= 300) {
        state = 'error-body';
        left = Math.min(left, ERROR_BODY_MAX);
      } else {
        const s = o.onHead(head, left);
        if (!s) {
          finish(null, 'fallback');
          return;
        }
        sink = s;
        state = 'body';
      }
      if (left === 0) body(all, 0, 0);
    };

    const onRead = (n: number, buf: Buffer): boolean => {
      try {
        if (state === 'body' || state === 'error-body') body(buf, 0, n);
        else if (state === 'head') {
          const all = pending ? Buffer.concat([pending, buf.subarray(0, n)]) : buf.subarray(0, n);
          const end = all.indexOf('\r\n\r\n', Math.max(0, (pending?.length ?? 0) - 3), 'latin1');
          if (end === -1) {
            if (all.length > HEAD_MAX) finish(null, 'fallback');
            else pending = Buffer.from(all); // the read buffer is used again for the next read
            return true;
          }
          pending = null;
          onHead(all, end);
          const now = state as typeof state | 'body' | 'error-body' | 'over'; // onHead() moved it on
          if (now === 'body' || now === 'error-body') body(all, end + 4, all.length);
        }
      } catch (err) {
        finish(err);
      }
      return state !== 'over';
    };

    const onread = { buffer: Buffer.allocUnsafeSlow(READ_BUFFER), callback: onRead };
    let socket: Socket;
    if (url.protocol === 'https:') {
      // tls.connect takes onread when it dials itself (Node's own typings leave it out).
      const tls: TLSSocket = nodeTls().connect({ ...tlsOptionsFor(url, t.trust), onread } as ConnectionOptions);
      tls.once('secureConnect', () => {
        const refused = t.trust.pin ? checkPin(tls, t.trust.pin) : null;
        if (refused) tls.destroy(refused);
        else tls.write(request);
      });
      socket = tls;
    } else {
      socket = netConnect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80), onread });
      socket.write(request);
    }
    if (t.timeoutMs > 0) {
      socket.setTimeout(t.timeoutMs, () => socket.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    }
    o.signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      failure ??= err;
    });
    socket.on('close', () => {
      if (state === 'over') return;
      const err = failure ?? Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      if (state === 'head') finish(t.failure(err));
      else if (state === 'error-body') finish(apiErrorOf(head!, Buffer.concat(errorBody)));
      else finish(new BodyCut(received, err));
    });
  });
}
