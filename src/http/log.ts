// One access-log line per request: method, path without query, status, bytes, ms, user.
// Never the query string, a header or a body, so no token or password reaches the log.
// Refusals of a credential (401, and 429 for logins) are coalesced per client address and
// status in a flood (docs/behaviour.md, "Refusals in a flood").
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { bytesSent } from './node-internals.ts';
import { clientOf, isTls } from './request.ts';
import type { Log } from '../util/logger.ts';
import type { Request } from './types.ts';
import { COALESCE_WINDOW_MS, coalescer } from '../util/coalesce.ts';
import { monotonicMs } from '../util/clock.ts';

/** Hears each request as its log line is written: status (0: no answer) and milliseconds. */
export type Observe = (req: Request, status: number, ms: number) => void;

/** Access-log lines of refusals from one address (per status) written in full per window. */
export const REFUSAL_LINES = 10;

/** Control characters and spaces in a client-chosen path would forge log fields. */
const UNSAFE = /[\u0000-\u0020\u007f-\u009f"\\]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');
function clean(path: string): string {
  // Most paths are clean: test() first spares replace() building a new string.
  if (!UNSAFE.test(path)) return path;
  return path.replace(UNSAFE_ALL, (c) => '%' + c.charCodeAt(0).toString(16).padStart(2, '0'));
}

export function pathOf(url: string | undefined): string {
  const raw = url ?? '';
  const q = raw.indexOf('?');
  return clean(q === -1 ? raw : raw.slice(0, q)).slice(0, 512);
}

/** Milliseconds (>= 0) rounded to one decimal: what toFixed(1) prints, but for binary halves (0.15), at half its cost. */
export function tenths(ms: number): string {
  const t = Math.round(ms * 10);
  return `${(t - (t % 10)) / 10}.${t % 10}`;
}

/** The socket's count of bytes handed to the kernel (node-internals.ts: the fast read). */
const sent = bytesSent;

/** Bytes a handler sent on the connection past Node (sendfile(2)), by response. */
const sentAside = new WeakMap<ServerResponse, number>();
export function countSentAside(res: ServerResponse, bytes: number): void {
  sentAside.set(res, (sentAside.get(res) ?? 0) + bytes);
}

/** The access log as the request's path uses it (src/http/pipeline.ts): it writes lines and nothing else. */
export interface AccessLog {
  /** A request whose response owns the socket: runs `next`, then the line once every byte is handed over or the client left. */
  around(req: IncomingMessage, res: ServerResponse, next: (req: IncomingMessage, res: ServerResponse) => void): void;
  /**
   * A request waiting behind an answer still going out: its line once it is answered, its
   * bytes counted from when Node hands it the socket; a client that leaves first gets its
   * line, aborted.
   */
  waiting(req: IncomingMessage, res: ServerResponse): void;
}

/**
 * One line when the response is done or the client went away. Bytes are those written to
 * the connection for this response, headers included (the socket's counter before and
 * after, plus what went past Node): no per-write wrapper on the hot path.
 */
export function accessLog(log: Log, scheme = false, observe?: Observe): AccessLog {
  const seconds = COALESCE_WINDOW_MS / 1000;
  // Ten lines of a key in full per window: their paths and methods differ, and a person's
  // few mistakes (a mistyped token, an expired session) stay in the log as they were.
  const refusals = coalescer<string>(
    (key, more, overflow) => log.info(`${overflow ? 'refusals of other clients' : key}: ${more} more in the last ${seconds} s`),
    { burst: REFUSAL_LINES },
  );
  const line = (req: IncomingMessage, res: ServerResponse, socket: Socket, url: string | undefined, start: number, before: number) => {
    const ms = monotonicMs() - start;
    // Gone before any answer: status 000 and no bytes (Node may have written its own 400
    // for a cut body to the connection: not this response's, and nobody read it).
    const answered = res.headersSent;
    const status = handedOver(res, socket) ? res.statusCode : `${answered ? res.statusCode : '000'}-aborted`;
    const bytes = answered ? sent(socket) - before + (sentAside.get(res) ?? 0) : 0;
    const user = (req as Request).user?.username ?? '-';
    // With TLS on, a last field says how the request came: https or http.
    const via = scheme ? (isTls(socket) ? ' https' : ' http') : '';
    if (answered && (res.statusCode === 401 || res.statusCode === 429)) {
      const key = `${res.statusCode} from ${clientOf(req)}`;
      if (!refusals.admit(key, key)) {
        if (observe) observe(req as Request, res.statusCode, ms);
        return;
      }
    }
    // A 5xx is the agent's failure (priority err); any other answer, or none, is info.
    (answered && res.statusCode >= 500 ? log.error : log.info)(
      `${req.method} ${pathOf(url)} ${status} ${bytes} ${tenths(ms)}ms ${user}${via}`,
    );
    if (observe) observe(req as Request, answered ? res.statusCode : 0, ms);
  };
  /**
   * The line once the response closes. An answer pipelined behind one still going out
   * (before < 0) is held back by Node until it hands the response the socket ('socket'),
   * and its bytes count from then on (none when the client went away first). Node 20
   * emits no 'close' on such an answer when the client leaves: the socket's stands in.
   */
  const later = (req: IncomingMessage, res: ServerResponse, socket: Socket, url: string | undefined, start: number, before: number) => {
    let logged = false;
    const once = () => {
      if (logged) return;
      logged = true;
      line(req, res, socket, url, start, before < 0 ? sent(socket) : before);
    };
    res.on('close', once);
    if (before >= 0) return;
    socket.once('close', once);
    res.once('socket', () => {
      before = sent(socket);
      socket.removeListener('close', once);
    });
  };
  return {
    around(req, res, next) {
      const start = monotonicMs();
      const url = req.url;
      const socket = req.socket;
      const before = sent(socket);
      next(req, res);
      // Answered, and every byte handed to the kernel already (a cached status, a health
      // check): the line now, with no listener and closure per request.
      if (handedOver(res, socket)) line(req, res, socket, url, start, before);
      else later(req, res, socket, url, start, before);
    },
    waiting(req, res) {
      later(req, res, req.socket, req.url, monotonicMs(), -1);
    },
  };
}

/**
 * Every byte of the answer handed to the kernel: finished, or (before 'finish', which
 * comes on the next tick even when the write completed at once) ended while holding the
 * socket with nothing of it queued in Node. A pipelined answer Node still holds back does
 * not hold the socket.
 */
function handedOver(res: ServerResponse, socket: Socket): boolean {
  return res.writableFinished || (res.writableEnded && res.socket === socket && socket.writableLength === 0);
}
