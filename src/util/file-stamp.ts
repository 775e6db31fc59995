// What a file poller compares (the users file, the TLS pair): a change of any of these is
// a change of the file; a file that cannot be stat'ed is stamped with its errno name, so
// its disappearing and reappearing are changes too.
import { stat, statSync, type Stats } from 'node:fs';
import { errnoName } from './errno.ts';
import { monotonicMs } from './clock.ts';

function stampOf(st: Stats): string {
  return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

/**
 * The file's stamp now (synchronous: at load time, and the pollers' look). A missing file
 * (a schedule or tokens file not made yet, looked at every second) is no exception: the
 * thrown error cost ~4.4 µs and a stack trace's garbage per look.
 */
export function fileStamp(file: string): string {
  try {
    const st = statSync(file, { throwIfNoEntry: false });
    return st ? stampOf(st) : 'ENOENT';
  } catch (err) {
    return errnoName(err);
  }
}

/** The file's stamp, stat'ed on the thread pool (the TLS pair's poller). */
export function fileStampLater(file: string): Promise<string> {
  return new Promise((resolve) => stat(file, (err, st) => resolve(err ? errnoName(err) : stampOf(st))));
}

/** A running pollStamp; stop() ends it. */
export interface Poller {
  stop(): void;
}

/** The pollers of one interval, on one timer; `at` is when they last looked. */
const tickers = new Map<number, { timer: NodeJS.Timeout; polls: Set<() => void>; at: number }>();

function look(ticker: { polls: Set<() => void>; at: number }): void {
  ticker.at = monotonicMs();
  for (const poll of ticker.polls) poll();
}

/**
 * Stats `file()` every `intervalMs` and hands each stamp to `onStamp` (the caller
 * compares it with what it loaded); `idle()` true skips a turn. The pollers of one
 * interval (the users and the tokens file) share one timer, and the stat is synchronous
 * (statx(2) of a local file answers from memory in microseconds): one wakeup of the
 * agent a second for all of them, where a timer each and a stat on the thread pool woke
 * it two or three times per file; and none while the agent is awake anyway (see
 * pollersAwake). A timer, not fs.watchFile: that loads Node's watcher modules at every
 * start (~0.9 ms) for the same stat. The timer is unref'd.
 */
export function pollStamp(file: () => string, intervalMs: number, onStamp: (stamp: string) => void, idle = () => false): Poller {
  let ticker = tickers.get(intervalMs);
  if (!ticker) {
    const polls = new Set<() => void>();
    const made = { polls, at: monotonicMs(), timer: undefined as unknown as NodeJS.Timeout };
    made.timer = setInterval(() => look(made), intervalMs);
    made.timer.unref();
    ticker = made;
    tickers.set(intervalMs, ticker);
  }
  const poll = () => {
    if (!idle()) onStamp(fileStamp(file()));
  };
  const mine = ticker;
  mine.polls.add(poll);
  return {
    stop() {
      if (!mine.polls.delete(poll) || mine.polls.size > 0) return;
      clearInterval(mine.timer);
      if (tickers.get(intervalMs) === mine) tickers.delete(intervalMs);
    },
  };
}

/**
 * The agent is awake for something else (a chunk of sound, 5-8 times a second while a
 * device is captured): the pollers whose last look is half their interval old or more
 * look now, and their timer starts over. So while the agent is woken often anyway, they
 * never wake it themselves, and each file is still looked at at least once an interval.
 */
export function pollersAwake(): void {
  if (tickers.size === 0) return;
  const now = monotonicMs();
  for (const [intervalMs, ticker] of tickers) {
    if (now - ticker.at < intervalMs / 2) continue;
    look(ticker);
    ticker.timer.refresh();
  }
}
