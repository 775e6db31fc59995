// The recording status record (CONTRACT §5) and its file, which keeps the last one across restarts.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AudioFormat } from './argv.ts';

export type RecordingState = 'idle' | 'recording' | 'finished' | 'failed';

export interface RecordingRecord {
  state: RecordingState;
  fileExtension: AudioFormat | null;
  durationSeconds: number | null;
  startedAt: string | null;
  finishedAt: string | null;
  /** Relative to baseDir: the `filepath` for /api/download. */
  file: string | null;
  sizeBytes: number | null;
  error: string | null;
}

export const IDLE: RecordingRecord = Object.freeze({
  state: 'idle', fileExtension: null, durationSeconds: null, startedAt: null, finishedAt: null,
  file: null, sizeBytes: null, error: null,
});

const STATES = new Set(['idle', 'recording', 'finished', 'failed']);

/**
 * The stored record, or IDLE when there is none or it is unreadable (logged). A record
 * still "recording" means the agent died mid-recording (SIGKILL, power loss): it failed.
 */
export function loadRecord(file: string, log: (line: string) => void): RecordingRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log(`ignoring unreadable recording state ${file}: ${String(err)}`);
    return IDLE;
  }
  const r = raw as RecordingRecord;
  if (typeof r !== 'object' || r === null || !STATES.has(r.state)) {
    log(`ignoring recording state ${file}: not a status record`);
    return IDLE;
  }
  const record = { ...IDLE, ...r };
  if (record.state === 'recording') {
    return {
      ...record, state: 'failed', finishedAt: null, file: null, sizeBytes: null,
      error: 'the agent stopped during the recording (killed or powered off); nothing was kept',
    };
  }
  return record;
}

/** Replaces the file atomically (temp, fsync, rename, fsync of the directory). */
export function saveRecord(file: string, record: RecordingRecord): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o644);
  try {
    writeSync(fd, JSON.stringify(record, null, 2) + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, file);
  } catch (err) {
    try { unlinkSync(tmp); } catch { /* the temp file is already gone */ }
    throw err;
  }
  const dfd = openSync(dirname(file), 'r');
  try { fsyncSync(dfd); } finally { closeSync(dfd); }
}
