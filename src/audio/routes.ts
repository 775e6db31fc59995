// The recording routes (start, status, stop) and the device, level and live routes
// (docs/behaviour.md, "Audio"), all with scope `audio`.
import { Errors, HttpError, mib } from '../http/errors.ts';
import { readJsonObject } from '../http/json-body.ts';
import { sendJson } from '../http/respond.ts';
import { json, ref } from '../apidocs/responses.ts';
import { parseQuery } from '../files/query.ts';
import type { Request, Route } from '../http/types.ts';
import { CHANNEL_COUNTS, DEFAULT_CHANNELS, DEFAULT_RATE, FORMATS, RATE_RANGE, wavFileBytes, type AudioFormat } from './argv.ts';
import { CaptureFailed } from './capture.ts';
import { NotEnoughSpace } from './disk-guard.ts';
import type { Captures } from './captures.ts';
import { knownDevice, listDevices } from './devices.ts';
import { CONTENT_TYPES, LIVE_LIMITS, liveHeaders, type LiveOwner, type LiveStreams } from './live.ts';
import { LevelMeter, type ChunkLevel } from './pcm.ts';
import { NotRecording, RecorderBusy, RecorderUnavailable, type Recorder, type StartRequest } from './recorder.ts';

const BODY_LIMIT = 16 * 1024;
const START_FIELDS = new Set(['duration', 'fileExtension', 'device', 'sampleRate', 'channels']);
export const LEVEL_SECONDS = { min: 0.2, max: 10, default: 1 } as const;

export interface AudioLimits {
  maxDurationSeconds: number;
  maxFileBytes: number;
}

const formatRule = `must be one of ${FORMATS.map((f) => `"${f}"`).join(', ')}`;

/** Validates the start body; every refusal names its field. The device's existence is checked apart (it asks ALSA). */
export function parseStart(body: Record<string, unknown>, limits: AudioLimits): Omit<StartRequest, 'who'> {
  for (const key of Object.keys(body)) if (!START_FIELDS.has(key)) throw Errors.unknownStartField(key);
  const { duration, fileExtension, device, sampleRate = DEFAULT_RATE, channels = DEFAULT_CHANNELS } = body;
  if (typeof duration !== 'number' || !Number.isFinite(duration) || duration <= 0 || duration > limits.maxDurationSeconds) {
    throw Errors.badField('duration', `must be a number of seconds above 0 and at most ${limits.maxDurationSeconds}`);
  }
  if (typeof fileExtension !== 'string' || !(FORMATS as readonly string[]).includes(fileExtension)) {
    throw Errors.badField('fileExtension', formatRule);
  }
  if (device !== undefined && (typeof device !== 'string' || device === '' || device.length > 256 || /[\0\n]/.test(device))) {
    throw Errors.badField('device', 'must be a device id from GET /api/v1/audio/devices');
  }
  if (typeof sampleRate !== 'number' || !Number.isInteger(sampleRate) || sampleRate < RATE_RANGE[0] || sampleRate > RATE_RANGE[1]) {
    throw Errors.badField('sampleRate', `must be an integer from ${RATE_RANGE[0]} to ${RATE_RANGE[1]}`);
  }
  if (!(CHANNEL_COUNTS as readonly unknown[]).includes(channels)) throw Errors.badField('channels', 'must be 1 or 2');
  const format = fileExtension as AudioFormat;
  const f = { rate: sampleRate, channels: channels as number };
  // No recording the agent would refuse to serve: a wav's size is known before it starts.
  if (format === 'wav' && wavFileBytes(f, duration) > limits.maxFileBytes) {
    throw Errors.wavTooLarge(duration, mib(wavFileBytes(f, duration)), mib(limits.maxFileBytes));
  }
  return { format, duration, device: device as string | undefined, sampleRate: f.rate, channels: f.channels };
}

