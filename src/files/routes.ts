// GET/HEAD /api/download and POST /api/upload (docs/api.md, "Files"), GET /api/v1/files/list,
// each with its scope and its part of the OpenAPI document.
import type { Audit } from '../audit/trail.ts';
import type { Config } from '../config/config.ts';
import { DOWNLOAD_HEADERS, RANGE_HEADERS, VALIDATOR_HEADERS, json, ref } from '../apidocs/responses.ts';
import { Errors } from '../http/errors.ts';
import type { Log } from '../util/logger.ts';
import { joinName } from '../util/paths.ts';
import type { AgentMetrics } from '../metrics/agent.ts';
import type { Route, RouteDoc } from '../http/types.ts';
import { downloadHandler } from './download.ts';
import { listDirectory, MAX_ENTRIES } from './list.ts';
import { uploadHandler } from './upload.ts';
import { audited, BODY_LIMIT, clientPath, fstype as fstypeField } from './manage-http.ts';
import { deletePath, makeDirectory, movePath, shownPath } from './manage.ts';
import { confinementRoot } from './scope-dir.ts';
import { boolean } from '../ops/fields.ts';
import { toRoute } from '../ops/http.ts';
import { operation } from '../ops/operation.ts';

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
  Errors.pathNotAllowed(),
  Errors.notRegular(),
  Errors.notReadable(),
  Errors.noSpace(),
  Errors.manageFailed('<detail>'),
  Errors.absPathFailed('<detail>'),
  Errors.openFailed('<detail>'),
];
const CONFINED =
  'Paths are relative to the download base directory and confined exactly as a download: a path that ' +
  "leads outside the base or the credential's directory, also through links, is 403. The base directory (and the " +
  "credential's directory) itself can be neither deleted nor moved. FIFOs, sockets and devices are refused (403).";

export interface FileRouteDeps {
  config: Config;
  log: Log;
  metrics: AgentMetrics;
  audit: Audit;
  /** The outbox's answer for a file (docs/outbox.md): undefined while the outbox is off, and no field then. */
  outbox?: { uploadedOf(abs: string): boolean | null | undefined };
}

