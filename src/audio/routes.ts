// The recording routes (start, status, stop) and the device, level and live routes
// (docs/behaviour.md, "Audio"), all with scope `audio`.
import { Errors, HttpError, mib } from '../http/errors.ts';
import { ref } from '../apidocs/responses.ts';
import { type Input, number, oneOf, readFields, string } from '../ops/fields.ts';
import { toRoute } from '../ops/http.ts';
import { operation, undeclared } from '../ops/operation.ts';
import { parseQuery } from '../files/query.ts';
import type { Route } from '../http/types.ts';
import type { ApiTokenStore } from '../auth/api-tokens.ts';
import type { Tokens } from '../auth/tokens.ts';
import { validity } from '../events/routes.ts';
import { CHANNEL_COUNTS, DEFAULT_CHANNELS, DEFAULT_RATE, FORMATS, RATE_RANGE, wavFileBytes, type AudioFormat } from './argv.ts';
import { CaptureFailed } from './capture.ts';
import { NotEnoughSpace } from './disk-guard.ts';
import type { Captures } from './captures.ts';
import { knownDevice, listDevices } from './devices.ts';
import { CONTENT_TYPES, LIVE_LIMITS, liveHeaders, type LiveOwner, type LiveStreams } from './live.ts';
import { LevelMeter, type ChunkLevel } from './pcm.ts';
import { NotRecording, RecorderBusy, RecorderUnavailable, type Recorder, type StartRequest } from './recorder.ts';

const BODY_LIMIT = 16 * 1024;
export const LEVEL_SECONDS = { min: 0.2, max: 10, default: 1 } as const;

export interface AudioLimits {
  maxDurationSeconds: number;
  maxFileBytes: number;
}

const formatRule = `must be one of ${FORMATS.map((f) => `"${f}"`).join(', ')}`;

/** The start body's fields; the device's existence is checked apart (it asks ALSA). */
function startFields(limits: AudioLimits) {
  return {
    duration: number({
      above: 0,
      max: limits.maxDurationSeconds,
      rule: `must be a number of seconds above 0 and at most ${limits.maxDurationSeconds}`,
    })
      .need()
      .about(
        'length of the recording in seconds; at most audio.maxDurationSeconds of the config (default 3600). ' +
          'A wav recording whose file would exceed maxFileBytes (the download limit) is refused (400)',
      ),
    fileExtension: oneOf(FORMATS, { rule: formatRule })
      .need()
      .about('audio file format; flac and mp3 end when the file reaches maxFileBytes'),
    device: string({ minLength: 1, maxLength: 256, noNul: true, rule: 'must be a device id from GET /api/v1/audio/devices' }).about(
      'a device id from GET /api/v1/audio/devices; default audio.device',
    ),
    sampleRate: number({
      integer: true,
      min: RATE_RANGE[0],
      max: RATE_RANGE[1],
      rule: `must be an integer from ${RATE_RANGE[0]} to ${RATE_RANGE[1]}`,
    }).or(DEFAULT_RATE),
    channels: oneOf(CHANNEL_COUNTS, { rule: 'must be 1 or 2' }).or(DEFAULT_CHANNELS),
  };
}

const START_WHAT = 'a recording start';

/** No recording the agent would refuse to serve: a wav's size is known before it starts. */
function startRequest(b: Input<ReturnType<typeof startFields>>, limits: AudioLimits): Omit<StartRequest, 'who'> {
  const f = { rate: b.sampleRate, channels: b.channels };
  if (b.fileExtension === 'wav' && wavFileBytes(f, b.duration) > limits.maxFileBytes) {
    throw Errors.wavTooLarge(b.duration, mib(wavFileBytes(f, b.duration)), mib(limits.maxFileBytes));
  }
  return { format: b.fileExtension, duration: b.duration, device: b.device, sampleRate: f.rate, channels: f.channels };
}

/** Validates a start body as the route does (every refusal names its field). */
export function parseStart(body: Record<string, unknown>, limits: AudioLimits): Omit<StartRequest, 'who'> {
  const fields = startFields(limits);
  for (const key of Object.keys(body)) if (!Object.hasOwn(fields, key)) throw undeclared(key, START_WHAT);
  return startRequest(
    readFields(fields, (name) => body[name], false),
    limits,
  );
}

