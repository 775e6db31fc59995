// The audit trail (docs/api.md, "Audit trail"): one JSON object per event, never a secret.
// Under systemd (JOURNAL_STREAM set: standard output is a journal stream) the agent sends
// each event to journald's native socket with the syslog identifier `device-agent-audit`,
// so `journalctl -t device-agent-audit -o cat` shows them and nothing else; the CLI (and
// the agent where the addon cannot load) uses a stream of its own with that identifier
// (the protocol systemd-cat speaks: a header of seven lines, then one entry per line).
// Elsewhere they go to standard output as `<6>audit <json>`. `audit.file` also appends them
// (0600), reopened on SIGHUP for logrotate. Identical denials in a flood are coalesced:
// the first in full, then one line of how many more came in 10 s (docs/behaviour.md,
// "Refusals in a flood").
import { closeSync, existsSync, openSync, writeSync, constants as C } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { nativeAddon } from '../native/addon.ts';
import { COALESCE_WINDOW_MS, coalescer } from '../util/coalesce.ts';
import { isoTime } from '../util/time.ts';

export const AUDIT_IDENTIFIER = 'device-agent-audit';
/** An event on standard output: info priority, as every log line carries one (docs/operations.md, "Log priorities"). */
export const STDOUT_PREFIX = '<6>audit ';
const JOURNAL_STDOUT = '/run/systemd/journal/stdout';
/** journald's native protocol socket (datagrams of KEY=value lines). */
const JOURNAL_SOCKET = '/run/systemd/journal/socket';

export type Outcome = 'ok' | 'denied' | 'failed';

export interface AuditEvent {
  event: string;
  outcome: Outcome;
  /** The user acted for; null when none is known (a failed login of an unknown name keeps the name tried). */
  user: string | null;
  credential: string;
  /** The client's address; 'local' for the CLI. */
  client: string;
  path?: string;
  to?: string;
  bytes?: number;
  status?: number;
  reason?: string;
  [extra: string]: unknown;
}

export interface Audit {
  record(event: AuditEvent): void;
  /** SIGHUP / config reload: the file (re)opened, or closed when null. */
  setFile(file: string | null): void;
  /** Resolves once what was recorded has left the process. */
  close(): Promise<void>;
}

/**
 * Where events go besides `audit.file`: `service` (the agent: the journal when its output
 * is one, else standard output); `cli` (the journal when the machine runs journald, else
 * only the file: the CLI's standard output is its answer).
 */
export type AuditMode = 'service' | 'cli';

/** Writes lines to the journal with its own identifier, or to standard output. */
function openSink(
  mode: AuditMode,
  onError: (text: string) => void,
  journalPath: string,
): { write(line: string): void; close(): Promise<void> } {
  const journal = mode === 'service' ? !!process.env.JOURNAL_STREAM : existsSync(journalPath);
  if (!journal) {
    const write =
      mode === 'service'
        ? (line: string) => {
            process.stdout.write(`${STDOUT_PREFIX}${line}\n`);
          }
        : () => {};
    return { write, close: async () => {} };
  }
  // Under the service: one datagram per event to journald's native socket, as
  // sd_journal_send(3) does (through the addon's sendmsg; Node has no datagram unix
  // sockets). The stream protocol below carried the CLI's events, but under the packaged
  // unit's sandbox the agent's own never reached the journal (test/system-vm.test.ts).
  const addon = mode === 'service' ? nativeAddon() : undefined;
  if (addon && !(addon instanceof Error)) {
    let failed = false;
    return {
      write: (line) => {
        const r = failed ? -1 : addon.notify(JOURNAL_SOCKET, `SYSLOG_IDENTIFIER=${AUDIT_IDENTIFIER}\nPRIORITY=6\nMESSAGE=${line}\n`);
        if (r === 0) return;
        if (!failed) onError(`audit trail: journal socket ${JOURNAL_SOCKET}: errno ${-r}; events go to standard output`);
        failed = true;
        process.stdout.write(`${STDOUT_PREFIX}${line}\n`);
      },
      close: async () => {},
    };
  }
  let socket: Socket | undefined;
  let broken = false;
  const open = () => {
    const s = connect(journalPath);
    // identifier, unit id, priority (6 info), level prefix off, syslog, kmsg, console off
    s.write(`${AUDIT_IDENTIFIER}\n\n6\n0\n0\n0\n0\n`);
    s.on('error', (err) => {
      if (!broken) onError(`audit trail: journal stream ${journalPath}: ${err.message}`);
      broken = true;
      socket = undefined;
    });
    s.unref();
    return s;
  };
  return {
    write: (line) => {
      if (!broken) {
        socket ??= open();
        socket.write(`${line}\n`);
      } else if (mode === 'service') {
        process.stdout.write(`${STDOUT_PREFIX}${line}\n`);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (!socket) return resolve();
        // Held open until its end is sent: the stream is unref'd so that it never keeps the
        // agent alive, and an unref'd socket alone let the CLI exit in the middle of this
        // await, before it printed the token it had just made.
        socket.ref();
        socket.once('close', () => resolve());
        socket.end();
      }),
  };
}

