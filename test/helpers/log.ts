// The agent's log as tests read it: every line is `<priority>ISO-time text` (src/util/logger.ts),
// and in-process parts of the agent log into collectLog() instead.
import { PRIORITY, type Log } from '../../src/util/logger.ts';

/** A Log keeping each line as `<priority>text` (no time), so a test can pin the priority too. */
export function collectLog(lines: string[] = []): Log & { lines: string[] } {
  return {
    lines,
    error: (text) => {
      lines.push(PRIORITY.error + text);
    },
    warn: (text) => {
      lines.push(PRIORITY.warn + text);
    },
    info: (text) => {
      lines.push(PRIORITY.info + text);
    },
  };
}

export const silentLog: Log = collectLog([]);

export interface LogLine {
  /** The syslog priority: 3 error, 4 warning, 6 info. */
  priority: number;
  time: string;
  text: string;
}

const LINE = /^<([0-7])>(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (.*)$/;

/** The log lines in an agent's output, parsed; anything else (stderr mixed in) is left out. */
export function logLines(output: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const l of output.split('\n')) {
    const m = LINE.exec(l);
    if (m) lines.push({ priority: Number(m[1]), time: m[2]!, text: m[3]! });
  }
  return lines;
}

/** Lines of output without a priority prefix (audit events carry one too: `<6>audit <json>`). */
export function unprefixed(output: string): string[] {
  return output.split('\n').filter((l) => l !== '' && !/^<[0-7]>/.test(l));
}

/** The audit events an agent wrote to standard output (`<6>audit <json>`, docs/api.md, "Audit trail"). */
export function auditEvents(output: string): any[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('<6>audit {'))
    .map((l) => JSON.parse(l.slice('<6>audit '.length)));
}
