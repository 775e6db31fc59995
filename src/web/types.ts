// The API's records as CONTRACT §4, §5 and §11 fix them (only the fields the page reads).

export interface DeviceStatus {
  hostname: string;
  distro: string;
  kernel: string;
  arch: string;
  uptimeSeconds: number;
  time: string;
  cpu: { model: string; cores: number; loadPercent: number | null; temperatureCelsius: number | null };
  memory: { totalBytes: number; usedBytes: number; availableBytes: number };
  disk: { path: string; totalBytes: number; usedBytes: number; availableBytes: number };
  agent: { version: string; uptimeSeconds: number };
}

export type RecordingState = 'idle' | 'recording' | 'finished' | 'failed';

export interface Recording {
  state: RecordingState;
  fileExtension: string | null;
  durationSeconds: number | null;
  startedAt: string | null;
  finishedAt: string | null;
  file: string | null;
  sizeBytes: number | null;
  error: string | null;
}

export interface Entry {
  name: string;
  type: 'file' | 'directory';
  sizeBytes: number | null;
  modifiedAt: string;
}

export interface Listing {
  path: string;
  entries: Entry[];
}

/** GET /api/v1/tls (CONTRACT §8), on agents that have it. */
export interface TlsInfo {
  enabled: boolean;
  fingerprint?: string;
  spkiPin?: string;
  notAfter?: string;
  selfSigned?: boolean;
}
