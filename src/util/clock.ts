// The device's two clocks (docs/behaviour.md#the-clock). The wall clock names things and
// places schedules; it may be wrong (a device without a real-time clock boots in 1970 or
// at its last shutdown) and jumps when a time service sets it. Durations, windows and
// timeouts use the monotonic clock, which never jumps.
import { existsSync } from 'node:fs';
import { nativeAddon } from '../native/addon.ts';

/** Set by the bundler (build.mjs): the build's time in epoch milliseconds. */
declare const __DEVICE_AGENT_BUILD_TIME__: number | undefined;

/**
 * Run from source there is no build: the floor is this fixed time, no earlier than this
 * code was written, so that a clock at 1970 or 2000 counts as implausible there too.
 */
const SOURCE_BUILD_TIME = Date.UTC(2026, 10, 28);

/** The executable's build time (epoch ms): a wall clock earlier than this is not set. */
export const BUILD_TIME: number = typeof __DEVICE_AGENT_BUILD_TIME__ === 'number' ? __DEVICE_AGENT_BUILD_TIME__ : SOURCE_BUILD_TIME;

/** True when the wall clock is not earlier than the build time (docs/behaviour.md#the-clock). */
export function clockPlausible(now: number = Date.now()): boolean {
  return now >= BUILD_TIME;
}

/** adjtimex(2)'s "clock not synchronized" status flag. */
const STA_UNSYNC = 0x0040;
/** systemd-timesyncd creates it once it synchronized the clock (systemd-timesyncd.service(8)). */
const TIMESYNCD_FILE = '/run/systemd/timesync/synchronized';

/**
 * Whether a time service has set the clock: the kernel's STA_UNSYNC flag is clear (timesyncd,
 * chrony and ntpd clear it) or timesyncd's file exists. With `syncedFile` (config
 * clock.syncedFile) that file's existence alone decides. Without the addon (a noexec temp
 * directory), only the file says.
 */
export function clockSynchronized(syncedFile: string | null): boolean {
  if (syncedFile !== null) return existsSync(syncedFile);
  const addon = nativeAddon();
  if (!(addon instanceof Error)) {
    const status = addon.adjtimex();
    if (status >= 0 && (status & STA_UNSYNC) === 0) return true;
  }
  return existsSync(TIMESYNCD_FILE);
}

const hrtime = process.hrtime;
/**
 * Monotonic milliseconds (CLOCK_MONOTONIC): for every duration, window and timeout, and the
 * access log's. From process.hrtime, which Node always has loaded: not performance.now(),
 * whose node:perf_hooks brings nine modules into every start (~1.1 ms), nor the global
 * `performance`, a getter Node runs on every access (~450 instructions). Measured on the
 * embedded Node: 42 ns a call, the same as performance.now().
 */
export function monotonicMs(): number {
  const t = hrtime();
  return t[0] * 1e3 + t[1] / 1e6;
}
