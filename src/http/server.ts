// The HTTP server around the app: timeouts against slow clients, and a shutdown that
// lets running requests finish (up to a drain time) without waiting for idle sockets.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { answerHalfClosedClients } from './node-internals.ts';
import type { SecureContextOptions, Server as TlsServer } from 'node:tls';
import { AgentRequest } from './request.ts';
import { sniffConnections } from './sniff.ts';

/** A client must send its headers within this long (slowloris gets 408); silence, or a handshake, as long. */
const HEADERS_TIMEOUT_MS = 15_000;

export interface RunningServer {
  server: Server;
  port: number;
  /** With TLS: the server that makes the handshakes (setSecureContext reloads its pair). */
  tls?: TlsServer;
  /** Stops accepting, lets running requests finish for up to `drainMs`, then cuts the rest. */
  close(drainMs: number): Promise<void>;
}

export function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  host: string,
  port: number,
  /** A listening socket to serve on instead of binding host:port (systemd's, src/systemd/listen-fds.ts). */
  fd?: number,
  /** With TLS: HTTPS on the same port (CONTRACT §8). */
  tls?: SecureContextOptions,
): Promise<RunningServer> {
  const server = createServer({
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
  }, handler);
  // A client that shuts its sending side after the request still reads: answer it whole.
  answerHalfClosedClients(server);
  // With TLS, HTTPS and HTTP share the port (CONTRACT §8).
  const sniffer = tls ? sniffConnections(server, tls, HEADERS_TIMEOUT_MS) : undefined;

  // No per-request bookkeeping: at shutdown a poll closes each connection as soon as it
  // has no request in flight; server.close() reports when the last one is gone.
  let closing: Promise<void> | undefined;
  const close = (drainMs: number) => {
    closing ??= new Promise<void>((resolve) => {
      const poll = setInterval(() => server.closeIdleConnections(), 50);
      const cut = setTimeout(() => server.closeAllConnections(), drainMs);
      sniffer?.dropPending();
      server.close(() => {
        clearInterval(poll);
        clearTimeout(cut);
        resolve();
      });
      server.closeIdleConnections();
    });
    return closing;
  };

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(fd === undefined ? { port, host } : { fd }, () => {
      server.removeListener('error', reject);
      const addr = server.address();
      resolve({ server, port: typeof addr === 'object' && addr ? addr.port : port, tls: sniffer?.tls, close });
    });
  });
}