/** The device a query names (default: audio.device), refused with 400 when ALSA does not list it. */
async function knownOrRefused(asked: string | undefined, recorder: Recorder): Promise<string> {
  const device = asked ?? recorder.configuredDevice;
  if (device === '' || !(await knownDevice(device, recorder.configuredDevice))) throw Errors.unknownDevice(device);
  return device;
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
  /** Limits: `audio.maxDurationSeconds` and `maxFileBytes`. */
  config: { audio: { maxDurationSeconds: number }; maxFileBytes: number };
  /** What tells how long a live stream's credential holds (src/events/routes.ts). */
  tokens: Tokens;
  apiTokens: ApiTokenStore;
  /**
   * The disk guard (src/audio/disk-guard.ts), asked before a start; it throws
   * NotEnoughSpace when the recordings' file system has less free than audio.minFreeBytes.
   */
  admitRecording?: () => void;
  /** A start in another format than the capture a schedule records from (docs/schedule.md): the 409's text, else null. */
  captureConflict?: (device: string, rate: number, channels: number) => string | null;
}

export function audioRoutes(deps: AudioDeps): Route[] {
  const { recorder, captures, live } = deps;
  const limits: AudioLimits = { maxDurationSeconds: deps.config.audio.maxDurationSeconds, maxFileBytes: deps.config.maxFileBytes };
  const recording = ref('RecordingStatus');
  return [
    toRoute(
      operation({
        id: 'recordStart',
        method: 'POST',
        path: '/api/v1/audiofiles/audiorecordstart',
        scope: 'audio',
        action: 'recording/start',
        tags: ['audio'],
        summary: 'Start an audio recording',
        body: { fields: startFields(limits), limit: BODY_LIMIT, what: START_WHAT },
        answers: { 202: { description: 'recording started', schema: recording } },
        errors: () => [
          Errors.unknownDevice('<id>'),
          Errors.wavTooLarge('<d>', '<N>', '<M>'),
          Errors.recordingInProgress(),
          Errors.captureFormat('<device> is capturing at <rate> Hz, <n> channel(s)'),
          Errors.recorderUnavailable('<message naming the capture program, or the device and what it refused>'),
          new HttpError(507, Errors.notEnoughSpace(0, 0).message.replace(/0 MB free, 0 MB/, '<N> MB free, <M> MB')),
        ],
        notes: {
          400: 'Invalid body (the text names the field), a device that is not listed, or a wav recording larger than the download limit (maxFileBytes)',
          503: 'The capture program is missing or fails, or the device refuses the format; state becomes `failed`',
          507: 'The file system of the recordings directory has less free space than `audio.minFreeBytes`',
        },
        run: async ({ body }, { principal, client }) => {
          const start = startRequest(body, limits);
          if (start.device !== undefined && !(await knownDevice(start.device, recorder.configuredDevice))) {
            throw Errors.unknownDevice(start.device);
          }
          const conflict = deps.captureConflict?.(start.device ?? recorder.configuredDevice, start.sampleRate, start.channels);
          if (conflict) throw Errors.captureFormat(conflict);
          let record;
          try {
            // A start while one runs is 409 whatever the disk holds.
            if (recorder.state !== 'recording') deps.admitRecording?.();
            record = await recorder.start({
              ...start,
              who: { user: principal!.username || null, credential: principal!.credential, client },
            });
          } catch (err) {
            if (err instanceof RecorderBusy) throw Errors.recordingInProgress();
            if (err instanceof RecorderUnavailable) throw Errors.recorderUnavailable(err.message);
            if (err instanceof NotEnoughSpace) throw Errors.notEnoughSpace(err.freeBytes, err.requiredBytes);
            throw err;
          }
          return { status: 202, body: record };
        },
      }),
    ),
    toRoute(
      operation({
        id: 'recordStatus',
        method: 'GET',
        path: '/api/v1/audiofiles/audiorecordstatus',
        scope: 'audio',
        action: 'recording/status',
        tags: ['audio'],
        summary: 'Status of the ongoing or last recording',
        answers: { 200: { description: 'the recording status record', schema: recording } },
        run: () => ({ status: 200, body: recorder.status() }),
      }),
    ),
    toRoute(
      operation({
        id: 'recordStop',
        method: 'POST',
        path: '/api/v1/audiofiles/audiorecordstop',
        scope: 'audio',
        action: 'recording/stop',
        tags: ['audio'],
        summary: 'End the running recording now',
        description:
          'The encoder finalizes the file; the record is `finished` with the length ' +
          'actually recorded in `durationSeconds` and `stoppedBy` "request".',
        answers: { 200: { description: 'the recording ended and its file is kept', schema: recording } },
        errors: () => [Errors.noRecording(), Errors.stopFailed('<reason>')],
        notes: { 500: 'The encoder failed while finalizing (the record is `failed`); or an unexpected failure' },
        run: async () => {
          let record;
          try {
            record = await recorder.stop('request');
          } catch (err) {
            if (err instanceof NotRecording) throw Errors.noRecording();
            throw err;
          }
          // The capture failed while finalizing: the record says why (state failed).
          if (record.state === 'failed') throw Errors.stopFailed(record.error ?? 'recording failed');
          return { status: 200, body: record };
        },
      }),
    ),
    toRoute(
      operation({
        id: 'audioDevices',
        method: 'GET',
        path: '/api/v1/audio/devices',
        scope: 'audio',
        action: 'audio/devices',
        tags: ['audio'],
        summary: 'The ALSA capture devices present now',
        description:
          "What `arecord -L` lists (ALSA's device hints: sound cards and PCMs of the ALSA " +
          'configuration), asked afresh on each request, so a microphone plugged in after the start is listed ' +
          "at once. `id` is what `audio.device` and a start's `device` take; `configured` is `audio.device`.",
        answers: { 200: { description: 'the devices', schema: ref('AudioDevices') } },
        errors: () => [Errors.deviceUnavailable('<arecord is not installed ...>')],
        notes: { 503: 'arecord (alsa-utils) is missing' },
        run: async () => {
          let devices;
          try {
            devices = await listDevices();
          } catch (err) {
            throw Errors.deviceUnavailable((err as Error).message);
          }
          return { status: 200, body: { configured: recorder.configuredDevice, devices } };
        },
      }),
    ),
    toRoute(
      operation({
        id: 'audioLevel',
        method: 'GET',
        path: '/api/v1/audio/level',
        scope: 'audio',
        action: 'audio/level',
        tags: ['audio'],
        summary: "Peak and RMS level of a device's input",
        description:
          "Measures `seconds` of the device's input; while a recording or a live stream runs on the " +
          'device, from that capture (no second opening of the device). Levels in dBFS (0 is full scale; ' +
          'silence reads -120); `clipped` when a sample reached full scale.',
        query: {
          device: string({ rule: 'must be a string' }).about('a device id; default audio.device'),
          seconds: number({
            min: LEVEL_SECONDS.min,
            max: LEVEL_SECONDS.max,
            rule: `must be a number from ${LEVEL_SECONDS.min} to ${LEVEL_SECONDS.max}`,
          }).or(LEVEL_SECONDS.default),
        },
        answers: { 200: { description: 'the level', schema: ref('AudioLevel') } },
        errors: () => [Errors.unknownDevice('<id>'), Errors.deviceUnavailable('<why the device could not be opened>')],
        notes: { 400: 'A bad `seconds`, or a device that is not listed', 503: 'The device could not be opened, or refused the format' },
        run: async ({ query }) => {
          const device = await knownOrRefused(query.device, recorder);
          const level = await measure(captures, device, query.seconds);
          return { status: 200, body: { device, seconds: query.seconds, ...level } };
        },
      }),
    ),
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
            `device shares its capture. At most ${LIVE_LIMITS.maxStreams} streams, ${LIVE_LIMITS.maxStreamsPerUser} of them for one user (all their tokens and sessions); a client that stops reading is ` +
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
          Errors.tooManyLiveStreamsForUser(LIVE_LIMITS.maxStreamsPerUser),
          Errors.shuttingDown(),
          Errors.deviceUnavailable('<why the device could not be opened>'),
        ],
        notes: {
          400: 'A bad `format`, or a device that is not listed',
          503: 'Too many live streams (in all, or of this user), the agent is stopping, or the device could not be opened',
        },
      }),
      handler: async (req, res) => {
        const query = parseQuery(req.search);
        const format = query.get('format');
        if (format === undefined || !(FORMATS as readonly string[]).includes(format)) throw Errors.badField('format', formatRule);
        const device = await knownOrRefused(query.get('device'), recorder);
        if (live.isClosed) throw Errors.shuttingDown();
        if (req.method === 'HEAD') {
          // What a GET would answer, without opening the device or taking a place.
          res.writeHead(200, liveHeaders(format as AudioFormat));
          res.end();
          return;
        }
        const owner: LiveOwner = validity(req, deps);
        const refusal = live.refusal(owner.user);
        if (refusal === 'full') throw Errors.tooManyLiveStreams(LIVE_LIMITS.maxStreams);
        if (refusal === 'user') throw Errors.tooManyLiveStreamsForUser(LIVE_LIMITS.maxStreamsPerUser);
        try {
          await live.open(res, device, format as AudioFormat, { rate: DEFAULT_RATE, channels: DEFAULT_CHANNELS }, owner);
        } catch (err) {
          if (err instanceof CaptureFailed) throw Errors.deviceUnavailable(err.message);
          throw err;
        }
      },
    },
  ];
}
