// Log lines, timestamped, written in batches: stdout to a pipe or socket (journald) is a
// synchronous write(2) per call on Linux, so lines of one event-loop turn go out together.
import { isoTime } from './time.ts';

export interface Logger {
  line(text: string): void;
  /** Writes what is pending now (before exit). */
  flush(): void;
}

export function createLogger(write: (chunk: string) => void, maxPending = 64 * 1024): Logger {
  let pending = '';
  let scheduled = false;
  // One ISO timestamp per millisecond: formatting it costs more than the rest of a line.
  let stampMs = 0;
  let stamp = '';
  const flush = () => {
    scheduled = false;
    if (!pending) return;
    const chunk = pending;
    pending = '';
    write(chunk);
  };
  return {
    line(text: string) {
      const now = Date.now();
      if (now !== stampMs) {
        stampMs = now;
        stamp = isoTime(now);
      }
      pending += `${stamp} ${text}\n`;
      if (pending.length >= maxPending) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}
