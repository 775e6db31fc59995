// The OpenAPI 3.1 document served at /docs/openapi.json: every route the agent serves.
// test/docs-drift.test.ts holds it to the routes the app registers, both ways.
import { Errors, HttpError } from '../http/errors.ts';
import { LOGIN_BODY_LIMIT } from '../auth/login.ts';
import { VERSION } from '../version.ts';
import { ASSET_NAMES } from './assets.ts';
import { AUTH_FAILURES, DOWNLOAD_HEADERS, RANGE_HEADERS, VALIDATOR_HEADERS, errorResponses, json, ref } from './responses.ts';
import { morePaths, moreSchemas } from './openapi-more.ts';
import { webPaths } from './openapi-web.ts';
import { schemas } from './schemas.ts';

const bearer = [{ bearerAuth: [] }];
/** A file's bytes, as generators read them (openapi-typescript with its binary transform: Blob). */
const binary = { type: 'string', format: 'binary' };
// No `default`: generators make a property with one required (openapi-typescript's defaultNonNullable).
const fstype = {
  name: 'fstype', in: 'query', required: false,
  description: 'filesystem layer; `OsFs` (the native filesystem), the only one, when absent', schema: { type: 'string', examples: ['OsFs'] },
};
const filepath = {
  name: 'filepath', in: 'query', required: true,
  description: 'path including the file name, relative to the download base directory', schema: { type: 'string' },
};
const range = {
  name: 'Range', in: 'header', required: false,
  description: 'one byte range, e.g. `bytes=0-1023`', schema: { type: 'string' },
};

/** Conditional requests on downloads (RFC 9110 §13), against the ETag and Last-Modified of a 200. */
const conditions = [
  ['If-None-Match', 'entity tags or `*`: 304 when one matches (weak comparison)'],
  ['If-Modified-Since', 'HTTP-date: 304 when the file is not newer; ignored with `If-None-Match`'],
  ['If-Range', 'an ETag (strong) or the exact Last-Modified: the `Range` is honoured only when it matches, else 200 with the whole file'],
  ['If-Match', 'entity tags or `*`: 412 unless one matches (strong comparison)'],
  ['If-Unmodified-Since', 'HTTP-date: 412 when the file is newer; ignored with `If-Match`'],
].map(([name, description]) => ({ name, in: 'header', required: false, description, schema: { type: 'string' } }));

const downloadErrors = errorResponses([
  Errors.filePathRequired(), ...AUTH_FAILURES,
  Errors.pathNotAllowed(), Errors.isDirectory('<path>'), Errors.notReadable(), Errors.notRegular(),
  Errors.fileNotFound('<path>'), Errors.fileEmpty(), Errors.preconditionFailed(), Errors.noFileSystem('<detail>'), Errors.fileTooLarge(),
  Errors.rangeNotSatisfiable(0), Errors.absPathFailed('<detail>'), Errors.openFailed('<detail>'), Errors.readFailed('<detail>'),
]);

function download(method: 'get' | 'head') {
  // The file's own type goes out (text/plain, audio/wav, ...; application/octet-stream when unknown).
  const body = method === 'get' ? { content: { '*/*': { schema: binary } } } : {};
  return {
    tags: ['files'],
    operationId: method === 'get' ? 'download' : 'downloadHead',
    summary: method === 'get' ? 'Download one file' : 'Headers of a download, without the body',
    description: 'The file must lie inside the download base directory (symlinks are followed and confined), ' +
      'be a regular, readable, non-empty file of at most 50 MB. One `Range` is honoured.',
    security: bearer,
    parameters: [filepath, fstype, range, ...conditions],
    responses: {
      200: { description: 'the whole file', headers: DOWNLOAD_HEADERS, ...body },
      206: { description: 'the requested range', headers: RANGE_HEADERS, ...body },
      304: { description: 'not modified (`If-None-Match`, `If-Modified-Since`): no body', headers: VALIDATOR_HEADERS },
      ...downloadErrors,
    },
  };
}

/** The recording body's limit is the audio module's own: shown as `<limit>`. */
const bodyTooLarge = new HttpError(413, Errors.bodyTooLarge(0).message.replace('0', '<limit>'));

/** What a client checks before trusting this agent's HTTPS certificate, for the page's top. */
export interface TlsSummary {
  fingerprint: string;
  spkiPin: string;
}

function trustNote(tls: TlsSummary | undefined): string {
  if (!tls) return '';
  return `\n\nHTTPS (same port): certificate SHA-256 fingerprint \`${tls.fingerprint}\`, ` +
    `SPKI pin \`${tls.spkiPin}\` (\`curl --pinnedpubkey\`); also at \`GET /api/v1/tls\`.`;
}