/** The device a query names (default: audio.device), refused with 400 when ALSA does not list it. */
async function queryDevice(query: Map<string, string>, recorder: Recorder): Promise<string> {
  const device = query.get('device') ?? recorder.configuredDevice;
  if (device === '' || !(await knownDevice(device, recorder.configuredDevice))) throw Errors.unknownDevice(device);
  return device;
}

function parseSeconds(raw: string | undefined): number {
  if (raw === undefined) return LEVEL_SECONDS.default;
  const s = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(s) || s < LEVEL_SECONDS.min || s > LEVEL_SECONDS.max) {
    throw Errors.badField('seconds', `must be a number from ${LEVEL_SECONDS.min} to ${LEVEL_SECONDS.max}`);
  }
  return s;
}

/** Measures `seconds` of the device's input (its running capture's, or one opened for it). */
async function measure(captures: Captures, device: string, seconds: number) {
  const meter = new LevelMeter();
  let need = Infinity;
  let done: (() => void) | undefined;
  let failed: ((why: string) => void) | undefined;
  const finished = new Promise<void>((resolve, reject) => {
    done = resolve;
    failed = (why) => reject(Errors.deviceUnavailable(why));
  });
  const consumer = {
    data: (_chunk: Buffer, level: ChunkLevel) => {
      meter.absorb(level);
      if (meter.samples >= need) done!();
    },
    end: (failure: string | null) => failed!(failure ?? 'the agent is shutting down'),
  };
  let capture;
  try {
    capture = await captures.attach(device, { rate: DEFAULT_RATE, channels: DEFAULT_CHANNELS }, consumer);
  } catch (err) {
    if (err instanceof CaptureFailed) throw Errors.deviceUnavailable(err.message);
    throw err;
  }
  need = Math.round(seconds * capture.format.rate) * capture.format.channels;
  if (meter.samples >= need) done!();
  try {
    await finished;
  } finally {
    capture.detach(consumer);
  }
  return meter.take();
}

export interface AudioDeps {
  recorder: Recorder;
  captures: Captures;
  live: LiveStreams;
  /** How long the request's credential holds (src/events/routes.ts). */
  owner: (req: Request) => LiveOwner;
  /**
   * The disk guard (src/audio/disk-guard.ts), asked before a start; it throws
   * NotEnoughSpace when the recordings' file system has less free than audio.minFreeBytes.
   */
  admitRecording?: () => void;
  /** A start in another format than the capture a schedule records from (docs/schedule.md): the 409's text, else null. */
  captureConflict?: (device: string, rate: number, channels: number) => string | null;
}

