// Background work gives way to a busy API (docs/outbox.md, "Giving way to the API"). The
// outbox reads and sends its files in 256 KiB chunks on the thread that answers requests,
// and on a device its store is far away, but its CPU is the device's: at full speed it took
// more than half of what a burst of status requests got (bench/outbox.mjs). So while
// requests arrive at BUSY_PER_SECOND or more, a chunk waits, PAUSE_MS at a time and at most
// MAX_PAUSE_MS in a row: the background still moves (a chunk per loop per 0.25 s), and
// a person's page, a script's polling or a scrape never trigger it.
import { monotonicMs } from './clock.ts';

/** Requests a second from which the API counts as busy. */
export const BUSY_PER_SECOND = 200;
/** How long a rate is counted over before it is read again. */
const WINDOW_MS = 50;
const PAUSE_MS = 10;
export const MAX_PAUSE_MS = 250;

let begun = 0;
let windowStart = monotonicMs();
let windowBegun = 0;
let busy = false;

/** Called once per request, by the request's path (src/http/pipeline.ts). */
export function requestBegun(): void {
  begun++;
}

/** Requests begun since the process started: a mark for busySince. */
export const requestsBegun = (): number => begun;

/** Whether the requests begun since `mark` (requestsBegun), over `ms`, came at BUSY_PER_SECOND or more. */
export const busySince = (mark: number, ms: number): boolean => ((begun - mark) * 1000) / ms >= BUSY_PER_SECOND;

function apiBusy(): boolean {
  const now = monotonicMs();
  const elapsed = now - windowStart;
  if (elapsed >= 2 * WINDOW_MS) {
    // Nobody asked for a while (no file was shipping): when in it the requests came is not
    // known, so the count starts afresh, and a load is seen a window after it is.
    busy = false;
    windowStart = now;
    windowBegun = begun;
  } else if (elapsed >= WINDOW_MS) {
    busy = busySince(windowBegun, elapsed);
    windowStart = now;
    windowBegun = begun;
  }
  return busy;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves at once while the API is quiet; while it is busy, after up to MAX_PAUSE_MS. */
export async function giveWay(): Promise<void> {
  for (let paused = 0; paused < MAX_PAUSE_MS && apiBusy(); paused += PAUSE_MS) await sleep(PAUSE_MS);
}
