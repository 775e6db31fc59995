// POST /api/v1/audiofiles/audiorecordstart, GET .../audiorecordstatus, POST .../audiorecordstop (docs/api.md, "Audio recording")
import { Errors } from '../http/errors.ts';
import { readJsonObject } from '../http/json-body.ts';
import { sendJson } from '../http/respond.ts';
import { json, ref } from '../apidocs/responses.ts';
import { HttpError } from '../http/errors.ts';
import type { Route } from '../http/types.ts';
import { FORMATS, type AudioFormat } from './argv.ts';
import { NotRecording, RecorderBusy, RecorderUnavailable, type Recorder } from './recorder.ts';

const BODY_LIMIT = 16 * 1024;

/** Validates the start body (CONTRACT §5); every refusal names its field. */
export function parseStart(body: Record<string, unknown>, maxDurationSeconds: number): { format: AudioFormat; duration: number } {
  const { duration, fileExtension } = body;
  if (typeof duration !== 'number' || !Number.isFinite(duration) || duration <= 0 || duration > maxDurationSeconds) {
    throw Errors.badField('duration', `must be a number of seconds above 0 and at most ${maxDurationSeconds}`);
  }
  if (typeof fileExtension !== 'string' || !(FORMATS as readonly string[]).includes(fileExtension)) {
    throw Errors.badField('fileExtension', `must be one of ${FORMATS.map((f) => `"${f}"`).join(', ')}`);
  }
  return { format: fileExtension as AudioFormat, duration };
}

export function audioRoutes(recorder: Recorder, maxDurationSeconds: number): Route[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/audiofiles/audiorecordstart',
      scope: 'audio',
      doc: () => ({
        operation: {
          tags: ['audio'], operationId: 'recordStart', summary: 'Start an audio recording',
          requestBody: { required: true, content: json(ref('RecordStart')) },
          responses: { 202: { description: 'recording started', content: json(ref('RecordingStatus')) } },
        },
        errors: [
          Errors.bodyNotJson(), Errors.badField('duration', '<rule>'), Errors.badField('fileExtension', '<rule>'),
          Errors.recordingInProgress(), new HttpError(413, Errors.bodyTooLarge(0).message.replace('0', '<limit>')),
          Errors.recorderUnavailable('<message naming the capture program>'),
        ],
        notes: { 400: 'Invalid body; the text names the field', 503: 'The capture program is missing or fails; state becomes `failed`' },
      }),
      handler: async (req, res) => {
        const { format, duration } = parseStart(await readJsonObject(req, BODY_LIMIT), maxDurationSeconds);
        let record;
        try {
          record = await recorder.start(format, duration);
        } catch (err) {
          if (err instanceof RecorderBusy) throw Errors.recordingInProgress();
          if (err instanceof RecorderUnavailable) throw Errors.recorderUnavailable(err.message);
          throw err;
        }
        sendJson(res, 202, record);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/audiofiles/audiorecordstatus',
      scope: 'audio',
      doc: () => ({
        operation: {
          tags: ['audio'], operationId: 'recordStatus', summary: 'Status of the ongoing or last recording',
          responses: { 200: { description: 'the recording status record', content: json(ref('RecordingStatus')) } },
        },
      }),
      handler: (_req, res) => sendJson(res, 200, recorder.status()),
    },
    {
      method: 'POST',
      path: '/api/v1/audiofiles/audiorecordstop',
      scope: 'audio',
      doc: () => ({
        operation: {
          tags: ['audio'], operationId: 'recordStop', summary: 'End the running recording now',
          description: 'The capture program finalizes the file (SIGINT); the record is `finished` with the length ' +
            'actually recorded in `durationSeconds`.',
          responses: { 200: { description: 'the recording ended and its file is kept', content: json(ref('RecordingStatus')) } },
        },
        errors: [Errors.noRecording(), Errors.stopFailed('<reason>')],
        notes: { 500: 'The capture program failed while finalizing (the record is `failed`); or an unexpected failure' },
      }),
      handler: async (req, res) => {
        req.resume(); // a body, if any, means nothing here
        let record;
        try {
          record = await recorder.stop();
        } catch (err) {
          if (err instanceof NotRecording) throw Errors.noRecording();
          throw err;
        }
        // The capture failed while finalizing: the record says why (state failed).
        if (record.state === 'failed') throw Errors.stopFailed(record.error ?? 'recording failed');
        sendJson(res, 200, record);
      },
    },
  ];
}