export function audioRoutes(deps: AudioDeps, limits: AudioLimits): Route[] {
  const { recorder, captures, live } = deps;
  return [
    {
      method: 'POST',
      path: '/api/v1/audiofiles/audiorecordstart',
      scope: 'audio',
      doc: () => ({
        operation: {
          tags: ['audio'],
          operationId: 'recordStart',
          summary: 'Start an audio recording',
          requestBody: { required: true, content: json(ref('RecordStart')) },
          responses: { 202: { description: 'recording started', content: json(ref('RecordingStatus')) } },
        },
        errors: [
          Errors.bodyNotJson(),
          Errors.badField('duration', '<rule>'),
          Errors.badField('fileExtension', '<rule>'),
          Errors.badField('sampleRate', '<rule>'),
          Errors.badField('channels', '<rule>'),
          Errors.unknownDevice('<id>'),
          Errors.unknownStartField('<field>'),
          Errors.wavTooLarge('<d>', '<N>', '<M>'),
          Errors.recordingInProgress(),
          Errors.captureFormat('<device> is capturing at <rate> Hz, <n> channel(s)'),
          new HttpError(413, Errors.bodyTooLarge(0).message.replace('0', '<limit>')),
          Errors.recorderUnavailable('<message naming the capture program, or the device and what it refused>'),
          new HttpError(507, Errors.notEnoughSpace(0, 0).message.replace(/0 MB free, 0 MB/, '<N> MB free, <M> MB')),
        ],
        notes: {
          400: 'Invalid body (the text names the field), a device that is not listed, or a wav recording larger than the download limit (maxFileBytes)',
          503: 'The capture program is missing or fails, or the device refuses the format; state becomes `failed`',
          507: 'The file system of the recordings directory has less free space than `audio.minFreeBytes`',
        },
      }),
      handler: async (req, res) => {
        const start = parseStart(await readJsonObject(req, BODY_LIMIT), limits);
        if (start.device !== undefined && !(await knownDevice(start.device, recorder.configuredDevice))) {
          throw Errors.unknownDevice(start.device);
        }
        const user = req.user!;
        const conflict = deps.captureConflict?.(start.device ?? recorder.configuredDevice, start.sampleRate, start.channels);
        if (conflict) throw Errors.captureFormat(conflict);
        let record;
        try {
          // A start while one runs is 409 whatever the disk holds.
          if (recorder.state !== 'recording') deps.admitRecording?.();
          record = await recorder.start({
            ...start,
            who: { user: user.username || null, credential: user.credential, client: req.socket.remoteAddress ?? '' },
          });
        } catch (err) {
          if (err instanceof RecorderBusy) throw Errors.recordingInProgress();
          if (err instanceof RecorderUnavailable) throw Errors.recorderUnavailable(err.message);
          if (err instanceof NotEnoughSpace) throw Errors.notEnoughSpace(err.freeBytes, err.requiredBytes);
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
          tags: ['audio'],
          operationId: 'recordStatus',
          summary: 'Status of the ongoing or last recording',
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
          tags: ['audio'],
          operationId: 'recordStop',
          summary: 'End the running recording now',
          description:
            'The encoder finalizes the file; the record is `finished` with the length ' +
            'actually recorded in `durationSeconds` and `stoppedBy` "request".',
          responses: { 200: { description: 'the recording ended and its file is kept', content: json(ref('RecordingStatus')) } },
        },
        errors: [Errors.noRecording(), Errors.stopFailed('<reason>')],
        notes: { 500: 'The encoder failed while finalizing (the record is `failed`); or an unexpected failure' },
      }),
      handler: async (req, res) => {
        req.resume(); // a body, if any, means nothing here
        let record;
        try {
          record = await recorder.stop('request');
        } catch (err) {
          if (err instanceof NotRecording) throw Errors.noRecording();
          throw err;
        }
        // The capture failed while finalizing: the record says why (state failed).
        if (record.state === 'failed') throw Errors.stopFailed(record.error ?? 'recording failed');
        sendJson(res, 200, record);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/audio/devices',
      scope: 'audio',
      doc: () => ({
        operation: {
          tags: ['audio'],
          operationId: 'audioDevices',
          summary: 'The ALSA capture devices present now',
          description:
            "What `arecord -L` lists (ALSA's device hints: sound cards and PCMs of the ALSA " +
            'configuration), asked afresh on each request, so a microphone plugged in after the start is listed ' +
            "at once. `id` is what `audio.device` and a start's `device` take; `configured` is `audio.device`.",
          responses: { 200: { description: 'the devices', content: json(ref('AudioDevices')) } },
        },
        errors: [Errors.deviceUnavailable('<arecord is not installed ...>')],
        notes: { 503: 'arecord (alsa-utils) is missing' },
      }),
      handler: async (_req, res) => {
        let devices;
        try {
          devices = await listDevices();
        } catch (err) {
          throw Errors.deviceUnavailable((err as Error).message);
        }
        sendJson(res, 200, { configured: recorder.configuredDevice, devices });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/audio/level',
      scope: 'audio',
      doc: () => ({
        operation: {
          tags: ['audio'],
          operationId: 'audioLevel',
          summary: "Peak and RMS level of a device's input",
          description:
            "Measures `seconds` of the device's input; while a recording or a live stream runs on the " +
            'device, from that capture (no second opening of the device). Levels in dBFS (0 is full scale; ' +
            'silence reads -120); `clipped` when a sample reached full scale.',
          parameters: [
            { name: 'device', in: 'query', required: false, schema: { type: 'string' }, description: 'a device id; default audio.device' },
            {
              name: 'seconds',
              in: 'query',
              required: false,
              schema: { type: 'number', minimum: LEVEL_SECONDS.min, maximum: LEVEL_SECONDS.max, default: LEVEL_SECONDS.default },
            },
          ],
          responses: { 200: { description: 'the level', content: json(ref('AudioLevel')) } },
        },
        errors: [
          Errors.badField('seconds', '<rule>'),
          Errors.unknownDevice('<id>'),
          Errors.deviceUnavailable('<why the device could not be opened>'),
        ],
        notes: { 400: 'A bad `seconds`, or a device that is not listed', 503: 'The device could not be opened, or refused the format' },
      }),
      handler: async (req, res) => {
        const query = parseQuery(req.search);
        const seconds = parseSeconds(query.get('seconds'));
        const device = await queryDevice(query, recorder);
        const level = await measure(captures, device, seconds);
        sendJson(res, 200, { device, seconds, ...level });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/audio/live',
      scope: 'audio',
      doc: () => ({
        operation: {
          tags: ['audio'],
          operationId: 'audioLive',
          summary: "Listen: the device's input as it is captured",
          description:
            'Streams for as long as the client reads. `wav` is the PCM behind a header whose lengths say ' +
            '"unknown" (players read to the end); `flac` and `mp3` are encoded as they go. A recording on the same ' +
            `device shares its capture. At most ${LIVE_LIMITS.maxStreams} streams; a client that stops reading is ` +
            'dropped; a stream ends when its credential expires or is revoked, and when the agent stops. ' +
            '`curl -H "Authorization: Bearer $T" ".../api/v1/audio/live?format=wav" | ffplay -`',
          parameters: [
            { name: 'format', in: 'query', required: true, schema: { enum: [...FORMATS] } },
            { name: 'device', in: 'query', required: false, schema: { type: 'string' }, description: 'a device id; default audio.device' },
          ],
          responses: {
            200: {
              description: 'the stream (`Cache-Control: no-store`)',
              content: Object.fromEntries(Object.values(CONTENT_TYPES).map((t) => [t, { schema: { type: 'string', format: 'binary' } }])),
            },
          },
        },
        errors: [
          Errors.badField('format', '<rule>'),
          Errors.unknownDevice('<id>'),
          Errors.tooManyLiveStreams(LIVE_LIMITS.maxStreams),
          Errors.shuttingDown(),
          Errors.deviceUnavailable('<why the device could not be opened>'),
        ],
        notes: {
          400: 'A bad `format`, or a device that is not listed',
          503: 'Too many live streams, the agent is stopping, or the device could not be opened',
        },
      }),
      handler: async (req, res) => {
        const query = parseQuery(req.search);
        const format = query.get('format');
        if (format === undefined || !(FORMATS as readonly string[]).includes(format)) throw Errors.badField('format', formatRule);
        const device = await queryDevice(query, recorder);
        if (live.isClosed) throw Errors.shuttingDown();
        if (req.method === 'HEAD') {
          // What a GET would answer, without opening the device or taking a place.
          res.writeHead(200, liveHeaders(format as AudioFormat));
          res.end();
          return;
        }
        if (live.full) throw Errors.tooManyLiveStreams(LIVE_LIMITS.maxStreams);
        try {
          await live.open(res, device, format as AudioFormat, { rate: DEFAULT_RATE, channels: DEFAULT_CHANNELS }, deps.owner(req));
        } catch (err) {
          if (err instanceof CaptureFailed) throw Errors.deviceUnavailable(err.message);
          throw err;
        }
      },
    },
  ];
}
