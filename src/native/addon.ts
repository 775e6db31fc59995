// The agent's one C addon (src/native/addon.c): sendfile(2) for downloads, the systemd
// notification socket (datagrams, descriptor passing), a plain pipe for a capture's
// output, the kernel clock's sync flag and a connection's unsent bound (TCP_NOTSENT_LOWAT),
// which Node cannot do. Loaded once, on first use: the first download or status, the start
// under systemd (NOTIFY_SOCKET), or the settling 0.3 s after a start (src/native/memory.ts);
// connections get their unsent bound from then on (src/http/unsent.ts).
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { lazy } from '../util/lazy.ts';
import { addonBytes } from './addon-bytes.ts';

export interface NativeAddon {
  /** A descriptor of the same connection, owned by the caller (close it with fs.close), or -errno. */
  dup(fd: number): number;
  /** Bytes sent from `fd` at `offset` to the non-blocking `out`, 0 at end of file, or -errno. */
  sendfile(out: number, fd: number, offset: number, count: number): Promise<number>;
  /** One datagram to a unix socket (a path, or '@' + an abstract name), `fd` passed along: 0 or -errno. */
  notify(socket: string, text: string, fd?: number): number;
  /** "address port" of a listening TCP socket (marked close-on-exec), or -errno. */
  listening(fd: number): string | number;
  /** pipe2(O_CLOEXEC): [read end, write end], or -errno. */
  pipe(): [number, number] | number;
  /** glibc: a fixed mmap threshold and at most 2 arenas (src/native/memory.ts); 1, or 0 without glibc. */
  tuneAllocator(): number;
  /** glibc's malloc_trim(0): 1 when memory went back to the kernel. */
  trim(): number;
  /** adjtimex(2) read only: the kernel clock's status flags (STA_*), or -errno. */
  adjtimex(): number;
  /** setsockopt(TCP_NOTSENT_LOWAT): at most `bytes` unsent in the socket; 0 or -errno. */
  limitUnsent(fd: number, bytes: number): number;
}

/** open(2)'s O_TMPFILE (Node has no constant for it): a file without a name. */
const O_TMPFILE = 0o20000000 | constants.O_DIRECTORY;

/**
 * The addon is written to a file without a name in the temp directory and loaded through
 * /proc/self/fd: no other process can open, replace or even see it between the write and
 * dlopen(3), and nothing is left behind. A temp directory mounted noexec refuses the
 * mapping: then there is no addon (downloads copy, systemd hears nothing).
 */
function load(): NativeAddon {
  const bytes = addonBytes();
  const module = { exports: {} as NativeAddon };
  const fd = openSync(tmpdir(), O_TMPFILE | constants.O_RDWR, 0o500);
  try {
    writeSync(fd, bytes);
    process.dlopen(module, `/proc/self/fd/${fd}`);
  } finally {
    closeSync(fd);
  }
  const addon = module.exports;
  if (typeof addon.tuneAllocator === 'function') addon.tuneAllocator(); // before the first large block
  for (const name of ['sendfile', 'dup', 'notify', 'listening', 'pipe', 'tuneAllocator', 'trim', 'adjtimex', 'limitUnsent'] as const) {
    if (typeof addon[name] !== 'function') throw new Error(`the addon does not export ${name}()`);
  }
  return addon;
}

/** The addon, or the Error that says why it could not be loaded (the same one on every call). */
export const nativeAddon = lazy('native addon', (): NativeAddon | Error => {
  try {
    return load();
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
});
