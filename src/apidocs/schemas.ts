// The JSON schemas of the OpenAPI document (components.schemas): every record the API
// sends or receives, as docs/api.md#routes and docs/api.md#authentication, docs/api.md#device-status, docs/api.md#audio-recording fix them. Closed (no extra fields)
// so that a response the document does not describe fails the drift test.
import { FORMATS } from '../audio/argv.ts';
import { RECORDING_STATES, STOPPED_BY } from '../audio/record.ts';
import { ROLES } from '../auth/scopes.ts';
import { SCOPES } from '../http/types.ts';
import { MAX_ENTRIES } from '../files/list.ts';

type Schema = Record<string, unknown>;

const nullable = (type: string, extra: Schema = {}): Schema => ({ type: [type, 'null'], ...extra });
const closed = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({
  type: 'object',
  required: Object.keys(properties),
  properties,
  additionalProperties: false,
  ...extra,
});

const bytes = nullable('integer', { minimum: 0 });

const TOKEN_PROPERTIES: Record<string, Schema> = {
  id: { type: 'string' },
  name: { type: 'string' },
  username: { type: 'string', description: 'the user the token acts for' },
  scopes: { type: 'array', items: { enum: [...SCOPES] } },
  directory: nullable('string'),
  createdAt: { type: 'string', format: 'date-time' },
  expiresAt: nullable('string', { format: 'date-time', description: 'null: never' }),
  lastUsedAt: nullable('string', { format: 'date-time', description: 'may lag up to 60 s' }),
  lastUsedFrom: nullable('string', { description: 'client address of the last use' }),
};

