// Log lines, timestamped, written in batches: stdout to a pipe or socket (journald) is a
// synchronous write(2) per call on Linux, so lines of one event-loop turn go out together.

export interface Logger {
  line(text: string): void;
  /** Writes what is pending now (before exit). */
  flush(): void;
}

export function createLogger(write: (chunk: string) => void, maxPending = 64 * 1024): Logger {
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (!pending) return;
    const chunk = pending;
    pending = '';
    write(chunk);
  };
  return {
    line(text: string) {
      pending += `${new Date().toISOString()} ${text}\n`;
      if (pending.length >= maxPending) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}
