// GET/HEAD /api/download and POST /api/upload (docs/api.md, "Files"), GET /api/v1/files/list,
// each with its scope and its part of the OpenAPI document.
import type { Audit } from '../audit/trail.ts';
import type { Config } from '../config/config.ts';
import { DOWNLOAD_HEADERS, RANGE_HEADERS, VALIDATOR_HEADERS, json, ref } from '../apidocs/responses.ts';
import { Errors, HttpError } from '../http/errors.ts';
import type { Log } from '../util/logger.ts';
import type { AgentMetrics } from '../metrics/agent.ts';
import type { Route, RouteDoc } from '../http/types.ts';
import { downloadHandler } from './download.ts';
import { listHandler, MAX_ENTRIES } from './list.ts';
import { uploadHandler } from './upload.ts';
import { BODY_LIMIT, deleteHandler, mkdirHandler, moveHandler } from './manage-http.ts';

/** A file's bytes, as generators read them (openapi-typescript with its binary transform: Blob). */
const binary = { type: 'string', format: 'binary' };
// No `default`: generators make a property with one required (openapi-typescript's defaultNonNullable).
const fstype = {
  name: 'fstype',
  in: 'query',
  required: false,
  description: 'filesystem layer; `OsFs` (the native filesystem), the only one, when absent',
  schema: { type: 'string', examples: ['OsFs'] },
};
const filepath = {
  name: 'filepath',
  in: 'query',
  required: true,
  description: 'path including the file name, relative to the download base directory',
  schema: { type: 'string' },
};
const range = {
  name: 'Range',
  in: 'header',
  required: false,
  description: 'one byte range, e.g. `bytes=0-1023`',
  schema: { type: 'string' },
};

/** Conditional requests on downloads (RFC 9110 §13), against the ETag and Last-Modified of a 200. */
const conditions = () =>
  [
    ['If-None-Match', 'entity tags or `*`: 304 when one matches (weak comparison)'],
    ['If-Modified-Since', 'HTTP-date: 304 when the file is not newer; ignored with `If-None-Match`'],
    ['If-Range', 'an ETag (strong) or the exact Last-Modified: the `Range` is honoured only when it matches, else 200 with the whole file'],
    ['If-Match', 'entity tags or `*`: 412 unless one matches (strong comparison)'],
    ['If-Unmodified-Since', 'HTTP-date: 412 when the file is newer; ignored with `If-Match`'],
  ].map(([name, description]) => ({ name, in: 'header', required: false, description, schema: { type: 'string' } }));

function downloadDoc(method: 'get' | 'head', maxFileBytes: number): RouteDoc {
  // The file's own type goes out (text/plain, audio/wav, ...; application/octet-stream when unknown).
  const body = method === 'get' ? { content: { '*/*': { schema: binary } } } : {};
  return {
    operation: {
      tags: ['files'],
      operationId: method === 'get' ? 'download' : 'downloadHead',
      summary: method === 'get' ? 'Download one file' : 'Headers of a download, without the body',
      description:
        "The file must lie inside the download base directory and the credential's directory (symlinks " +
        `are followed and confined), be a regular, readable, non-empty file of at most ${Errors.fileTooLarge(maxFileBytes).message.split('is ')[1]}. ` +
        'One `Range` is honoured.',
      parameters: [filepath, fstype, range, ...conditions()],
      responses: {
        200: { description: 'the whole file', headers: DOWNLOAD_HEADERS, ...body },
        206: { description: 'the requested range', headers: RANGE_HEADERS, ...body },
        304: { description: 'not modified (`If-None-Match`, `If-Modified-Since`): no body', headers: VALIDATOR_HEADERS },
      },
    },
    errors: [
      Errors.filePathRequired(),
      Errors.pathNotAllowed(),
      Errors.isDirectory('<path>'),
      Errors.notReadable(),
      Errors.notRegular(),
      Errors.fileNotFound('<path>'),
      Errors.fileEmpty(),
      Errors.preconditionFailed(),
      Errors.noFileSystem('<detail>'),
      Errors.fileTooLarge(maxFileBytes),
      Errors.rangeNotSatisfiable(0),
      Errors.absPathFailed('<detail>'),
      Errors.openFailed('<detail>'),
      Errors.readFailed('<detail>'),
    ],
  };
}