export function createAudit(
  file: string | null,
  onError: (text: string) => void,
  mode: AuditMode = 'service',
  journalPath = JOURNAL_STDOUT,
): Audit {
  const sink = openSink(mode, onError, journalPath);
  let fd: number | undefined;
  const setFile = (path: string | null) => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
    if (path === null) return;
    try {
      fd = openSync(path, C.O_WRONLY | C.O_APPEND | C.O_CREAT | C.O_NOFOLLOW, 0o600);
    } catch (err) {
      onError(`audit trail: could not open audit.file ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`);
    }
  };
  setFile(file);
  const write = (event: AuditEvent) => {
    const line = JSON.stringify({ time: isoTime(Date.now()), ...event });
    sink.write(line);
    if (fd !== undefined) {
      try {
        writeSync(fd, `${line}\n`);
      } catch (err) {
        onError(`audit trail: could not write audit.file: ${(err as NodeJS.ErrnoException).code ?? err}`);
      }
    }
  };
  const denials = coalescer<AuditEvent>((first, more, overflow) => write(coalesced(first, more, overflow)));
  return {
    record(event) {
      // Denials (no valid credential, a missing scope, a path outside) are what a client can
      // repeat at will; every other event is bounded by what it does (a login by scrypt).
      if (event.outcome === 'denied' && !denials.admit(denialKey(event), event)) return;
      write(event);
    },
    setFile,
    close() {
      denials.flush();
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
      return sink.close();
    },
  };
}

/** Identical denials: the same event, outcome, user, credential, client, status and reason (not the path). */
function denialKey(e: AuditEvent): string {
  return JSON.stringify([e.event, e.user, e.credential, e.client, e.status ?? null, e.reason ?? null]);
}

/**
 * The line that stands for `more` denials after `first` in the window: its fields without
 * the path (which differed), plus `more` and `seconds`. The overflow's (too many keys at
 * once) names no one: client and credential `*`, user null.
 */
function coalesced(first: AuditEvent, more: number, overflow: boolean): AuditEvent {
  const seconds = COALESCE_WINDOW_MS / 1000;
  if (overflow) return { event: first.event, outcome: 'denied', user: null, credential: '*', client: '*', more, seconds };
  const { path: _path, to: _to, ...fields } = first;
  return { ...fields, more, seconds };
}

/**
 * The agent deleted a file it keeps: `reason` "retention" (its limits), "disk" (free space
 * below the floor) or "uploaded" (outbox.deleteAfterUpload). `uploaded` says, with the outbox
 * on, whether the file had a verified upload; absent otherwise.
 */
export function auditDeleted(
  audit: Audit,
  path: string,
  bytes: number,
  reason: 'retention' | 'disk' | 'uploaded',
  uploaded?: boolean,
): void {
  audit.record({
    event: 'delete',
    outcome: 'ok',
    user: null,
    credential: 'agent',
    client: 'local',
    path,
    bytes,
    reason,
    ...(uploaded === undefined ? {} : { uploaded }),
  });
}

/** An audit that records nothing (tests of units that take one). */
export const NO_AUDIT: Audit = { record: () => {}, setFile: () => {}, close: async () => {} };
