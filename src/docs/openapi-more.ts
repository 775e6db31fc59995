// The document's part for CONTRACT §11 (the API the web interface uses): directory
// listing, stopping a recording, and the events stream.
import { Errors } from '../http/errors.ts';
import { EVENT_LIMITS } from '../events/hub.ts';
import { MAX_ENTRIES } from '../files/list.ts';
import { AUTH_FAILURES, errorResponses, json, ref } from './responses.ts';

const bearer = [{ bearerAuth: [] }];

export function morePaths() {
  return {
    '/api/v1/files/list': {
      get: {
        tags: ['files'], operationId: 'listFiles', summary: 'List one directory of the download base', security: bearer,
        description: 'Confined exactly as a download. Directories first, then by name in byte order. Links that stay ' +
          'inside are listed as what they point to; links whose real location is outside the base, dangling links, ' +
          `FIFOs, sockets and devices are left out. At most ${MAX_ENTRIES} entries are read from one directory: ` +
          'a larger one is listed in part and the answer carries `"truncated": true`.',
        parameters: [
          {
            name: 'path', in: 'query', required: false, schema: { type: 'string' },
            description: 'the directory, relative to the download base directory; the base itself when absent or empty',
          },
          {
            name: 'fstype', in: 'query', required: false, schema: { type: 'string', examples: ['OsFs'] },
            description: 'filesystem layer; `OsFs` (the native filesystem), the only one, when absent',
          },
        ],
        responses: {
          200: { description: 'the directory', content: json(ref('FileList')) },
          ...errorResponses([
            Errors.notDirectory('<path>'), Errors.badField('path', '<rule>'), ...AUTH_FAILURES, Errors.pathNotAllowed(),
            Errors.notReadable(), Errors.notRegular(), Errors.fileNotFound('<path>'), Errors.noFileSystem('<detail>'),
            Errors.absPathFailed('<detail>'), Errors.openFailed('<detail>'), Errors.readFailed('<detail>'),
          ], { 400: 'The path names a file, or is not usable as a path' }),
        },
      },
    },
    '/api/v1/audiofiles/audiorecordstop': {
      post: {
        tags: ['audio'], operationId: 'recordStop', summary: 'End the running recording now', security: bearer,
        description: 'The capture program finalizes the file (SIGINT); the record is `finished` with the length ' +
          'actually recorded in `durationSeconds`.',
        responses: {
          200: { description: 'the recording ended and its file is kept', content: json(ref('RecordingStatus')) },
          ...errorResponses([...AUTH_FAILURES, Errors.noRecording(), Errors.stopFailed('<reason>')],
            { 500: 'The capture program failed while finalizing (the record is `failed`); or an unexpected failure' }),
        },
      },
    },
    '/api/v1/events': {
      get: {
        tags: ['status'], operationId: 'events', summary: 'Server-Sent Events: status and recording as they change', security: bearer,
        description: 'A `text/event-stream` that stays open. On connect: a `recording` event (the RecordingStatus ' +
          `record) and a \`status\` event (the DeviceStatus record); then \`status\` every ${EVENT_LIMITS.statusMs / 1000} s ` +
          `(one refresh shared by all streams), \`recording\` at every state change, and a comment line at least every ` +
          `${EVENT_LIMITS.commentMs / 1000} s. Each event is \`event: <name>\` and one \`data: <JSON>\` line. At most ` +
          `${EVENT_LIMITS.maxStreams} streams are open at once. A stream ends when its token expires, and when the agent ` +
          'shuts down. Browsers read it with `fetch` and the bearer header (`EventSource` cannot send it).',
        responses: {
          200: {
            description: 'the stream: `event: recording`, `event: status`, `: keep-alive` comments',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          ...errorResponses([...AUTH_FAILURES, Errors.tooManyStreams(EVENT_LIMITS.maxStreams), Errors.shuttingDown()],
            { 503: 'Too many open streams, or the agent is stopping' }),
        },
      },
    },
  };
}

type Schema = Record<string, unknown>;

export const moreSchemas: Record<string, Schema> = {
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