export const schemas: Record<string, Schema> = {
  Error: closed({ error: { type: 'string', description: 'What went wrong, in the exact text the spec fixes.' } }),

  LoginRequest: closed({
    username: { type: 'string', description: 'agent user name' },
    password: { type: 'string', format: 'password', description: 'agent user password' },
  }),

  LoginResponse: closed({
    token: { type: 'string', description: 'JSON Web Token (HS256) to send as `Authorization: Bearer <token>`' },
    user: closed({
      id: { type: 'string', description: 'user identifier' },
      username: { type: 'string', description: 'user name' },
      role: { enum: [...ROLES] },
      scopes: { type: 'array', items: { enum: [...SCOPES] }, description: "what the token may do (the role's scopes)" },
      directory: nullable('string', { description: 'the directory (relative to the base) every file route is confined to; null: none' }),
    }),
  }),

  TokenRequest: {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', pattern: '^[A-Za-z0-9._@-]{1,64}$', description: 'unique per user' },
      scopes: { type: 'array', items: { enum: [...SCOPES] }, description: "default: all of the caller's" },
      directory: nullable('string', { description: "relative to the base; default: the caller's" }),
      expiresInDays: nullable('integer', { minimum: 1, maximum: 3650, description: 'default 365; null: never' }),
      username: { type: 'string', description: 'admin only: make the token for this user' },
    },
  },

  Token: closed(TOKEN_PROPERTIES),

  NewToken: closed({
    ...TOKEN_PROPERTIES,
    token: { type: 'string', pattern: '^dat_[A-Za-z0-9_-]{43}$', description: 'the token: shown this once' },
  }),

  TokenList: closed({ tokens: { type: 'array', items: { $ref: '#/components/schemas/Token' } } }),

  UserList: closed({
    users: {
      type: 'array',
      items: closed({
        id: { type: 'string' },
        username: { type: 'string' },
        role: { enum: [...ROLES] },
        directory: nullable('string'),
      }),
    },
  }),

  Health: closed({
    status: { const: 'ok' },
    version: { type: 'string', description: 'agent version' },
  }),

  TlsInfo: {
    description: 'The HTTPS certificate in service, or `{"enabled": false}` when the agent speaks plain HTTP only.',
    oneOf: [
      closed({ enabled: { const: false } }),
      closed({
        enabled: { const: true },
        fingerprint: {
          type: 'string',
          pattern: '^[0-9A-F]{2}(:[0-9A-F]{2}){31}$',
          description: 'SHA-256 of the certificate (DER), colon-separated hex pairs',
        },
        spkiPin: {
          type: 'string',
          pattern: '^sha256//[A-Za-z0-9+/]{43}=$',
          description: 'SHA-256 of the public key (SPKI) in base64, as `curl --pinnedpubkey` takes it',
        },
        names: { type: 'array', items: { type: 'string' }, description: 'DNS names and addresses the certificate names' },
        notBefore: { type: 'string', format: 'date-time' },
        notAfter: { type: 'string', format: 'date-time' },
        selfSigned: { type: 'boolean', description: 'made by the agent (renewed with the same key 30 days before it expires)' },
        clientCertificates: {
          enum: ['required', 'none'],
          description: '`required` (`tls.clientCaFile` set): every TLS client shows a certificate from one of its CAs',
        },
      }),
    ],
  },

  DeviceStatus: closed(
    {
      hostname: { type: 'string' },
      deviceId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'the config key deviceId (default: the short hostname)' },
      platform: { type: 'string' },
      distro: { type: 'string' },
      release: { type: 'string' },
      kernel: { type: 'string' },
      arch: { type: 'string' },
      uptimeSeconds: { type: 'integer', minimum: 0 },
      time: { type: 'string', format: 'date-time' },
      clock: closed({
        synchronized: {
          type: 'boolean',
          description: 'a time service set the clock (the kernel flag, systemd-timesyncd, or clock.syncedFile when configured)',
        },
      }),
      cpu: closed({
        model: { type: 'string' },
        cores: { type: 'integer', minimum: 0 },
        loadPercent: nullable('number', { minimum: 0, maximum: 100 }),
        temperatureCelsius: nullable('number'),
      }),
      memory: closed({ totalBytes: bytes, usedBytes: bytes, availableBytes: bytes }),
      disk: closed({
        path: { type: 'string', description: 'the filesystem holding the download base directory' },
        totalBytes: bytes,
        usedBytes: bytes,
        availableBytes: bytes,
      }),
      network: {
        type: 'array',
        items: closed({
          iface: { type: 'string' },
          mac: nullable('string'),
          ipv4: { type: 'array', items: { type: 'string' } },
          ipv6: { type: 'array', items: { type: 'string' } },
        }),
      },
      agent: closed({ version: { type: 'string' }, uptimeSeconds: { type: 'integer', minimum: 0 } }),
      recording: closed({ state: { enum: [...RECORDING_STATES] } }),
    },
    { description: 'Figures are at most 2 seconds old; null where a figure is unknown on this device.' },
  ),

  RecordingStatus: closed(
    {
      state: { enum: [...RECORDING_STATES] },
      fileExtension: { enum: [...FORMATS, null] },
      durationSeconds: nullable('number'),
      startedAt: nullable('string', { format: 'date-time' }),
      finishedAt: nullable('string', { format: 'date-time' }),
      file: nullable('string', { description: 'relative to the download base directory: usable as `filepath` of /api/download' }),
      sizeBytes: bytes,
      error: nullable('string'),
      device: nullable('string', { description: 'the ALSA device recorded from' }),
      sampleRate: nullable('integer'),
      channels: nullable('integer'),
      peakDbfs: nullable('number', { description: 'the loudest sample recorded, in dBFS; null until the recording ends' }),
      stoppedBy: {
        enum: [...STOPPED_BY, null],
        description:
          'what ended the recording (`disk`: free space fell below half of `audio.minFreeBytes`); null while it runs, or when the capture failed',
      },
    },
    {
      description:
        'Fields that do not apply yet are null. The last finished or failed record stays until the next start. ' +
        'A recording whose device failed mid-way is `failed` and still names the file of what was recorded.',
    },
  ),

  AudioDevices: closed({
    configured: { type: 'string', description: 'audio.device of the config' },
    devices: {
      type: 'array',
      items: closed({
        id: { type: 'string', description: "what audio.device and a start's `device` take" },
        name: { type: 'string' },
        description: { type: 'string' },
        default: { type: 'boolean', description: "ALSA's default device" },
      }),
    },
  }),

  AudioLevel: closed({
    device: { type: 'string' },
    seconds: { type: 'number' },
    peakDbfs: { type: 'number', description: 'dBFS; digital silence reads -120' },
    rmsDbfs: { type: 'number' },
    clipped: { type: 'boolean', description: 'a sample reached full scale' },
  }),

  UploadForm: {
    type: 'object',
    required: ['saveToPath', 'myFile'],
    properties: {
      saveToPath: {
        type: 'string',
        description:
          'destination path including the file name, relative to the upload base directory; ' +
          'ending in `/` or naming an existing directory: each file is saved inside it under its own name',
      },
      myFile: {
        oneOf: [
          { type: 'string', format: 'binary' },
          { type: 'array', items: { type: 'string', format: 'binary' }, minItems: 1 },
        ],
        description: 'the file, or several files under this same field name',
      },
      // No `default`: generators make a property with one required.
      fstype: { type: 'string', examples: ['OsFs'], description: 'filesystem layer; `OsFs`, the only one, when absent' },
    },
  },

  UploadResult: closed({ message: { const: 'Uploaded successfully' } }),

  FilePath: closed({ path: { type: 'string', description: 'relative to the base directory, normalised (`""` for the base itself)' } }),

  FileList: {
    type: 'object',
    required: ['path', 'entries'],
    additionalProperties: false,
    properties: {
      path: { type: 'string', description: 'the directory relative to the base, `""` for the base itself' },
      entries: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'type', 'sizeBytes', 'modifiedAt'],
          additionalProperties: false,
          properties: {
            name: { type: 'string' },
            type: { enum: ['file', 'directory'] },
            sizeBytes: { type: ['integer', 'null'], minimum: 0, description: 'null for a directory' },
            modifiedAt: { type: 'string', format: 'date-time' },
          },
        },
      },
      truncated: { const: true, description: `present when the directory holds more than ${MAX_ENTRIES} entries` },
    },
  },
};