export function buildDocument(tls?: TlsSummary) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'device-agent',
      version: VERSION,
      description: 'HTTP API of the device agent. Log in, click **Authorize** and paste the `token`.\n\n' +
        'Every error is JSON `{"error": "<text>"}`. An unknown path gives 404 `not found`; a known path with ' +
        'another method gives 405 `method not allowed` with an `Allow` header.' + trustNote(tls),
    },
    servers: [{ url: '/', description: 'this agent' }],
    tags: [
      { name: 'auth' }, { name: 'status' }, { name: 'audio' }, { name: 'files' },
      { name: 'docs', description: 'this page and its document' },
      { name: 'web', description: 'the web interface (its data comes through the API above)' },
    ],
    paths: {
      '/api/v1/agentusers/loginusertoagent': {
        post: {
          tags: ['auth'], operationId: 'login', summary: 'Obtain a bearer token',
          description: 'After 10 failed logins within 15 minutes for one (address, username), ' +
            'the answer is 429 until the window passes, even for the right password.',
          security: [],
          requestBody: { required: true, content: json(ref('LoginRequest')) },
          responses: {
            200: { description: 'logged in', content: json(ref('LoginResponse')) },
            ...errorResponses([
              Errors.bodyNotJson(), Errors.badField('username', 'is required and must be a string'),
              Errors.badField('password', 'is required and must be a string'),
              Errors.badCredentials(), Errors.bodyTooLarge(LOGIN_BODY_LIMIT), Errors.tooManyLogins(900), Errors.loginBusy(),
            ], { 401: 'Wrong password or unknown user' }),
          },
        },
      },
      '/api/v1/health': {
        get: {
          tags: ['status'], operationId: 'health', summary: 'Liveness and version', security: [],
          responses: { 200: { description: 'the agent runs', content: json(ref('Health')) }, ...errorResponses([]) },
        },
      },
      '/api/v1/tls': {
        get: {
          tags: ['status'], operationId: 'tls', summary: 'The HTTPS certificate: fingerprint, SPKI pin, names, validity', security: [],
          description: 'No token: a client reads it to decide whether to trust the device (compare the fingerprint with ' +
            '`device-agent tls show` on the device).',
          responses: { 200: { description: 'the certificate in service, or `{"enabled": false}`', content: json(ref('TlsInfo')) }, ...errorResponses([]) },
        },
      },
      '/api/v1/devicestatus/get': {
        get: {
          tags: ['status'], operationId: 'deviceStatus', summary: 'Current device status', security: bearer,
          responses: {
            200: { description: 'the device status record', content: json(ref('DeviceStatus')) },
            ...errorResponses(AUTH_FAILURES),
          },
        },
      },
      '/api/v1/audiofiles/audiorecordstart': {
        post: {
          tags: ['audio'], operationId: 'recordStart', summary: 'Start an audio recording', security: bearer,
          requestBody: { required: true, content: json(ref('RecordStart')) },
          responses: {
            202: { description: 'recording started', content: json(ref('RecordingStatus')) },
            ...errorResponses([
              Errors.bodyNotJson(), Errors.badField('duration', '<rule>'), Errors.badField('fileExtension', '<rule>'),
              ...AUTH_FAILURES, Errors.recordingInProgress(), bodyTooLarge, Errors.recorderUnavailable('<message naming the capture program>'),
            ], { 400: 'Invalid body; the text names the field', 503: 'The capture program is missing or fails; state becomes `failed`' }),
          },
        },
      },
      '/api/v1/audiofiles/audiorecordstatus': {
        get: {
          tags: ['audio'], operationId: 'recordStatus', summary: 'Status of the ongoing or last recording', security: bearer,
          responses: {
            200: { description: 'the recording status record', content: json(ref('RecordingStatus')) },
            ...errorResponses(AUTH_FAILURES),
          },
        },
      },
      '/api/download': { get: download('get'), head: download('head') },
      '/api/upload': {
        post: {
          tags: ['files'], operationId: 'upload', summary: 'Upload one or more files', security: bearer,
          description: 'Atomic: the data goes to a temporary file and replaces the target only when complete. ' +
            'The target directory must exist. Created files get mode 0644. At most 50 MB in total.',
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: ref('UploadForm'),
                encoding: { myFile: { contentType: 'application/octet-stream' } },
              },
            },
          },
          responses: {
            200: { description: 'stored', content: json(ref('UploadResult')) },
            ...errorResponses([
              Errors.noSavePath(), Errors.noFilesUploaded(), Errors.uploadTooLarge(), Errors.uploadOpenFailed(),
              Errors.severalFilesNeedDir(), ...AUTH_FAILURES, Errors.pathNotAllowed(), Errors.noFileSystem('<detail>'),
              Errors.uploadReadFailed(), Errors.createFailed('<specific error message>'),
            ], { 400: 'Bad form (also: a file name that is empty, `.`, `..` or holds `/`, `\\` or NUL when saving into a directory)' }),
          },
        },
      },
      ...morePaths(),
      '/docs': {
        get: {
          tags: ['docs'], operationId: 'docsPage', summary: 'This page (Swagger UI)', security: [],
          responses: { 200: { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } } },
        },
      },
      '/docs/openapi.json': {
        get: {
          tags: ['docs'], operationId: 'openapi', summary: 'This OpenAPI document', security: [],
          responses: { 200: { description: 'OpenAPI 3.1', content: json({ type: 'object' }) } },
        },
      },
      '/docs/assets/{file}': {
        get: {
          tags: ['docs'], operationId: 'docsAsset', summary: 'A file of the page', security: [],
          parameters: [{ name: 'file', in: 'path', required: true, schema: { enum: [...ASSET_NAMES] } }],
          responses: {
            200: { description: 'the file', content: { 'text/css': { schema: { type: 'string' } }, 'text/javascript': { schema: { type: 'string' } } } },
            304: { description: 'not modified (`If-None-Match`)' },
            ...errorResponses([Errors.notFound()]),
          },
        },
      },
      ...webPaths(),
    },
    components: {
      schemas: { ...schemas, ...moreSchemas },
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'the `token` of the login answer' },
      },
    },
  };
}