export function fileRoutes({ config, log, metrics, audit, outbox }: FileRouteDeps): Route[] {
  const uploadedOf = (abs: string) => outbox?.uploadedOf(abs);
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
            `At most ${Errors.fileTooLarge(config.maxFileBytes).message.split('is ')[1]} in total (\`maxFileBytes\`).`,
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
    toRoute(
      operation({
        id: 'listFiles',
        method: 'GET',
        path: '/api/v1/files/list',
        scope: 'files:read',
        action: 'files/list',
        tags: ['files'],
        summary: 'List one directory of the download base',
        description:
          'Confined exactly as a download. Directories first, then by name in byte order. Links that stay ' +
          'inside are listed as what they point to; links whose real location is outside the base, dangling links, ' +
          `FIFOs, sockets and devices are left out. At most ${MAX_ENTRIES} entries are read from one directory: ` +
          'a larger one is listed in part and the answer carries `"truncated": true`.',
        query: {
          path: clientPath('must be a string').about(
            'the directory, relative to the download base directory; the base itself when absent or empty',
          ),
          fstype: fstypeField(),
        },
        answers: { 200: { description: 'the directory', schema: ref('FileList') } },
        errors: () => [
          Errors.notDirectory('<path>'),
          Errors.pathNotAllowed(),
          Errors.notReadable(),
          Errors.notRegular(),
          Errors.fileNotFound('<path>'),
          Errors.absPathFailed('<detail>'),
          Errors.openFailed('<detail>'),
          Errors.readFailed('<detail>'),
        ],
        notes: { 400: 'The path names a file, or is not usable as a path' },
        asked: ({ query }) => ({ path: query.path ?? '' }),
        run: async ({ query }, { principal }) => {
          const list = await listDirectory(config, query.path ?? '', confinementRoot(config.baseDir, principal));
          // On or off: the outbox answers null for a path outside it, undefined only while off.
          if (uploadedOf('') !== undefined) {
            const dir = list.path === '' ? config.baseDir : joinName(config.baseDir, list.path);
            for (const e of list.entries) e.uploaded = e.type === 'file' ? (uploadedOf(joinName(dir, e.name)) ?? null) : null;
          }
          return { status: 200, body: list };
        },
      }),
    ),
    toRoute(
      operation({
        id: 'deleteFile',
        method: 'DELETE',
        path: '/api/v1/files',
        scope: 'files:write',
        action: 'files/delete',
        tags: ['files'],
        summary: 'Delete a file, a link or a directory',
        description:
          `${CONFINED} A link is removed itself, never what it points to. A directory must be empty unless ` +
          '`recursive=true`; a recursive delete never follows a link.',
        query: {
          fstype: fstypeField(),
          path: clientPath('is required').need().about('what to delete, relative to the download base directory'),
          recursive: boolean({ rule: 'must be true or false' }).or(false).about('`true`: a directory with all it holds'),
        },
        answers: { 204: { description: 'deleted' } },
        errors: () => [Errors.fileNotFound('<path>'), Errors.notEmpty(), ...MANAGE_ERRORS()],
        notes: { 400: 'A missing or unusable path, or a bad `recursive`' },
        asked: ({ query }) => ({ path: query.path }),
        run: async ({ query }, ctx) => {
          const { path, recursive } = query;
          const event = { event: 'delete', path: shownPath(config.baseDir, path), ...(recursive ? { recursive } : {}) };
          await audited(audit, ctx, event, () =>
            deletePath(config.baseDir, path, recursive, confinementRoot(config.baseDir, ctx.principal)),
          );
          return { status: 204 };
        },
      }),
    ),
    toRoute(
      operation({
        id: 'makeDirectory',
        method: 'POST',
        path: '/api/v1/files/mkdir',
        scope: 'files:write',
        action: 'files/mkdir',
        tags: ['files'],
        summary: 'Make a directory, and its parents as needed',
        description: `${CONFINED} New directories get mode 0755.`,
        query: { fstype: fstypeField() },
        body: {
          fields: {
            fstype: fstypeField(),
            path: clientPath('must be a string')
              .need()
              .about('the directory to make, relative to the base directory; missing parents are made too'),
          },
          limit: BODY_LIMIT,
          what: 'a directory to make',
        },
        answers: {
          201: { description: 'made', schema: ref('FilePath') },
          200: { description: 'it was already a directory', schema: ref('FilePath') },
        },
        errors: () => [
          ...MANAGE_ERRORS(),
          Errors.badField('path', 'has a name longer than 255 bytes'),
          Errors.notADirectoryInWay('<path>'),
        ],
        notes: { 400: 'Invalid body; the text names the field', 409: 'A file (not a directory) is in the way; the text names it' },
        asked: ({ body }) => ({ path: body.path }),
        run: async ({ body }, ctx) => {
          const shown = shownPath(config.baseDir, body.path);
          let made = false;
          await audited(audit, ctx, { event: 'mkdir', path: shown }, async () => {
            made = await makeDirectory(config.baseDir, body.path, confinementRoot(config.baseDir, ctx.principal));
          });
          return { status: made ? 201 : 200, body: { path: shown } };
        },
      }),
    ),
    toRoute(
      operation({
        id: 'moveFile',
        method: 'POST',
        path: '/api/v1/files/move',
        scope: 'files:write',
        action: 'files/move',
        tags: ['files'],
        summary: 'Move or rename a file, a link or a directory',
        description:
          `${CONFINED} The target appears whole or not at all: a rename, or across file systems a copy ` +
          'under a temporary name beside the target, renamed into place, after which the source is removed.',
        query: { fstype: fstypeField() },
        body: {
          fields: {
            fstype: fstypeField(),
            from: clientPath('must be a string').need().about('what to move, relative to the base directory (a link is moved itself)'),
            to: clientPath('must be a string').need().about('its new path, relative to the base directory; its directory must exist'),
            overwrite: boolean({ rule: 'must be true or false' })
              .or(false)
              .about('replace an existing `to` (a file, or an empty directory)'),
          },
          limit: BODY_LIMIT,
          what: 'a move',
        },
        answers: { 200: { description: 'moved; `path` is the new path', schema: ref('FilePath') } },
        errors: () => [
          ...MANAGE_ERRORS(),
          Errors.moveIntoItself(),
          Errors.fileNotFound('<from or the directory of to>'),
          Errors.alreadyExists('<to>'),
        ],
        notes: {
          400: 'Invalid body (the text names the field), or a directory moved into itself',
          409: '`to` exists (and `overwrite` is not true, or it cannot be replaced)',
        },
        asked: ({ body }) => ({ path: body.from, to: body.to }),
        run: async ({ body }, ctx) => {
          const shown = shownPath(config.baseDir, body.to);
          await audited(audit, ctx, { event: 'move', path: shownPath(config.baseDir, body.from), to: shown }, async () => {
            await movePath(config.baseDir, body.from, body.to, body.overwrite, confinementRoot(config.baseDir, ctx.principal));
          });
          return { status: 200, body: { path: shown } };
        },
      }),
    ),
  ];
}
