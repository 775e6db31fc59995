// HTTPS and plain HTTP on one port: the first byte of each connection tells them apart
// (0x16 opens a TLS handshake record; no HTTP method starts with it). A TLS connection is
// handed to the HTTP server once its handshake is done, so routes, limits, timeouts, logs,
// drain and lingering close are the same code on both.
import type { Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import type { Server as TlsServer, TlsOptions, TLSSocket } from 'node:tls';
import { tlsMetrics } from '../tls/metrics.ts';

const HANDSHAKE = 0x16;

export interface Sniffer {
  tls: TlsServer;
  /** Closes the connections not handed to HTTP yet (no byte, or a handshake under way). */
  dropPending(): void;
}

/**
 * Puts a sniffer in front of `serveHttp`, the HTTP server's own connection handling.
 * `silentMs`: a connection that sends nothing, or does not finish its handshake, is
 * closed after it (the header timeout of plain HTTP).
 */
export function sniffConnections(http: HttpServer, serveHttp: (socket: Socket) => void, options: TlsOptions, silentMs: number): Sniffer {
  // By peer address: a TLS socket, once secure, names the connection under it by the same.
  const pending = new Map<string, Socket>();
  const peer = (socket: Socket) => `${socket.remoteAddress}|${socket.remotePort}`;
  // node:tls (and the OpenSSL bindings under it) only for an agent with TLS: not at a plain start.
  const tls = process
    .getBuiltinModule('node:tls')
    .createServer({ ...options, allowHalfOpen: true, handshakeTimeout: silentMs, ALPNProtocols: ['http/1.1'] });
  tls.on('secureConnection', (socket: TLSSocket) => {
    pending.delete(peer(socket));
    serveHttp(socket);
  });
  // A failed handshake (a refused version or suite, a record that is not TLS, a timeout,
  // a client certificate missing or from another CA: Node refuses the latter after
  // OpenSSL's handshake, and it comes here as ECONNRESET "socket hang up"):
  // counted and closed (with a listener here Node leaves the socket open); no log line
  // with a stack trace for a client's mistake.
  tls.on('tlsClientError', (_err: Error, socket: TLSSocket) => {
    tlsMetrics.failedHandshakes++;
    socket.destroy();
  });

  http.on('connection', (socket: Socket) => {
    const key = peer(socket);
    pending.set(key, socket);
    socket.once('close', () => {
      if (pending.get(key) === socket) pending.delete(key);
    });
    socket.setTimeout(silentMs, () => socket.destroy());
    socket.once('data', (chunk: Buffer) => {
      socket.setTimeout(0);
      socket.pause();
      socket.unshift(chunk);
      if (chunk[0] === HANDSHAKE) {
        tls.emit('connection', socket); // still pending until HTTP has it
        return;
      }
      pending.delete(key);
      serveHttp(socket);
      // The HTTP parser reads the socket's handle from now on; what was read to sniff
      // sits in the stream's buffer and reaches it as a 'data' event.
      socket.resume();
    });
  });

  return {
    tls,
    dropPending() {
      for (const socket of pending.values()) socket.destroy();
      pending.clear();
    },
  };
}