/** What every change answers alike: bad input, the download's confinement, a full disk. */
const MANAGE_ERRORS = () => [
  Errors.bodyNotJson(),
  Errors.pathNotAllowed(),
  Errors.notRegular(),
  Errors.notReadable(),
  Errors.noFileSystem('<detail>'),
  Errors.noSpace(),
  Errors.manageFailed('<detail>'),
  Errors.absPathFailed('<detail>'),
  Errors.openFailed('<detail>'),
];
const tooLarge = () => new HttpError(413, Errors.bodyTooLarge(BODY_LIMIT).message);
const CONFINED =
  'Paths are relative to the download base directory and confined exactly as a download: a path that ' +
  "leads outside the base or the credential's directory, also through links, is 403. The base directory (and the " +
  "credential's directory) itself can be neither deleted nor moved. FIFOs, sockets and devices are refused (403).";

export function fileRoutes(config: Config, log: Log, metrics: AgentMetrics, audit: Audit): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/download',
      scope: 'files:read',
      handler: downloadHandler(config, log, metrics.transfers.download, audit),
      doc: () => downloadDoc('get', config.maxFileBytes),
      headDoc: () => downloadDoc('head', config.maxFileBytes),
    },
    {
      method: 'POST',
      path: '/api/upload',
      scope: 'files:write',
      handler: uploadHandler(config, metrics.transfers.upload, audit),
      doc: () => ({
        operation: {
          tags: ['files'],
          operationId: 'upload',
          summary: 'Upload one or more files',
          description:
            'Atomic: the data goes to a temporary file and replaces the target only when complete. ' +
            "The target directory must exist and lie inside the credential's directory. Created files get mode 0644. " +
            'At most 50 MB in total.',
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: ref('UploadForm'),
                encoding: { myFile: { contentType: 'application/octet-stream' } },
              },
            },
          },
          responses: { 200: { description: 'stored', content: json(ref('UploadResult')) } },
        },
        errors: [
          Errors.noSavePath(),
          Errors.noFilesUploaded(),
          Errors.uploadTooLarge(),
          Errors.severalFilesNeedDir(),
          Errors.pathNotAllowed(),
          Errors.noFileSystem('<detail>'),
          Errors.uploadReadFailed(),
          Errors.createFailed('<specific error message>'),
        ],
        notes: { 400: 'Bad form (also: a file name that is empty, `.`, `..` or holds `/`, `\\` or NUL when saving into a directory)' },
      }),
    },
    {
      method: 'GET',
      path: '/api/v1/files/list',
      scope: 'files:read',
      handler: listHandler(config),
      doc: () => ({
        operation: {
          tags: ['files'],
          operationId: 'listFiles',
          summary: 'List one directory of the download base',
          description:
            'Confined exactly as a download. Directories first, then by name in byte order. Links that stay ' +
            'inside are listed as what they point to; links whose real location is outside the base, dangling links, ' +
            `FIFOs, sockets and devices are left out. At most ${MAX_ENTRIES} entries are read from one directory: ` +
            'a larger one is listed in part and the answer carries `"truncated": true`.',
          parameters: [
            {
              name: 'path',
              in: 'query',
              required: false,
              schema: { type: 'string' },
              description: 'the directory, relative to the download base directory; the base itself when absent or empty',
            },
            fstype,
          ],
          responses: { 200: { description: 'the directory', content: json(ref('FileList')) } },
        },
        errors: [
          Errors.notDirectory('<path>'),
          Errors.badField('path', '<rule>'),
          Errors.pathNotAllowed(),
          Errors.notReadable(),
          Errors.notRegular(),
          Errors.fileNotFound('<path>'),
          Errors.noFileSystem('<detail>'),
          Errors.absPathFailed('<detail>'),
          Errors.openFailed('<detail>'),
          Errors.readFailed('<detail>'),
        ],
        notes: { 400: 'The path names a file, or is not usable as a path' },
      }),
    },
    {
      method: 'DELETE',
      path: '/api/v1/files',
      scope: 'files:write',
      handler: deleteHandler(config, audit),
      doc: () => ({
        operation: {
          tags: ['files'],
          operationId: 'deleteFile',
          summary: 'Delete a file, a link or a directory',
          description:
            `${CONFINED} A link is removed itself, never what it points to. A directory must be empty unless ` +
            '`recursive=true`; a recursive delete never follows a link.',
          parameters: [
            {
              name: 'path',
              in: 'query',
              required: true,
              schema: { type: 'string' },
              description: 'what to delete, relative to the download base directory',
            },
            {
              name: 'recursive',
              in: 'query',
              required: false,
              schema: { enum: ['true', 'false'] },
              description: '`true`: a directory with all it holds',
            },
            fstype,
          ],
          responses: { 204: { description: 'deleted' } },
        },
        errors: [
          Errors.badField('path', 'is required'),
          Errors.badField('recursive', 'must be true or false'),
          Errors.fileNotFound('<path>'),
          Errors.notEmpty(),
          ...MANAGE_ERRORS().filter((e) => e.status !== 400 && e.status !== 507),
        ],
        notes: { 400: 'A missing or unusable path, or a bad `recursive`' },
      }),
    },
    {
      method: 'POST',
      path: '/api/v1/files/mkdir',
      scope: 'files:write',
      handler: mkdirHandler(config, audit),
      doc: () => ({
        operation: {
          tags: ['files'],
          operationId: 'makeDirectory',
          summary: 'Make a directory, and its parents as needed',
          description: `${CONFINED} New directories get mode 0755.`,
          requestBody: { required: true, content: json(ref('MkdirRequest')) },
          responses: {
            201: { description: 'made', content: json(ref('FilePath')) },
            200: { description: 'it was already a directory', content: json(ref('FilePath')) },
          },
        },
        errors: [
          ...MANAGE_ERRORS(),
          Errors.badField('path', 'must be a string'),
          Errors.badField('path', 'has a name longer than 255 bytes'),
          Errors.notADirectoryInWay('<path>'),
          tooLarge(),
        ],
        notes: { 400: 'Invalid body; the text names the field', 409: 'A file (not a directory) is in the way; the text names it' },
      }),
    },
    {
      method: 'POST',
      path: '/api/v1/files/move',
      scope: 'files:write',
      handler: moveHandler(config, audit),
      doc: () => ({
        operation: {
          tags: ['files'],
          operationId: 'moveFile',
          summary: 'Move or rename a file, a link or a directory',
          description:
            `${CONFINED} The target appears whole or not at all: a rename, or across file systems a copy ` +
            'under a temporary name beside the target, renamed into place, after which the source is removed.',
          requestBody: { required: true, content: json(ref('MoveRequest')) },
          responses: { 200: { description: 'moved; `path` is the new path', content: json(ref('FilePath')) } },
        },
        errors: [
          ...MANAGE_ERRORS(),
          Errors.badField('from', 'must be a string'),
          Errors.badField('to', 'must be a string'),
          Errors.badField('overwrite', 'must be true or false'),
          Errors.moveIntoItself(),
          Errors.fileNotFound('<from or the directory of to>'),
          Errors.alreadyExists('<to>'),
          tooLarge(),
        ],
        notes: {
          400: 'Invalid body (the text names the field), or a directory moved into itself',
          409: '`to` exists (and `overwrite` is not true, or it cannot be replaced)',
        },
      }),
    },
  ];
}
