// The API's records as CONTRACT §4, §5, §8 and §11 fix them.

// One definition with the agent's code: type-only imports, erased by the bundler.
export type { StatusRecord as DeviceStatus } from '../status/sampler.ts';
export type { RecordingRecord as Recording, RecordingState } from '../audio/record.ts';

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
