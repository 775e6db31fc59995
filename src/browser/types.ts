// The API's records as docs/api.md#device-status, docs/api.md#audio-recording, docs/api.md#https, docs/api.md#more-api fix them.

// One definition with the agent's code: type-only imports, erased by the bundler.
export type { StatusRecord as DeviceStatus } from '../status/sampler.ts';
export type { RecordingRecord as Recording, RecordingState } from '../audio/record.ts';

export type { ListEntry as Entry } from '../files/list.ts';
import type { listDirectory } from '../files/list.ts';
import type { MqttStatus } from '../mqtt/status.ts';
/** GET /api/v1/files/list's answer. */
export type Listing = Awaited<ReturnType<typeof listDirectory>>;

/** GET /api/v1/tls (docs/api.md#https), on agents that have it. */
export interface TlsInfo {
  enabled: boolean;
  fingerprint?: string;
  spkiPin?: string;
  notAfter?: string;
  selfSigned?: boolean;
}

/** Login's `user` (docs/api.md, "Roles"): what the page offers follows its scopes. */
export interface Me {
  id: string;
  username: string;
  role: string;
  scopes: string[];
  directory: string | null;
}

export type { TokenRecord } from '../auth/api-tokens.ts';

/** GET /api/v1/outbox (docs/outbox.md, "API"); `{"enabled": false, "state": "off"}` with the outbox off. */
export type OutboxState =
  | { enabled: false; state: 'off' }
  | {
      enabled: true;
      state: 'idle' | 'uploading' | 'waiting';
      pending: { files: number; bytes: number };
      failed: { path: string; error: string; since: string }[];
      uploaded: { files: number; bytes: number };
      lastSuccessAt: string | null;
      lastError: { time: string; text: string } | null;
      nextAttemptAt: string | null;
    };

/** GET /api/v1/mqtt (docs/mqtt.md); `{"enabled": false}` with no `mqtt` configured. */
export type MqttState = MqttStatus | { enabled: false };
