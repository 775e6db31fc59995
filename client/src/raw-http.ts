// A GET on a connection of its own whose body is handed over straight from one reused
// 1 MiB read buffer (net/tls `onread`): no Buffer per chunk, no stream, no HTTP parser
// between the socket and the caller. It takes only the plain case: an HTTP/1.x answer with
// a Content-Length and no Transfer-Encoding; anything else (chunked, no length, 1xx, a head
// it cannot read or longer than 64 KiB) resolves 'fallback' before a byte is passed on, and
// the caller sends the request again through node:http. Errors are those of Transport:
// ApiError for a non-2xx answer (its JSON `error`, the body read up to 64 KiB),
// ConnectionError, TrustError (the pin checked before the request leaves), AbortError.
import { connect as netConnect, type NetConnectOpts, type Socket } from 'node:net';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import { tls as nodeTls } from './builtins.ts';
import type { Writable } from 'node:stream';
import { ApiError, ConnectionError } from './errors.ts';
import type { Transport } from './transport.ts';
import { checkPin, tlsOptionsFor } from './trust.ts';

const READ_BUFFER = 1 << 20;
/** Room a read is given at least (else the staged bytes go to the sink first). */
const MIN_FREE = 64 * 1024;
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
  constructor(
    readonly received: number,
    cause: NodeJS.ErrnoException,
  ) {
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

function requestHead(t: Transport, method: string, url: URL, headers: Record<string, string | number>): Buffer | null {
  const lines = [`${method} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
  for (const [name, value] of Object.entries(t.headersOf({ headers }))) {
    const text = String(value);
    if (!SENDABLE.test(text)) return null;
    lines.push(`${name}: ${text}`);
  }
  lines.push('Connection: close', '', '');
  return Buffer.from(lines.join('\r\n'), 'latin1');
}

/**
 * A connection of our own to the transport's base URL with its trust: `ready` is called
 * once the request may leave (plain TCP: at once; TLS: after the handshake and, with a
 * pin, after the key is checked: a wrong key is destroyed with the TrustError and gets no
 * byte). The transport's idle timeout applies (an ETIMEDOUT error).
 */
function dial(t: Transport, url: URL, onread: unknown, ready: (socket: Socket) => void): Socket {
  let socket: Socket;
  if (url.protocol === 'https:') {
    // tls.connect takes onread when it dials itself (Node's own typings leave it out).
    const tls: TLSSocket = nodeTls().connect({ ...tlsOptionsFor(url, t.trust), ...(onread ? { onread } : {}) } as ConnectionOptions);
    tls.once('secureConnect', () => {
      const refused = t.trust.pin ? checkPin(tls, t.trust.pin) : null;
      if (refused) tls.destroy(refused);
      else ready(tls);
    });
    socket = tls;
  } else {
    socket = netConnect({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port || 80),
      ...(onread ? { onread } : {}),
    } as NetConnectOpts);
    ready(socket);
  }
  socket.setNoDelay(true); // no Nagle wait for an ACK before the last small piece (as node:http's sockets)
  if (t.timeoutMs > 0) {
    socket.setTimeout(t.timeoutMs, () => socket.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
  }
  return socket;
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
  return ApiError.of(head.status, head.statusText, body.toString('utf8'), head.headers);
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
  const request = requestHead(t, 'GET', url, o.headers);
  if (!request) return Promise.resolve('fallback');
  if (o.signal?.aborted) return Promise.reject(abortError(o.signal));
  return new Promise((resolve, reject) => {
    let state: 'head' | 'body' | 'error-body' | 'over' = 'head';
    let pending: Buffer | null = null; // head bytes so far, copied out of the read buffer
    let head: RawHead | undefined;
    let sink: BodySink | undefined;
    let left = 0; // body bytes still to come
    let received = 0;
    // Body bytes read and not yet given to the sink: read[from, to). Each read lands at
    // `to` (the buffer handed to the socket is read.subarray(to)), so the small pieces TLS
    // delivers (16 KiB records) go to the sink together: when little room is left, when
    // the body is whole, or once the reads of this turn of the event loop are in.
    const read = Buffer.allocUnsafeSlow(READ_BUFFER);
    let from = 0;
    let to = 0;
    let flushQueued = false;
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

    const flush = () => {
      if (state !== 'body' || to === from) return;
      const start = from;
      from = to;
      sink!(read, start, to);
    };
    const flushLater = () => {
      flushQueued = false;
      try {
        flush();
      } catch (err) {
        finish(err);
      }
    };
    /** `n` body bytes have just landed at read[to]. */
    const staged = (n: number) => {
      const take = Math.min(n, left);
      to += take;
      left -= take;
      received += take;
      if (left === 0) {
        flush();
        finish(null, 'done');
      } else if (read.length - to < MIN_FREE) {
        flush();
        from = to = 0; // the next read starts at the buffer's start
      } else if (!flushQueued) {
        flushQueued = true;
        setImmediate(flushLater);
      }
    };

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
        if (state === 'body') staged(n);
        else if (state === 'error-body') body(buf, 0, n);
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

    const onread = { buffer: () => read.subarray(to), callback: onRead };
    const socket = dial(t, url, onread, (s) => s.write(request));
    o.signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      failure ??= err;
    });
    socket.on('close', () => {
      if (state === 'over') return;
      const err = failure ?? Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      if (state === 'head') finish(t.failure(err));
      else if (state === 'error-body') finish(apiErrorOf(head!, Buffer.concat(errorBody)));
      else {
        try {
          flush(); // what came before the cut is kept, to resume from
        } catch (e) {
          finish(e);
          return;
        }
        finish(new BodyCut(received, err));
      }
    });
  });
}

const ANSWER_MAX = 1 << 20;

/**
 * The answer in `buf` (1xx heads skipped): its head and body once whole, 'more' while it
 * is not, null when it cannot be read. The body is framed by Content-Length, by chunked
 * transfer coding, or else by the end of the connection (`closed`).
 */
function readAnswer(buf: Buffer, closed: boolean): { head: RawHead; body: Buffer } | 'more' | null {
  let at = 0;
  for (;;) {
    const end = buf.indexOf('\r\n\r\n', at, 'latin1');
    if (end === -1) return closed ? null : 'more';
    const text = buf.toString('latin1', at, end);
    if (/^HTTP\/1\.[01] 1\d\d/.test(text)) {
      at = end + 4; // 100 Continue, 103 Early Hints: the answer follows
      continue;
    }
    const head = parseHead(text);
    if (!head) return null;
    const rest = buf.subarray(end + 4);
    if (head.headers['transfer-encoding'] !== undefined) {
      if (!/^chunked$/i.test(head.headers['transfer-encoding'])) return null;
      const body = unchunk(rest);
      return body === 'more' && closed ? null : body === 'more' || body === null ? body : { head, body };
    }
    const length = head.headers['content-length'];
    if (length !== undefined) {
      if (!/^\d{1,15}$/.test(length)) return null;
      if (rest.length >= Number(length)) return { head, body: rest.subarray(0, Number(length)) };
      return closed ? null : 'more';
    }
    return closed ? { head, body: rest } : 'more';
  }
}

/** A chunked body decoded, once its last chunk is in. */
function unchunk(buf: Buffer): Buffer | 'more' | null {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', at, 'latin1');
    if (eol === -1) return 'more';
    const m = /^([0-9a-fA-F]{1,8})(?:;.*)?$/.exec(buf.toString('latin1', at, eol));
    if (!m) return null;
    const size = Number.parseInt(m[1]!, 16);
    if (size === 0) return Buffer.concat(parts); // trailers, if any, are not needed
    if (buf.length < eol + 2 + size + 2) return 'more';
    parts.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

export interface RawPostOptions {
  transport: Transport;
  path: string;
  /** Content-Type and Content-Length of the body among them. */
  headers: Record<string, string | number>;
  /** Writes the body (the socket, once the request may leave). */
  write(out: Writable): Promise<void>;
  signal?: AbortSignal;
}

/**
 * A POST on a connection of its own: the head, then the body as `write` produces it,
 * straight onto the socket; resolves with the body of a 2xx answer (read up to 1 MiB).
 * An answer that comes before the body is all sent (a refusal) ends the sending. Errors
 * are those of Transport: ApiError (the answer's JSON `error`), ConnectionError,
 * TrustError (the pin checked before any byte leaves), AbortError.
 */
export function rawPost(o: RawPostOptions): Promise<string> {
  const t = o.transport;
  const url = new URL(o.path, t.base);
  const request = requestHead(t, 'POST', url, o.headers);
  if (!request) return Promise.reject(new TypeError(`a header of POST ${o.path} holds a character HTTP does not allow`));
  if (o.signal?.aborted) return Promise.reject(abortError(o.signal));
  return new Promise((resolve, reject) => {
    let settled = false;
    let sent = false;
    let answer: { head: RawHead; body: Buffer } | undefined;
    let failure: NodeJS.ErrnoException | undefined;
    const chunks: Buffer[] = [];
    let size = 0;

    const finish = (err: unknown, text?: string) => {
      if (settled) return;
      settled = true;
      o.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      if (err) reject(err);
      else resolve(text!);
    };
    const onAbort = () => finish(abortError(o.signal!));
    // A 2xx counts once the body is all sent; a refusal counts at once.
    const settle = () => {
      if (!answer) return;
      const { head, body } = answer;
      if (head.status >= 300 || head.status < 200) finish(apiErrorOf(head, body));
      else if (sent) finish(null, body.toString('utf8'));
    };
    const look = (closed: boolean) => {
      if (answer || size === 0) return;
      const got = readAnswer(Buffer.concat(chunks), closed);
      if (got === 'more') return;
      if (got === null) {
        finish(new ConnectionError(`${t.base.host}: an answer that is not HTTP/1.1`, 'EPROTO'));
        return;
      }
      answer = got;
      settle();
    };

    const socket = dial(t, url, undefined, (s) => {
      s.write(request);
      o.write(s).then(
        () => {
          sent = true;
          settle();
        },
        (err: NodeJS.ErrnoException) => {
          // A write that failed because the agent answered and closed: the answer says why.
          if (answer || settled) return;
          if (err.code && /^(EPIPE|ECONNRESET|ERR_STREAM_DESTROYED)$/.test(err.code)) return; // the close says it
          finish(err);
        },
      );
    });
    o.signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > ANSWER_MAX) {
        finish(new ConnectionError(`${t.base.host}: an answer longer than ${ANSWER_MAX} bytes`, 'E2BIG'));
        return;
      }
      chunks.push(chunk);
      look(false);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      failure ??= err;
    });
    socket.on('close', () => {
      if (settled) return;
      look(true); // a refusal, or a 2xx framed by the close
      // No answer, or a 2xx before the body was all sent: the connection failed.
      finish(t.failure(failure ?? hangUp()));
    });
  });
}

const hangUp = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
