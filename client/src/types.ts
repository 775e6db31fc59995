// The records the library returns, by name. Those the agent's OpenAPI document describes
// come from the generated src/openapi.ts; the others (routes the document does not
// describe yet) are written here from the API's rules, and move to the generated types
// once it does.
import type { components } from './openapi.ts';

type Schemas = components['schemas'];

export type { components, paths, operations } from './openapi.ts';

export type Scope = Schemas['Token']['scopes'][number];

export type DeviceStatus = Schemas['DeviceStatus'];
export type Health = Schemas['Health'];
export type TlsInfo = Schemas['TlsInfo'];
export type FileList = Schemas['FileList'];
export type FileEntry = FileList['entries'][number];
export type UploadResult = Schemas['UploadResult'];
export type AudioFormat = 'flac' | 'wav' | 'mp3';

export type LoginResponse = Schemas['LoginResponse'];

/** The recording status record; the fields after `state` come with agents that choose devices. */
export type RecordingStatus = Schemas['RecordingStatus'] & {
  device?: string | null;
  sampleRate?: number | null;
  channels?: number | null;
  peakDbfs?: number | null;
  stoppedBy?: 'duration' | 'request' | 'size' | 'disk' | 'shutdown' | null;
};

export interface RecordStart {
  /** Seconds, 0 < duration <= the agent's audio.maxDurationSeconds. */
  duration: number;
  fileExtension: AudioFormat;
  /** An id of devices(); default: the agent's audio.device. */
  device?: string;
  /** 8000-192000, default 48000. */
  sampleRate?: number;
  /** 1 or 2, default 1. */
  channels?: 1 | 2;
}

export type TokenRecord = Schemas['Token'];
/** A token as created: the record and its text, shown this once. */
export type CreatedToken = Schemas['NewToken'];
export type TokenCreate = Schemas['TokenRequest'];
export type UserRecord = Schemas['UserList']['users'][number];

export interface AudioDevice {
  id: string;
  name: string;
  description: string;
  default: boolean;
}

export interface AudioDevices {
  configured: string;
  devices: AudioDevice[];
}

export interface AudioLevel {
  device: string;
  seconds: number;
  peakDbfs: number;
  rmsDbfs: number;
  clipped: boolean;
}

/** One server-sent event of GET /api/v1/events: `status`, `recording` or `level`, its data parsed. */
export type AgentEvent =
  | { event: 'status'; data: DeviceStatus }
  | { event: 'recording'; data: RecordingStatus }
  | { event: 'level'; data: { device: string; peakDbfs: number; rmsDbfs: number } }
  | { event: string; data: unknown };
