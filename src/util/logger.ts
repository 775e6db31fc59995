// Log lines, timestamped, written in batches: stdout to a pipe or socket (journald) is a
// synchronous write(2) per call on Linux, so lines of one event-loop turn go out together.
// Every line starts with its syslog priority as journald reads it (sd-daemon(3): `<3>`
// error, `<4>` warning, `<6>` info), always, so `journalctl -p warning` sorts them.
import { isoTime } from './time.ts';

/** Where code logs: one function per priority, no prefix typed in strings. */
export interface Log {
  /** Something failed: an operator should look (`<3>`). */
  error(text: string): void;
  /** Degraded or ignored, the agent carries on (`<4>`). */
  warn(text: string): void;
  /** Normal operation (`<6>`). */
  info(text: string): void;
}

export interface Logger extends Log {
  /** Writes what is pending now (before exit). */
  flush(): void;
}

/** The journald priority prefixes (syslog levels 3, 4, 6). */
export const PRIORITY = { error: '<3>', warn: '<4>', info: '<6>' } as const;

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
  const line = (priority: string, text: string) => {
    const now = Date.now();
    if (now !== stampMs) {
      stampMs = now;
      stamp = isoTime(now);
    }
    // A stack trace's further lines carry the priority too (journald reads each line alone).
    const body = text.includes('\n') ? text.replaceAll('\n', `\n${priority}    `) : text;
    pending += `${priority}${stamp} ${body}\n`;
    if (pending.length >= maxPending) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return {
    error: (text) => line(PRIORITY.error, text),
    warn: (text) => line(PRIORITY.warn, text),
    info: (text) => line(PRIORITY.info, text),
    flush,
  };
}
