// The listening socket across restarts and upgrades: the agent puts it into systemd's
// file-descriptor store (FDSTORE=1, FileDescriptorStoreMax=1 in the unit), and systemd
// hands it to the next start (LISTEN_FDS, sd_listen_fds(3)), which takes it when it is
// bound to the configured host and port. Connections that arrive in between wait in its
// backlog instead of being refused. The config's port stays the one source of truth: a
// stored socket for another address is closed and dropped from the store.
import { closeSync } from 'node:fs';
import type { Log } from '../util/logger.ts';
import { nativeAddon } from '../native/addon.ts';
import type { Notifier } from './notify.ts';

/** The name the agent stores its listening socket under (LISTEN_FDNAMES). */
export const LISTENER_NAME = 'http';
/** sd_listen_fds(3): passed descriptors start at 3. */
const FIRST_FD = 3;

export interface PassedFd {
  fd: number;
  name: string;
}

/** The descriptors systemd passed to this process; the variables leave the environment. */
export function passedFds(env: NodeJS.ProcessEnv = process.env): PassedFd[] {
  const pid = env.LISTEN_PID;
  const count = Number(env.LISTEN_FDS);
  const names = (env.LISTEN_FDNAMES ?? '').split(':');
  delete env.LISTEN_PID;
  delete env.LISTEN_FDS;
  delete env.LISTEN_FDNAMES;
  if (pid !== String(process.pid) || !Number.isInteger(count) || count <= 0) return [];
  return Array.from({ length: count }, (_, i) => ({ fd: FIRST_FD + i, name: names[i] || 'unknown' }));
}

/** Does a socket bound to `address` `port` serve the configured host and port (0: any)? */
function matches(bound: string, host: string, port: number): boolean {
  const [address, boundPort] = bound.split(' ');
  return address === host && (port === 0 || Number(boundPort) === port);
}

export interface Taken {
  /** The passed listening socket bound to host:port (marked close-on-exec), if any. */
  fd: number | undefined;
  /** A stored socket for another address was closed: its port may be free only in a moment. */
  dropped: boolean;
}

/**
 * The passed listening socket bound to host:port, if any; every other passed descriptor is
 * closed, and dropped from the store when it was ours. The caller listens on the one
 * returned, or binds afresh.
 */
export function takeListener(passed: PassedFd[], host: string, port: number, log: Log, notifier?: Notifier): Taken {
  let taken: number | undefined;
  let dropped = false;
  if (passed.length === 0) return { fd: taken, dropped };
  const addon = nativeAddon();
  for (const { fd, name } of passed) {
    const bound = addon instanceof Error ? -1 : addon.listening(fd);
    if (taken === undefined && name === LISTENER_NAME && typeof bound === 'string' && matches(bound, host, port)) {
      taken = fd;
      log.info(`listening socket ${bound.replace(' ', ':')} taken over from systemd`);
      continue;
    }
    log.info(
      `passed descriptor ${fd} (${name}${typeof bound === 'string' ? `, ${bound.replace(' ', ':')}` : ''}) is not ${host}:${port}: closed`,
    );
    try {
      closeSync(fd);
    } catch {
      /* already closed */
    }
    if (name === LISTENER_NAME) {
      notifier?.removeFd(name);
      dropped = true;
    }
  }
  return { fd: taken, dropped };
}
