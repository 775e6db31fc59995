// The HTTP server around the app: timeouts against slow clients, and a shutdown that
// lets running requests finish (up to a drain time) without waiting for idle sockets.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { answerHalfClosedClients, countPendingOutput, currentResponse } from './node-internals.ts';
import type { Server as TlsServer, TlsOptions } from 'node:tls';
import { AgentRequest } from './request.ts';
import { settleSoon } from '../native/memory.ts';
import { sniffConnections } from './sniff.ts';

/** A client must send its headers within this long (slowloris gets 408); silence, or a handshake, as long. */
const HEADERS_TIMEOUT_MS = 15_000;

/**
 * At a stop, how long a connection that has sent nothing yet may take to send its
 * request. It was accepted a moment before the stop and its client has sent, or is
 * about to send, a request: closing it unanswered would fail that request (the client
 * reads an empty reply), so it is answered, with `Connection: close`. A connection still
 * silent after this long is closed; it holds a restart no longer than this.
 */
export const FIRST_REQUEST_GRACE_MS = 1_000;

/**
 * Requests one connection may have waiting behind the one being answered before the agent
 * stops reading it. HTTP/1.1 answers in order, so a request waiting for its turn gains
 * nothing by starting early; nginx likewise reads a pipelined request only once the one
 * before it is answered.
 */
export const MAX_QUEUED_REQUESTS = 4;

/**
 * Connections the kernel completes and holds until the agent accepts them. Node's default
 * of 511 overflowed when a flood of 1,000 connections arrived at once (a slow-read attack):
 * the kernel dropped the SYNs past it, and a new client's retry came 1 s, then 3 s later.
 * Linux caps it at net.core.somaxconn (4096 by default since 5.4).
 */
export const LISTEN_BACKLOG = 4096;

/**
 * Brakes a connection that pipelines requests faster than they are answered. HTTP/1.1
 * answers in order, so a request waiting for its turn gains nothing by starting early:
 * its handler runs only once its response owns the socket (the access log's wrapper,
 * src/http/log.ts, holds it back), so a waiting download opens no file and allocates no
 * buffer, and a waiting event stream takes no slot (500 pipelined downloads on one unread
 * connection held 1 GB when each started at once). Each waiting request also counts as a
 * share of the socket's high-water mark of pending output, so with MAX_QUEUED_REQUESTS
 * waiting Node stops reading the connection: the rest stays in the kernel's socket
 * buffer, and the client's own send buffer fills. What is parsed already (at most the one
 * read of up to 64 KiB in which the brake came) waits as request objects only, and a
 * closed connection drops them, each with its access-log line (aborted).
 */
function inTurn(handler: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (twoHosts(req.rawHeaders)) {
      refuseTwoHosts(res);
      return;
    }
    if (!res.socket) {
      const socket = req.socket;
      const share = Math.ceil(socket.writableHighWaterMark / MAX_QUEUED_REQUESTS);
      countPendingOutput(res, share);
      res.once('socket', () => countPendingOutput(res, -share));
      // What its waiting requests took is collected and given back once it closes.
      if (socket.listeners('close').indexOf(settleSoon) === -1) socket.once('close', settleSoon);
    }
    handler(req, res);
  };
}

/** Whether a request names its Host twice (Node keeps the first and drops the rest). */
function twoHosts(raw: string[]): boolean {
  let seen = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') {
      if (seen) return true;
      seen = true;
    }
  }
  return false;
}

const TWO_HOSTS = JSON.stringify({ error: 'a request must have one Host header' });

/**
 * RFC 9112 §3.2: a request with more than one Host field is answered 400 (a proxy in front
 * and the agent could each take another one), and the connection closes, as Node closes it
 * after its own 400 for a missing Host.
 */
