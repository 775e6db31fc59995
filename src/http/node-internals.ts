// Every private field of Node's that the agent relies on, in one place. Each one buys a
// measured saving; each has a fallback on public API that logs once when taken, and a
// test (test/node-internals.test.ts) that fails when a fast path is silently not taken,
// so a Node release that moves a field shows in the suite, not as a slower device.
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

import type { Log } from '../util/logger.ts';
import { isTls } from './request.ts';

let log: Log | undefined;
const noted = new Set<string>();

/** Where the once-per-process fallback notes go (the agent's log); set at start. */
export function setInternalsLog(to: Log): void {
  log = to;
}

function fallback(what: string, why: string): void {
  if (noted.has(what)) return;
  noted.add(what);
  log?.warn(`node-internals: ${what}: ${why} (Node ${process.version}); using the slower public path`);
}

/**
 * The TCP connection under a socket, for setsockopt (src/http/unsent.ts): the socket
 * itself, or for TLS the one it encrypts onto (`_parent`, set when a TLS socket wraps an
 * accepted one, as the sniffer's do). Fallback: undefined, and the connection keeps the
 * bound it was accepted with.
 */
export function tcpOf(socket: Socket): Socket | undefined {
  if (!isTls(socket)) return socket;
  const parent = (socket as Socket & { _parent?: unknown })._parent;
  if (parent && typeof parent === 'object' && !isTls(parent as Socket)) return parent as Socket;
  fallback('TLS socket _parent', 'is missing');
  return undefined;
}

/**
 * The socket's file descriptor (`_handle.fd`), for sendfile(2): Node exposes none.
 * Fallback: undefined, and the download copies through user space (0.66-0.75 x nginx
 * against 0.98-1.00 x with sendfile, docs/performance.md). A TLS socket has no fd of its
 * own by design (its bytes must be encrypted): undefined without a note.
 */
export function socketFd(socket: Socket): number | undefined {
  if (isTls(socket)) return undefined;
  const handle = (socket as Socket & { _handle?: { fd?: unknown } | null })._handle;
  if (!handle) {
    if (!socket.destroyed) fallback('socket _handle', 'is missing on an open socket');
    return undefined;
  }
  const fd = handle.fd;
  if (typeof fd === 'number' && fd >= 0) return fd;
  fallback('socket _handle.fd', `is ${typeof fd === 'number' ? fd : typeof fd}`);
  return undefined;
}

/**
 * The bytes a socket handed to the kernel. With nothing queued in Node, that is its
 * `_bytesDispatched`: the public `bytesWritten` getter first copies the (empty) write queue
 * into a new array and iterates it (measured: ~700 instructions a read, two reads a request).
 */
export function bytesSent(socket: Socket): number {
  if (socket.writableLength !== 0) return socket.bytesWritten;
  const dispatched = (socket as Socket & { _bytesDispatched?: unknown })._bytesDispatched;
  if (typeof dispatched === 'number') return dispatched;
  fallback('socket _bytesDispatched', `is ${typeof dispatched}`);
  return socket.bytesWritten;
}

/**
 * Replaces what Node's HTTP server calls to close a socket after an answer with
 * `Connection: close` (`socket.destroySoon()`), on this one socket: the lingering close of
 * http/linger.ts. Fallback: nothing replaced, the close is Node's own (a client still
 * sending may then see a reset instead of the answer).
 */
export function replaceDestroySoon(socket: Socket, close: (this: Socket) => void): void {
  const s = socket as Socket & { destroySoon?: unknown };
  if (typeof s.destroySoon !== 'function') {
    fallback('socket destroySoon', `is ${typeof s.destroySoon}`);
    return;
  }
  s.destroySoon = close;
}

/**
 * Keeps a connection open after the client's FIN and ends it after the current answer
 * (Node's undocumented `server.httpAllowHalfOpen`, read by its socketOnEnd), as nginx does:
 * a client that shuts its sending side (`nc -N`, HTTP/1.0-style scripts) still reads, and an
 * answer that takes a while (a login, a download) was otherwise lost, or, for a download by
 * sendfile(2), reached the client without the head Node dropped. Fallback: none possible on
 * public API; noted once.
 */
export function answerHalfClosedClients(server: Server): void {
  const s = server as Server & { httpAllowHalfOpen?: unknown };
  if (typeof s.httpAllowHalfOpen !== 'boolean') fallback('server httpAllowHalfOpen', `is ${typeof s.httpAllowHalfOpen}`);
  s.httpAllowHalfOpen = true;
}

/**
 * The listening socket's file descriptor (`server._handle.fd`), for systemd's descriptor
 * store (src/systemd/listen-fds.ts): Node exposes none. Fallback: undefined, and the
 * socket is not stored, so a restart refuses connections for the moment between the two
 * processes, as without systemd.
 */
export function serverFd(server: Server): number | undefined {
  const fd = (server as Server & { _handle?: { fd?: unknown } | null })._handle?.fd;
  if (typeof fd === 'number' && fd >= 0) return fd;
  fallback('server _handle.fd', `is ${typeof fd === 'number' ? fd : typeof fd}`);
  return undefined;
}

/**
 * The answer under way on a socket (`socket._httpMessage`, which Node's own
 * closeIdleConnections reads; undefined or null between requests), so that a stop can
 * make it end its connection (`Connection: close`, src/http/server.ts). Fallback:
 * undefined, and that one answer keeps its connection alive until the drain closes it.
 */
export function currentResponse(socket: Socket): ServerResponse | undefined {
  const res = (socket as Socket & { _httpMessage?: unknown })._httpMessage;
  if (res === undefined || res === null) return undefined;
  if (typeof res === 'object' && 'shouldKeepAlive' in res) return res as ServerResponse;
  fallback('socket _httpMessage', `is ${typeof res}`);
  return undefined;
}

/**
 * Counts `bytes` (negative: gives them back) as output waiting in a response that has no
 * socket yet (`res._onPendingData`, Node's per-connection `outgoingData`). Node stops
 * reading a connection while that figure is at the socket's high-water mark (it pauses the
 * socket and, after the chunk being parsed, the parser) and reads on once it falls: the
 * same brake Node applies to pipelined answers that pile up, applied by the agent to
 * requests that wait for their turn (src/http/pipeline.ts, inTurn). Fallback: none on public API;
 * noted once, and a connection may then queue as many requests as it sends.
 */
export function countPendingOutput(res: ServerResponse, bytes: number): void {
  const pending = (res as ServerResponse & { _onPendingData?: unknown })._onPendingData;
  if (typeof pending !== 'function') {
    fallback('response _onPendingData', `is ${typeof pending}`);
    return;
  }
  (pending as (delta: number) => void).call(res, bytes);
}
