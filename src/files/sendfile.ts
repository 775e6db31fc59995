// Downloads without copying each byte through user space: sendfile(2), from the Node-API
// addon (src/native/addon.c), since Node has no zero-copy send. Measured:
// copying reached 0.66–0.75 × nginx with 8 clients on 2 cores, sendfile 0.98–1.00 ×
// (docs/performance.md). Loaded on the first download, not at start.
import { constants as osConstants } from 'node:os';
import { getSystemErrorName } from 'node:util';
import { lazy } from '../util/lazy.ts';
import { nativeAddon, type NativeAddon } from '../native/addon.ts';

export interface SendfileAddon {
  /** A descriptor of the same connection, owned by the caller (close it with fs.close), or -errno. */
  dup(fd: number): number;
  /**
   * Bytes sent from `fd` at `offset` to the non-blocking `out`, 0 at end of file, or -errno.
   * A refusal for the whole process switches downloads to copying (see cannotSend).
   */
  sendfile(out: number, fd: number, offset: number, count: number): Promise<number>;
}

const { EACCES, EINVAL, ENOSYS, EOPNOTSUPP, EPERM } = osConstants.errno;
/** sendfile(2) refused for the whole process: a kernel without it, a seccomp filter (a unit's SystemCallFilter=), an LSM. */
const REFUSED = new Set([ENOSYS, EPERM, EACCES]);

/**
 * Whether sendfile's -errno means "copy instead": this file system has no sendfile
 * (EINVAL, EOPNOTSUPP), or this process may not call it (then every later download copies).
 */
export function cannotSend(n: number): boolean {
  return n === -EINVAL || n === -EOPNOTSUPP || REFUSED.has(-n);
}

/** Wraps the addon's sendfile: a refusal for the whole process is noted, once. */
function wrap(addon: NativeAddon, unavailable: (reason: string) => void): SendfileAddon {
  return {
    dup: addon.dup,
    sendfile: (out, fd, offset, count) =>
      addon.sendfile(out, fd, offset, count).then((n) => {
        if (n < 0 && REFUSED.has(-n) && !refused) {
          refused = true; // downloads copy from now on; the ones running now copy their rest
          unavailable(`sendfile refused: ${getSystemErrorName(n)}`);
        }
        return n;
      }),
  };
}

/** Set when the kernel refused sendfile for the whole process: every later download copies. */
let refused = false;

/** Made on the first download; `unavailable` (that download's) hears why it could not be loaded. */
const addon = lazy('sendfile', (unavailable: (reason: string) => void): SendfileAddon | null => {
  const native = nativeAddon();
  if (native instanceof Error) {
    unavailable(native.message);
    return null;
  }
  return wrap(native, unavailable);
});

/**
 * The addon, or null where it cannot be loaded or the process may not call sendfile
 * (downloads then copy). Loaded on the first call; `unavailable` hears why, once.
 */
export function sendfileAddon(unavailable: (reason: string) => void): SendfileAddon | null {
  return refused ? null : addon(unavailable);
}