function refuseTwoHosts(res: ServerResponse): void {
  res.shouldKeepAlive = false;
  res.writeHead(400, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(TWO_HOSTS),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(TWO_HOSTS);
}

export interface RunningServer {
  server: Server;
  port: number;
  /** With TLS: the server that makes the handshakes (setSecureContext reloads its pair). */
  tls?: TlsServer;
  /** Stops accepting, lets running requests finish for up to `drainMs`, then cuts the rest. */
  close(drainMs: number): Promise<void>;
}

/** Node's own handler of a new connection (the one 'connection' listener of a new HTTP server), taken off it. */
function nodeConnectionListener(server: Server): (socket: Socket) => void {
  const listeners = server.listeners('connection');
  if (listeners.length !== 1) throw new Error(`the HTTP server has ${listeners.length} connection listeners, expected its own one`);
  server.removeAllListeners('connection');
  return listeners[0] as (socket: Socket) => void;
}

export function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  host: string,
  port: number,
  /** A listening socket to serve on instead of binding host:port (systemd's, src/systemd/listen-fds.ts). */
  fd?: number,
  /** With TLS: HTTPS on the same port (docs/api.md#https). */
  tls?: TlsOptions,
): Promise<RunningServer> {
  const server = createServer(
    {
      // Requests of one shape from the start (see request.ts).
      IncomingMessage: AgentRequest,
      // A client must send its headers within 15 s (slowloris gets 408), and a whole
      // request within 10 min (a 50 MB upload on a slow link).
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: 600_000,
      keepAliveTimeout: 5_000,
      // Node checks those timeouts every 30 s by default: a slow client would hold its
      // socket up to 45 s. Check every second.
      connectionsCheckingInterval: 1_000,
      maxHeaderSize: 16 * 1024,
    },
    inTurn(handler),
  );
  // Expect: 100-continue: Node sends `100 Continue` before any handler runs unless the
  // server listens for checkContinue; the agent sends it on the body's first read instead
  // (AgentRequest._read), after the auth check.
  const continuing = inTurn(handler);
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    (req as AgentRequest).continueWith = res;
    continuing(req, res);
  });
  // A client that shuts its sending side after the request still reads: answer it whole.
  answerHalfClosedClients(server);

  // The connections HTTP serves (TLS ones once their handshake is done), for the stop.
  // Per connection, not per request: nothing is added to a request's path.
  const serveHttp = nodeConnectionListener(server);
  const live = new Set<Socket>();
  const serve = (socket: Socket) => {
    live.add(socket);
    socket.once('close', () => live.delete(socket));
    serveHttp.call(server, socket);
  };
  // With TLS, HTTPS and HTTP share the port (docs/api.md#https): the first byte decides.
  const sniffer = tls ? sniffConnections(server, serve, tls, HEADERS_TIMEOUT_MS) : undefined;
  if (!sniffer) server.on('connection', serve);

  // At a stop: no new connection; every answer from now on ends its connection; a poll
  // closes each connection as soon as it has no request in flight (Node's idle ones: a
  // kept-alive connection between requests, not one that has sent nothing yet);
  // connections still silent after the grace are closed; server.close() reports when
  // the last one is gone.
  let closing: Promise<void> | undefined;
  const close = (drainMs: number) => {
    closing ??= new Promise<void>((resolve) => {
      server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
        res.shouldKeepAlive = false;
      });
      for (const socket of live) {
        const res = currentResponse(socket);
        if (res && !res.headersSent) res.shouldKeepAlive = false;
      }
      const poll = setInterval(() => server.closeIdleConnections(), 50);
      // setImmediate: after the timer, one more look at the sockets (their reads) first,
      // so a request that arrived while the loop was busy is not taken for silence.
      const quiet = setTimeout(
        () =>
          setImmediate(() => {
            sniffer?.dropPending();
            for (const socket of live) if (socket.bytesRead === 0) socket.destroy();
          }),
        FIRST_REQUEST_GRACE_MS,
      );
      const cut = setTimeout(() => {
        sniffer?.dropPending();
        server.closeAllConnections();
      }, drainMs);
      server.close(() => {
        clearInterval(poll);
        clearTimeout(quiet);
        clearTimeout(cut);
        resolve();
      });
    });
    return closing;
  };

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(fd === undefined ? { port, host, backlog: LISTEN_BACKLOG } : { fd, backlog: LISTEN_BACKLOG }, () => {
      server.removeListener('error', reject);
      const addr = server.address();
      resolve({ server, port: typeof addr === 'object' && addr ? addr.port : port, tls: sniffer?.tls, close });
    });
  });
}
