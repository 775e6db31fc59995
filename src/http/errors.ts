// HttpError and the one catalogue of error texts that the spec and the contract fix.

export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.headers = headers;
  }
}

/** Why a bearer token is refused (docs/api.md#sending-a-credential): each 401 text, named once for the check and the docs. */
export const TOKEN_REFUSALS = {
  missing: 'missing bearer token',
  malformed: 'malformed authorization header, expected: Bearer <token>',
  invalid: 'invalid token',
  expired: 'token expired',
  revoked: 'token revoked',
} as const;
export type TokenRefusal = keyof typeof TOKEN_REFUSALS;

/**
 * The client went away before its request was read to the end: nobody is left to answer,
 * and it is no fault of the agent's. The access log's line says aborted; nothing else.
 */
export class ClientGone extends Error {
  constructor() {
    super('the client closed the connection before the request body ended');
    this.name = 'ClientGone';
  }
}

const e = (status: number, message: string, headers?: Record<string, string>) => new HttpError(status, message, headers);

/** Every text a client may see, named once. Functions take the variable part. */
export const Errors = {
  // generic (docs/api.md#every-response)
  notFound: () => e(404, 'not found'),
  methodNotAllowed: (allow: string) => e(405, 'method not allowed', { Allow: allow }),
  internal: () => e(500, 'internal error'),
  bodyTooLarge: (limit: number) => e(413, `request body too large, max ${limit} bytes`),
  bodyNotJson: () => e(400, 'request body must be a JSON object (Content-Type: application/json)'),
  badField: (field: string, rule: string) => e(400, `${field} ${rule}`),

  // authentication (docs/api.md#authentication)
  badCredentials: () => e(401, 'invalid username or password'),
  tooManyLogins: (retryAfterSeconds: number) =>
    e(429, 'too many failed logins, try again later', { 'Retry-After': String(retryAfterSeconds) }),
  loginBusy: () => e(503, 'too many logins in progress, try again later', { 'Retry-After': '1' }),
  unauthorized: (why: TokenRefusal) => e(401, TOKEN_REFUSALS[why], { 'WWW-Authenticate': 'Bearer' }),
  // roles, scopes and API tokens (docs/api.md, "Roles, scopes and API tokens"); RFC 6750 §3.1
  insufficientScope: (scope: string) =>
    e(403, `insufficient scope: ${scope} is required`, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` }),
  tokenTooPowerful: () => e(403, 'a token cannot have more rights than its user'),
  tokenNameTaken: (name: string) => e(409, `a token named ${name} already exists`),
  tokenNotFound: () => e(404, 'token not found'),
  userNotFound: (name: string) => e(400, `username ${name} is not a user`),

  // files (docs/api.md#errors, docs/api.md#files)
  filePathRequired: () => e(400, 'file path is required, could not download file'),
  pathNotAllowed: () => e(403, 'file path is not allowed'),
  isDirectory: (path: string) => e(403, `${path} is a directory and not a file`),
  notDirectory: (path: string) => e(400, `${path} is not a directory`),
  notReadable: () => e(403, 'file is not readable'),
  notRegular: () => e(403, 'file is not a regular file'),
  fileNotFound: (path: string) => e(404, `file not found at ${path}`),
  fileEmpty: () => e(412, 'file is empty'),
  noFileSystem: (detail: string) => e(412, `failed to get file system: ${detail}`),
  /** The figure follows config.maxFileBytes: whole MiB as "N MB" (50 MB = 52428800), else bytes. */
  fileTooLarge: (maxBytes = 52428800) =>
    e(413, `file too large, max size is ${maxBytes % 1048576 === 0 ? `${maxBytes / 1048576} MB` : `${maxBytes} bytes`}`),
  absPathFailed: (detail: string) => e(500, `failed to get absolute path: ${detail}`),
  openFailed: (detail: string) => e(500, `failed to open file: ${detail}`),
  readFailed: (detail: string) => e(500, `failed to read file: ${detail}`),
  preconditionFailed: () => e(412, 'precondition failed'),
  rangeNotSatisfiable: (size: number) => e(416, 'requested range not satisfiable', { 'Content-Range': `bytes */${size}` }),
  noSavePath: () => e(400, 'No save path provided'),
  noFilesUploaded: () => e(400, 'No files uploaded'),
  uploadTooLarge: () => e(400, 'Failed to parse form: file too large'),
  uploadReadFailed: () => e(500, 'Failed to read uploaded file'),
  createFailed: (detail: string) => e(500, `Failed to create file on server: ${detail}`),
  severalFilesNeedDir: () => e(400, 'several files need a directory as saveToPath'),
  formInvalid: (detail: string) => e(400, `Failed to parse form: ${detail}`),
  badFileName: (name: string) => e(400, `file name not allowed: ${JSON.stringify(name)}`),

  // managing files (docs/behaviour.md, "Managing files")
  notEmpty: () => e(409, 'directory is not empty'),
  notADirectoryInWay: (path: string) => e(409, `${path} exists and is not a directory`),
  alreadyExists: (path: string) => e(409, `${path} already exists`),
  busy: (path: string) => e(409, `${path} is in use (a mount point)`),
  moveIntoItself: () => e(400, 'cannot move a directory into itself'),
  noSpace: () => e(507, 'no space left on the device'),
  manageFailed: (detail: string) => e(500, `failed to change the file system: ${detail}`),

  // events (docs/api.md#events)
  tooManyStreams: (max: number) => e(503, `too many open event streams (at most ${max}), try again later`, { 'Retry-After': '5' }),
  shuttingDown: () => e(503, 'the agent is shutting down'),

  // recording (docs/api.md#audio-recording)
  recordingInProgress: () => e(409, 'a recording is already in progress'),
  noRecording: () => e(409, 'no recording is in progress'),
  stopFailed: (detail: string) => e(500, `the recording failed while stopping: ${detail}`),
  recorderUnavailable: (detail: string) => e(503, detail),
  /** The disk guard (docs/behaviour.md, "Recordings and the disk"): figures in whole MB (MiB): free rounded down, required
   * rounded up, so the free figure shown is always below the required one. */
  notEnoughSpace: (freeBytes: number, requiredBytes: number) =>
    e(507, `not enough free space: ${Math.floor(freeBytes / 1048576)} MB free, ${Math.ceil(requiredBytes / 1048576)} MB required`),

  // audio devices, levels and live audio (docs/behaviour.md, "Audio")
  unknownDevice: (id: string) => e(400, `device ${id} is not an audio capture device here (GET /api/v1/audio/devices lists them)`),
  unknownStartField: (field: string) => e(400, `${field} is not a field of a recording start`),
  /** Sizes in MiB as "N MB", like the download limit's own text (50 MB = 52428800). */
  wavTooLarge: (duration: number | string, sizeMb: string, limitMb: string) =>
    e(400, `a ${duration} s wav recording would be ${sizeMb} MB, over the ${limitMb} MB download limit`),
  tooManyLiveStreams: (max: number) => e(503, `too many live audio streams (at most ${max}), try again later`, { 'Retry-After': '5' }),
  deviceUnavailable: (detail: string) => e(503, detail),

  // operations called without HTTP (docs/api.md, "MQTT")
  unknownCommand: (action: string) => e(404, `unknown command: ${action}`),
} as const;

/** Bytes as MiB with at most one decimal: 52428800 -> "50", 345600044 -> "329.6". */
export function mib(bytes: number): string {
  return String(Math.round(bytes / 104857.6) / 10);
}
