// The records the library takes and returns, by name, from the generated src/openapi.ts
// (the agent's OpenAPI document); the few written here say why.
import type { components, operations } from './openapi.ts';

type Schemas = components['schemas'];
/** The JSON body an operation takes, as the document declares it (inline in the operation). */
type Body<Id extends keyof operations> = operations[Id] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
/** The JSON an operation answers with 200, as the document declares it (inline in the operation). */
type Answer<Id extends keyof operations> = operations[Id] extends { responses: { 200: { content: { 'application/json': infer A } } } }
  ? A
  : never;

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

export type RecordingStatus = Schemas['RecordingStatus'];

/** The start's body: fields with a default (sampleRate, channels) are optional. */
export type RecordStart = Body<'recordStart'>;

export type TokenRecord = Schemas['Token'];
/** A token as created: the record and its text, shown this once. */
export type CreatedToken = Schemas['NewToken'];
export type TokenCreate = Body<'createToken'>;
export type UserRecord = Schemas['UserList']['users'][number];

export type AudioDevices = Schemas['AudioDevices'];
export type AudioDevice = AudioDevices['devices'][number];
export type AudioLevel = Schemas['AudioLevel'];

/** One server-sent event of GET /api/v1/events: `status`, `recording` or `level`, its data parsed. */
export type AgentEvent =
  | { event: 'status'; data: DeviceStatus }
  | { event: 'recording'; data: RecordingStatus }
  | { event: 'level'; data: { device: string; peakDbfs: number; rmsDbfs: number } }
  | { event: string; data: unknown };

/** GET /api/v1/mqtt. */
export type MqttStatus = Answer<'mqttStatus'>;
/** GET /api/v1/outbox, and POST /api/v1/outbox/retry's 202. */
export type OutboxState = Answer<'outboxState'>;

/** A recording schedule (docs/schedule.md of the agent): the document as sent; GET answers it with every default filled in. */
export type ScheduleDocument = Record<string, unknown>;

/**
 * GET and PUT /api/v1/schedule. Written here (as SchedulePreview): the document declares
 * these answers without `required` and their window, next and lastSegment as bare objects,
 * so the generated types have every field optional and those records empty.
 */
export interface ScheduleAnswer {
  schedule: ScheduleDocument | null;
  state: {
    state: 'off' | 'waiting' | 'recording';
    reason: string | null;
    window: { start: string; end: string } | null;
    next: { start: string; end: string } | null;
    lastSegment: { file: string; startedAt: string; durationSeconds: number; sizeBytes: number } | null;
  };
}

/** GET and POST /api/v1/schedule/preview. */
export interface SchedulePreview {
  windows: { start: string; end: string; on: [string, string][] }[];
  skipped: { date: string; window: number; reason: string }[];
}
