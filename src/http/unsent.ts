// How much of a connection's answer may wait in the kernel (docs/performance.md, "Slow
// readers"). Linux sizes a socket's send buffer from its congestion window at connect:
// ~1.3 MB on loopback, and a write fills it whether or not the client reads. A thousand
// clients that each read a few bytes a second (slowhttptest -X) then held 1.3 GB of
// kernel memory the agent spent its CPU copying into (83 % of its time in
// copy_from_iter), TCP went into memory pressure, and a new client waited up to 3.2 s.
// TCP_NOTSENT_LOWAT bounds only the bytes not yet sent: a client that reads keeps the
// full window, since what it has acknowledged is not counted.
import type { Socket } from 'node:net';
import { nativeAddon } from '../native/addon.ts';
import { socketFd, tcpOf } from './node-internals.ts';

/** Unsent bytes a connection may leave in the kernel; Node keeps the rest of an answer. */
export const UNSENT_BYTES = 128 * 1024;

/**
 * Bounds a new connection's unsent bytes, once the addon is loaded: a start loads nothing
 * lazy before its first answer (test/unit-bundle.test.ts), and the addon comes 0.3 s after
 * it (settleAfterStart, src/native/memory.ts), so only the connections of a process's first
 * 0.3 s keep the kernel's bound. Without the addon (a noexec temp directory) or on a kernel
 * without TCP_NOTSENT_LOWAT (before 3.12) every connection keeps it, as before: nothing to
 * report per connection.
 */
export function limitUnsent(socket: Socket): void {
  setUnsent(socket, UNSENT_BYTES);
}

/**
 * Lifts the bound for a download a credential asked for: with it, sendfile stopped every
 * ~64 KiB to wait through Node's write (+24–52 % CPU per GB with 8 clients) and an HTTPS
 * copy made ~16 waits per 1 MiB write (+2–9 %). The kernel's send buffer is then the bound.
 */
export function unboundUnsent(socket: Socket): void {
  const tcp = tcpOf(socket);
  if (tcp) setUnsent(tcp, 0x7fffffff);
}

function setUnsent(socket: Socket, bytes: number): void {
  const addon = nativeAddon.now();
  if (addon === undefined || addon instanceof Error) return;
  const fd = socketFd(socket);
  if (fd !== undefined) addon.limitUnsent(fd, bytes);
}
