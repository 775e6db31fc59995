// The recording status record (docs/api.md#the-recording-status-record) and its file, which keeps the last one across restarts.
import { replaceFile } from '../util/atomic.ts';
import { readFileSync } from 'node:fs';
import type { AudioFormat } from './argv.ts';
import type { Log } from '../util/logger.ts';

/** The states of a recording (docs/api.md#the-recording-status-record), for the code and the OpenAPI document. */
export const RECORDING_STATES = ['idle', 'recording', 'finished', 'failed'] as const;
export type RecordingState = (typeof RECORDING_STATES)[number];

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
  /** The ALSA device, rate and channels recorded (docs/behaviour.md, "Audio"). */
  device: string | null;
  sampleRate: number | null;
  channels: number | null;
  /** The loudest sample of what was recorded; null until it ends. */
  peakDbfs: number | null;
  stoppedBy: StoppedBy | null;
}

/** What ended a recording, for the code and the OpenAPI document. */
export const STOPPED_BY = ['duration', 'request', 'size', 'disk', 'shutdown'] as const;
export type StoppedBy = (typeof STOPPED_BY)[number];

export const IDLE: RecordingRecord = Object.freeze({
  state: 'idle',
  fileExtension: null,
  durationSeconds: null,
  startedAt: null,
  finishedAt: null,
  file: null,
  sizeBytes: null,
  error: null,
  device: null,
  sampleRate: null,
  channels: null,
  peakDbfs: null,
  stoppedBy: null,
});

const STATES = new Set<string>(RECORDING_STATES);

/**
 * The stored record, or IDLE when there is none or it is unreadable (logged). A record
 * still "recording" means the agent died mid-recording (SIGKILL, power loss): it failed.
 */
export function loadRecord(file: string, log: Log): RecordingRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log.warn(`ignoring unreadable recording state ${file}: ${String(err)}`);
    return IDLE;
  }
  const r = raw as RecordingRecord;
  if (typeof r !== 'object' || r === null || !STATES.has(r.state)) {
    log.warn(`ignoring recording state ${file}: not a status record`);
    return IDLE;
  }
  const record = { ...IDLE, ...r };
  if (record.state === 'recording') {
    return {
      ...record,
      state: 'failed',
      finishedAt: null,
      file: null,
      sizeBytes: null,
      stoppedBy: null,
      error: 'the agent stopped during the recording (killed or powered off); nothing was kept',
    };
  }
  return record;
}

/** Replaces the file atomically (src/util/atomic.ts). */
export function saveRecord(file: string, record: RecordingRecord): void {
  replaceFile(file, JSON.stringify(record, null, 2) + '\n', { mode: 0o644 });
}
