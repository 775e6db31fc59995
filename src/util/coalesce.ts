// Identical lines in a flood written once per window (docs/behaviour.md, "Refusals in a
// flood"): the first of a key (or the first few: `burst`) is written in full, the next ones
// within 10 s are only counted, and one line then says how many more came. A client without a valid
// credential could otherwise make the agent write (the audit trail, the log, the disk of
// an SD card) as fast as it can send requests.

/** The window: "N more in the last 10 s". */
export const COALESCE_WINDOW_MS = 10_000;
/**
 * Keys (client address and reason) tracked at once. Beyond them every new key counts in
 * one overflow line, so that many addresses (an IPv6 prefix) cannot multiply the lines.
 */
export const COALESCE_MAX_KEYS = 1_000;

/** How many more came after the first, and whether they are the overflow's (many keys). */
export type Summarize<T> = (first: T, more: number, overflow: boolean) => void;

export interface CoalesceOptions {
  windowMs?: number;
  maxKeys?: number;
  /** Lines of one key written in full in a window before the rest are counted (default 1). */
  burst?: number;
}

export interface Coalescer<T> {
  /** True: write this one in full (among the first `burst` of its key in the window); false: counted. */
  admit(key: string, sample: T): boolean;
  /** Writes every pending count now (a clean stop). */
  flush(): void;
}

interface Entry<T> {
  first: T;
  written: number;
  more: number;
  timer: NodeJS.Timeout;
}

const OVERFLOW = '\0overflow';

export function coalescer<T>(summarize: Summarize<T>, opts: CoalesceOptions = {}): Coalescer<T> {
  const { windowMs = COALESCE_WINDOW_MS, maxKeys = COALESCE_MAX_KEYS, burst = 1 } = opts;
  const entries = new Map<string, Entry<T>>();
  const end = (key: string) => {
    const e = entries.get(key);
    if (!e) return;
    entries.delete(key);
    clearTimeout(e.timer);
    if (e.more > 0) summarize(e.first, e.more, key === OVERFLOW);
  };
  const open = (key: string, first: T, written: number, more: number) => {
    // unref: a pending count never holds the process; close() flushes it at a clean stop.
    entries.set(key, { first, written, more, timer: setTimeout(() => end(key), windowMs).unref() });
  };
  return {
    admit(key, sample) {
      const e = entries.get(key);
      if (e) {
        if (e.written < burst && key !== OVERFLOW) {
          e.written++;
          return true;
        }
        e.more++;
        return false;
      }
      if (entries.size < maxKeys) {
        open(key, sample, 1, 0);
        return true;
      }
      const o = entries.get(OVERFLOW);
      if (o) o.more++;
      else open(OVERFLOW, sample, 0, 1); // never written in full: many keys would be many lines
      return false;
    },
    flush() {
      for (const key of [...entries.keys()]) end(key);
    },
  };
}
