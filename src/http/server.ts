// The HTTP server around the app: timeouts against slow clients, and a shutdown that
// lets running requests finish (up to a drain time) without waiting for idle sockets.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface RunningServer {
  server: Server;
  port: number;
  /** Stops accepting, lets running requests finish for up to `drainMs`, then cuts the rest. */
  close(drainMs: number): Promise<void>;
}

export function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  host: string,
  port: number,
): Promise<RunningServer> {
  const server = createServer({
    // A client must send its headers within 15 s (slowloris gets 408), and a whole
    // request within 10 min (a 50 MB upload on a slow link).
    headersTimeout: 15_000,
    requestTimeout: 600_000,
    keepAliveTimeout: 5_000,
    // Node checks those timeouts every 30 s by default: a slow client would hold its
    // socket up to 45 s. Check every second.
    connectionsCheckingInterval: 1_000,
    maxHeaderSize: 16 * 1024,
  }, handler);
  server.maxRequestsPerSocket = 1000;

  let active = 0;
  let closing = false;
  let drained: (() => void) | undefined;
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    active++;
    if (closing) res.setHeader('Connection', 'close');
    res.once('close', () => {
      active--;
      if (closing) {
        server.closeIdleConnections();
        if (active === 0) drained?.();
      }
    });
  });

  const close = (drainMs: number) => new Promise<void>((resolve) => {
    if (closing) return resolve();
    closing = true;
    server.close(() => resolve());
    server.closeIdleConnections();
    const timer = setTimeout(() => server.closeAllConnections(), drainMs);
    timer.unref();
    drained = () => { clearTimeout(timer); server.closeAllConnections(); };
    if (active === 0) drained();
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.removeListener('error', reject);
      const addr = server.address();
      resolve({ server, port: typeof addr === 'object' && addr ? addr.port : port, close });
    });
  });
}
