// The HTTP server around the request's path (src/http/pipeline.ts): timeouts against slow
// clients, and a shutdown that lets running requests finish (up to a drain time) without
// waiting for idle sockets.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { answerHalfClosedClients, currentResponse } from './node-internals.ts';
import type { Server as TlsServer, TlsOptions } from 'node:tls';
import { AgentRequest } from './request.ts';
import { sniffConnections } from './sniff.ts';
import { limitUnsent } from './unsent.ts';

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
 * Connections the kernel completes and holds until the agent accepts them. Node's default
 * of 511 overflowed when a flood of 1,000 connections arrived at once (a slow-read attack):
 * the kernel dropped the SYNs past it, and a new client's retry came 1 s, then 3 s later.
 * Linux caps it at net.core.somaxconn (4096 by default since 5.4).
 */
export const LISTEN_BACKLOG = 4096;

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
  /** The request's path (src/http/pipeline.ts): every request, answered in turn. */
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
    handler,
  );
  // Expect: 100-continue: Node sends `100 Continue` before any handler runs unless the
  // server listens for checkContinue; the agent sends it on the body's first read instead
  // (AgentRequest._read), after the auth check.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    (req as AgentRequest).continueWith = res;
    handler(req, res);
  });
  // A client that shuts its sending side after the request still reads: answer it whole.
  answerHalfClosedClients(server);

  // The connections HTTP serves (TLS ones once their handshake is done), for the stop.
  // Per connection, not per request: nothing is added to a request's path.
  const serveHttp = nodeConnectionListener(server);
  // Every accepted connection, before its first byte is read (HTTP or TLS alike).
  server.on('connection', limitUnsent);
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
