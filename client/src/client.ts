// DeviceAgent: one method per route of the agent's API, over one Transport (base URL,
// token, TLS trust). Non-2xx answers throw ApiError; file bodies stream both ways.
import { statSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { basename } from 'node:path';
import {
  downloadHead,
  downloadRequest,
  downloadToFile,
  type DownloadHead,
  type DownloadToFileOptions,
  type Progress,
  type SavedFile,
} from './download.ts';
import { multipartBody, type UploadPart } from './multipart.ts';
import { rawPost } from './raw-http.ts';
import { readEvents } from './sse.ts';
import { Transport, readText } from './transport.ts';
import type {
  AgentEvent,
  AudioDevices,
  AudioFormat,
  AudioLevel,
  CreatedToken,
  DeviceStatus,
  FileList,
  Health,
  LoginResponse,
  MqttStatus,
  OutboxState,
  RecordingStatus,
  RecordStart,
  ScheduleAnswer,
  ScheduleDocument,
  SchedulePreview,
  TlsInfo,
  TokenCreate,
  TokenRecord,
  UploadResult,
  UserRecord,
} from './types.ts';

export interface DeviceAgentOptions {
  /** Base URL of the agent, e.g. `https://10.0.0.5:5050`. */
  url: string;
  /** A login token or an API token (`dat_...`). */
  token?: string;
  /** Trust this key only (`sha256//<base64>`): for a device with a self-signed certificate. */
  pin?: string;
  /** PEM text of the CA(s) that issue the device's certificate. */
  ca?: string;
  /** Idle time before a request fails, in ms (default 60000; 0: none). */
  timeoutMs?: number;
}

/** Progress of a transfer: bytes done so far (a resumed download counts from its offset) of total (null: unknown). */
export type { Progress };

export interface DownloadOptions {
  /** Bytes from `start` (to `end`, inclusive) only: 206. */
  range?: { start: number; end?: number };
  /** With `range`: an ETag or Last-Modified the file must still have, else the whole file comes (200). */
  ifRange?: string;
  fstype?: string;
  signal?: AbortSignal;
}

/** An answer of GET /api/download whose body is still to be read. */
export interface Download extends DownloadHead {
  status: number;
  body: IncomingMessage;
}

/** A file for upload(): a local path, or a name, a size and a stream. */
export type UploadSource = string | UploadPart;

export interface UploadOptions {
  onProgress?: Progress;
  fstype?: string;
  signal?: AbortSignal;
}

const enc = encodeURIComponent;

function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const parts = Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${enc(k)}=${enc(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

export class DeviceAgent {
  readonly transport: Transport;

  constructor(opts: DeviceAgentOptions) {
    this.transport = new Transport(opts.url, { pin: opts.pin, ca: opts.ca }, opts.token, opts.timeoutMs);
  }

  get url(): string {
    return this.transport.base.origin;
  }

  /** The bearer token in use (set by login()). */
  get token(): string | undefined {
    return this.transport.token;
  }

  set token(value: string | undefined) {
    this.transport.token = value;
  }

  /** POST /api/v1/agentusers/loginusertoagent; the token it returns is used from now on. */
  async login(username: string, password: string): Promise<LoginResponse> {
    const answer = await this.transport.json<LoginResponse>(
      'POST',
      '/api/v1/agentusers/loginusertoagent',
      { username, password },
      { anonymous: true },
    );
    this.transport.token = answer.token;
    return answer;
  }

  health(): Promise<Health> {
    return this.transport.json('GET', '/api/v1/health', undefined, { anonymous: true });
  }

  /** The HTTPS certificate in service (fingerprint, pin, names), or `{enabled: false}`. */
  tls(): Promise<TlsInfo> {
    return this.transport.json('GET', '/api/v1/tls', undefined, { anonymous: true });
  }

  status(): Promise<DeviceStatus> {
    return this.transport.json('GET', '/api/v1/devicestatus/get');
  }

  /** Starts a recording (202 with the status record). */
  startRecording(start: RecordStart): Promise<RecordingStatus> {
    return this.transport.json('POST', '/api/v1/audiofiles/audiorecordstart', start);
  }

  recording(): Promise<RecordingStatus> {
    return this.transport.json('GET', '/api/v1/audiofiles/audiorecordstatus');
  }

  /** Ends the running recording now (409 when none runs). */
  stopRecording(): Promise<RecordingStatus> {
    return this.transport.json('POST', '/api/v1/audiofiles/audiorecordstop');
  }

  /**
   * Polls the recording status until it is no longer `recording`; resolves with the final
   * record. Until the recording's planned end it asks every 5 s at most (a stop from
   * elsewhere is seen), then every `intervalMs` (default 250).
   */
  async waitForRecording(opts: { intervalMs?: number; signal?: AbortSignal } = {}): Promise<RecordingStatus> {
    const interval = opts.intervalMs ?? 250;
    for (;;) {
      const record = await this.recording();
      if (record.state !== 'recording') return record;
      const end = record.startedAt && record.durationSeconds !== null ? Date.parse(record.startedAt) + record.durationSeconds * 1000 : NaN;
      const wait = Number.isFinite(end) ? Math.min(5000, Math.max(interval, end - Date.now())) : interval;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, wait);
        opts.signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            reject(opts.signal!.reason);
          },
          { once: true },
        );
      });
    }
  }

  /** GET /api/v1/files/list: a directory's entries, directories first. */
  list(path = '', opts: { fstype?: string } = {}): Promise<FileList> {
    return this.transport.json('GET', `/api/v1/files/list${query({ path: path || undefined, fstype: opts.fstype })}`);
  }

  /** GET /api/download: the answer's head, its body left to read (stream it, never buffer it). */
  async download(filepath: string, opts: DownloadOptions = {}): Promise<Download> {
    const { path, headers } = downloadRequest(filepath, opts);
    const body = await this.transport.ok({ method: 'GET', path, headers, signal: opts.signal });
    const status = body.statusCode ?? 0;
    try {
      return { status, body, ...downloadHead(status, body.headers) };
    } catch (err) {
      body.destroy();
      throw err;
    }
  }

  /** HEAD /api/download: the file's size and validators without its bytes. */
  async fileInfo(
    filepath: string,
    opts: { fstype?: string } = {},
  ): Promise<{ sizeBytes: number; etag: string | null; lastModified: string | null; contentType: string | null }> {
    const res = await this.transport.ok({ method: 'HEAD', path: `/api/download${query({ filepath, fstype: opts.fstype })}` });
    res.resume();
    const h = (name: string) => (res.headers[name] as string | undefined) ?? null;
    return {
      sizeBytes: Number(res.headers['content-length']),
      etag: h('etag'),
      lastModified: h('last-modified'),
      contentType: h('content-type'),
    };
  }

  /**
   * Downloads into a local file, resuming a partial one left by an earlier call (Range +
   * If-Range with the file's ETag: a file changed on the device meanwhile comes whole),
   * and checks the length. Memory stays flat whatever the size.
   */
  downloadToFile(filepath: string, dest: string, opts: DownloadToFileOptions = {}): Promise<SavedFile> {
    return downloadToFile(this, filepath, dest, opts);
  }

  /**
   * POST /api/upload of one or more files, streamed. `saveToPath` names the target file, or a
   * directory (ending in `/`, or existing on the device) where each file keeps its name.
   */
  async upload(files: UploadSource[], saveToPath: string, opts: UploadOptions = {}): Promise<UploadResult> {
    const parts: UploadPart[] = await Promise.all(
      files.map(async (f) => {
        if (typeof f !== 'string') return f;
        const info = statSync(f); // no thread-pool round trip before the request can leave
        if (!info.isFile()) throw new Error(`${f} is not a file`);
        return { name: basename(f), size: info.size, path: f };
      }),
    );
    const total = parts.reduce((s, p) => s + p.size, 0);
    let done = 0;
    opts.onProgress?.({ bytes: 0, total });
    const fields: Record<string, string> = { saveToPath };
    if (opts.fstype) fields.fstype = opts.fstype;
    const { write, length, contentType } = multipartBody(fields, parts, (n) => {
      done += n;
      opts.onProgress?.({ bytes: done, total });
    });
    // Its own connection, the body written straight onto the socket (raw-http.ts).
    const text = await rawPost({
      transport: this.transport,
      path: '/api/upload',
      write,
      signal: opts.signal,
      headers: { 'Content-Type': contentType, 'Content-Length': length, Accept: 'application/json' },
    });
    return JSON.parse(text) as UploadResult;
  }

  /** DELETE /api/v1/files: a file, a link, an empty directory, or with `recursive` any directory. */
  async remove(path: string, opts: { recursive?: boolean; fstype?: string } = {}): Promise<void> {
    await this.transport.json(
      'DELETE',
      `/api/v1/files${query({ path, recursive: opts.recursive ? 'true' : undefined, fstype: opts.fstype })}`,
    );
  }

  /** POST /api/v1/files/mkdir: parents made as needed. */
  mkdir(path: string): Promise<{ path: string }> {
    return this.transport.json('POST', '/api/v1/files/mkdir', { path });
  }

  /** POST /api/v1/files/move: `to` must not exist unless `overwrite`. */
  move(from: string, to: string, opts: { overwrite?: boolean } = {}): Promise<{ path: string }> {
    return this.transport.json('POST', '/api/v1/files/move', { from, to, ...(opts.overwrite ? { overwrite: true } : {}) });
  }

  /** GET /api/v1/audio/devices: the capture devices present now. */
  devices(): Promise<AudioDevices> {
    return this.transport.json('GET', '/api/v1/audio/devices');
  }

  /** GET /api/v1/audio/level: peak and RMS of the device's input over `seconds` (0.2-10, default 1). */
  level(opts: { device?: string; seconds?: number } = {}): Promise<AudioLevel> {
    return this.transport.json('GET', `/api/v1/audio/level${query({ device: opts.device, seconds: opts.seconds })}`);
  }

  /** GET /api/v1/audio/live: the device's input as it is captured, for as long as the stream is read. */
  async live(opts: { format?: AudioFormat; device?: string; signal?: AbortSignal } = {}): Promise<IncomingMessage> {
    return this.transport.ok({
      method: 'GET',
      path: `/api/v1/audio/live${query({ format: opts.format ?? 'wav', device: opts.device })}`,
      signal: opts.signal,
      timeoutMs: 0,
    });
  }

  /** GET /api/v1/events: status, recording and level events until the signal aborts or the stream ends. */
  async *events(opts: { signal?: AbortSignal } = {}): AsyncGenerator<AgentEvent> {
    const res = await this.transport.ok({
      method: 'GET',
      path: '/api/v1/events',
      headers: { Accept: 'text/event-stream' },
      signal: opts.signal,
      timeoutMs: 0,
    });
    try {
      for await (const e of readEvents(res)) yield { event: e.event, data: JSON.parse(e.data) } as AgentEvent;
    } finally {
      res.destroy();
    }
  }

  /** POST /api/v1/tokens: the record and, this once, the token's text. */
  createToken(spec: TokenCreate): Promise<CreatedToken> {
    return this.transport.json('POST', '/api/v1/tokens', spec);
  }

  /** GET /api/v1/tokens: the caller's tokens (everyone's with scope admin). */
  async tokens(): Promise<TokenRecord[]> {
    return (await this.transport.json<{ tokens: TokenRecord[] }>('GET', '/api/v1/tokens')).tokens;
  }

  async revokeToken(id: string): Promise<void> {
    await this.transport.json('DELETE', `/api/v1/tokens/${enc(id)}`);
  }

  /** GET /api/v1/schedule: the stored schedule (defaults filled in, or null) and what it does now. */
  schedule(): Promise<ScheduleAnswer> {
    return this.transport.json('GET', '/api/v1/schedule');
  }

  /** PUT /api/v1/schedule: stores a schedule, applied at once (a wrong field: 400 naming it by path). */
  setSchedule(schedule: ScheduleDocument): Promise<ScheduleAnswer> {
    return this.transport.json('PUT', '/api/v1/schedule', schedule);
  }

  /** DELETE /api/v1/schedule: a running segment ends and is kept. */
  async clearSchedule(): Promise<void> {
    await this.transport.json('DELETE', '/api/v1/schedule');
  }

  /** The windows that begin on `days` days from `from`: of the stored schedule, or of `schedule` (not stored). */
  schedulePreview(opts: { schedule?: ScheduleDocument; from?: string; days?: number } = {}): Promise<SchedulePreview> {
    if (opts.schedule) return this.transport.json('POST', '/api/v1/schedule/preview', opts);
    return this.transport.json('GET', `/api/v1/schedule/preview${query({ from: opts.from, days: opts.days })}`);
  }

  /** GET /api/v1/mqtt: the MQTT link, connected or not, since when, its last error (`{enabled: false}` when none is configured). */
  mqtt(): Promise<MqttStatus> {
    return this.transport.json('GET', '/api/v1/mqtt');
  }

  /** GET /api/v1/outbox: pending, set-aside and uploaded files, the last error, the next attempt (`{enabled: false, state: 'off'}` when off). */
  outbox(): Promise<OutboxState> {
    return this.transport.json('GET', '/api/v1/outbox');
  }

  /** POST /api/v1/outbox/retry: the next attempt now, set-aside files included (202 with the state; 409 with the outbox off). */
  retryOutbox(): Promise<OutboxState> {
    return this.transport.json('POST', '/api/v1/outbox/retry');
  }

  /** GET /api/v1/users (scope admin). */
  async users(): Promise<UserRecord[]> {
    return (await this.transport.json<{ users: UserRecord[] }>('GET', '/api/v1/users')).users;
  }

  /** GET /metrics: the Prometheus text. */
  async metrics(): Promise<string> {
    return readText(await this.transport.ok({ method: 'GET', path: '/metrics' }));
  }

  /** GET /docs/openapi.json: the OpenAPI document of this agent's API. */
  openapi(): Promise<Record<string, unknown>> {
    return this.transport.json('GET', '/docs/openapi.json', undefined, { anonymous: true });
  }

  /** Closes idle keep-alive connections, so a program can exit at once. */
  close(): void {
    this.transport.close();
  }
}
