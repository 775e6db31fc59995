// POST /api/v1/audiofiles/audiorecordstart, GET .../audiorecordstatus, POST .../audiorecordstop (CONTRACT §5, §11)
import { Errors } from '../http/errors.ts';
import { readJsonObject } from '../http/json-body.ts';
import { sendJson } from '../http/respond.ts';
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
      auth: true,
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
      auth: true,
      handler: (_req, res) => sendJson(res, 200, recorder.status()),
    },
    {
      method: 'POST',
      path: '/api/v1/audiofiles/audiorecordstop',
      auth: true,
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
