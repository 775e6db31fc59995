// Telling systemd how the service is (sd_notify(3), Type=notify): READY=1 once it serves,
// STATUS= lines, watchdog pings from the event loop, RELOADING=1 and STOPPING=1, and the
// listening socket into the file-descriptor store. Datagrams go out through the addon
// (Node has no unix datagram socket). Without $NOTIFY_SOCKET there is no notifier at all.
import type { Log } from '../util/logger.ts';
import { nativeAddon, type NativeAddon } from '../native/addon.ts';
import { getSystemErrorName } from 'node:util';

export interface Notifier {
  /** READY=1 with the status line: the port listens and the users are loaded. */
  ready(status: string): void;
  /** A new STATUS= line (shown by `systemctl status`). */
  status(text: string): void;
  /** RELOADING=1 with MONOTONIC_USEC=; ready() ends it. */
  reloading(): void;
  /** STOPPING=1: the agent drains and exits. */
  stopping(): void;
  /** FDSTORE=1: systemd keeps a copy of `fd` under `name` and hands it to the next start. */
  storeFd(fd: number, name: string): void;
  /** FDSTOREREMOVE=1: systemd closes its copy of `name`. */
  removeFd(name: string): void;
}

/** Monotonic microseconds (CLOCK_MONOTONIC, as uv_hrtime reads it): what MONOTONIC_USEC= wants. */
const monotonicUsec = () => process.hrtime.bigint() / 1000n;

/**
 * The notifier for this process, or undefined when systemd did not ask for one (no
 * $NOTIFY_SOCKET) or the addon cannot load (logged). The variables are removed from the
 * environment, so sox and arecord neither inherit nor misuse them.
 */
export function systemdNotifier(log: Log, env: NodeJS.ProcessEnv = process.env): Notifier | undefined {
  const socket = env.NOTIFY_SOCKET;
  const watchdogUsec = Number(env.WATCHDOG_USEC);
  const watchdogPid = env.WATCHDOG_PID;
  delete env.NOTIFY_SOCKET;
  delete env.WATCHDOG_USEC;
  delete env.WATCHDOG_PID;
  if (!socket) return undefined;
  const addon = nativeAddon();
  if (addon instanceof Error) {
    log.error(`systemd notifications impossible: the addon did not load: ${addon.message}`);
    return undefined;
  }
  return createNotifier(addon, socket, log, watchdogPid === undefined || watchdogPid === String(process.pid) ? watchdogUsec : NaN);
}

function createNotifier(addon: NativeAddon, socket: string, log: Log, watchdogUsec: number): Notifier {
  let failed = false;
  const send = (text: string, fd?: number) => {
    const r = fd === undefined ? addon.notify(socket, text) : addon.notify(socket, text, fd);
    if (r < 0 && !failed) {
      failed = true; // once: a full or gone socket would otherwise log every watchdog ping
      log.warn(`systemd notification to ${socket} failed: ${getSystemErrorName(r)}`);
    } else if (r === 0) {
      failed = false;
    }
  };
  // Pings from a timer: a blocked event loop sends none, and systemd restarts the agent.
  if (Number.isFinite(watchdogUsec) && watchdogUsec > 0) {
    const watchdog = setInterval(() => send('WATCHDOG=1'), Math.max(1, Math.floor(watchdogUsec / 2000)));
    watchdog.unref();
  }
  return {
    ready: (status) => send(`READY=1\nSTATUS=${status}`),
    status: (text) => send(`STATUS=${text}`),
    reloading: () => send(`RELOADING=1\nMONOTONIC_USEC=${monotonicUsec()}`),
    stopping: () => send('STOPPING=1'),
    storeFd: (fd, name) => send(`FDSTORE=1\nFDNAME=${name}`, fd),
    removeFd: (name) => send(`FDSTOREREMOVE=1\nFDNAME=${name}`),
  };
}
