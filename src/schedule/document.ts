// The schedule document (docs/schedule.md, "The document"): validation that names the
// field by path (`windows[1].start: must be …`), the defaults GET fills in, and the parsed
// form the window rules work on. Pure: no file, no clock.
import { SUN_EVENTS, type SunEvent } from './sun.ts';
import { deviceZoneName, isZoneName } from './zone.ts';

export const MAX_WINDOWS = 16;
export const SEGMENT_RANGE = [10, 3600] as const;
export const FORMATS = ['flac', 'wav', 'mp3'] as const;
export const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const; // index = weekday
const MAX_OFFSET_MINUTES = 24 * 60;
const DUTY_MAX_SECONDS = 86_400;

export type Day = (typeof DAYS)[number];
export type Format = (typeof FORMATS)[number];

/** A window's `start` or `end`, parsed: a wall time, or a sun event with a signed offset. */
export type Point = { kind: 'wall'; minute: number } | { kind: 'sun'; event: SunEvent; offsetMs: number };

export interface Window {
  start: string;
  end: string;
  days: Day[];
  dates: { from: string; to: string } | null;
  duty: { onSeconds: number; offSeconds: number } | null;
}

export interface Recording {
  fileExtension: Format;
  device: string | null;
  sampleRate: number;
  channels: number;
  segmentSeconds: number;
  directory: string;
}

/** The document with its defaults filled in (what GET answers). */
export interface Schedule {
  enabled: boolean;
  location: { latitude: number; longitude: number } | null;
  timeZone: string;
  recording: Recording;
  windows: Window[];
}

export const DEFAULT_RECORDING: Recording = {
  fileExtension: 'flac',
  device: null,
  sampleRate: 48000,
  channels: 1,
  segmentSeconds: 300,
  directory: 'scheduled',
};

/** A refused document: the message is `<path>: <rule>`, the 400's text and the CLI's. */
export class ScheduleInvalid extends Error {
  readonly path: string;
  constructor(path: string, rule: string) {
    super(`${path}: ${rule}`);
    this.name = 'ScheduleInvalid';
    this.path = path;
  }
}

const POINT_RULE = 'must be HH:MM or a sun event with an offset';
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses `HH:MM`, `sunrise`, `sunset-30m`, `dawn+1h30m` …; null when it is none of them. */
export function parsePoint(text: string): Point | null {
  const wall = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  if (wall) return { kind: 'wall', minute: Number(wall[1]) * 60 + Number(wall[2]) };
  const sun = /^([A-Za-z]+)(?:([+-])(?:(\d{1,2})h)?(?:(\d{1,4})m)?)?$/.exec(text);
  if (!sun || !(SUN_EVENTS as readonly string[]).includes(sun[1]!)) return null;
  const [, event, sign, h, m] = sun;
  if (sign !== undefined && h === undefined && m === undefined) return null; // `sunrise+` alone
  const minutes = Number(h ?? 0) * 60 + Number(m ?? 0);
  if (minutes > MAX_OFFSET_MINUTES) return null;
  return { kind: 'sun', event: event as SunEvent, offsetMs: (sign === '-' ? -1 : 1) * minutes * 60_000 };
}

function checkKeys(value: Record<string, unknown>, allowed: readonly string[], path: string) {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw new ScheduleInvalid(path ? `${path}.${key}` : key, 'is not a field of a schedule');
  }
}

function integer(value: unknown, path: string, [lo, hi]: readonly [number, number]): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < lo || value > hi) {
    throw new ScheduleInvalid(path, `must be an integer from ${lo} to ${hi}`);
  }
  return value;
}

function number(value: unknown, path: string, lo: number, hi: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < lo || value > hi) {
    throw new ScheduleInvalid(path, `must be a number from ${lo} to ${hi}`);
  }
  return value;
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `MM-DD` as month × 100 + day (29 February allowed); null when not one. */
export function parseMonthDay(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const m = /^(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const month = Number(m[1]);
  const day = Number(m[2]);
  if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]!) return null;
  return month * 100 + day;
}

function parseRecording(value: unknown): Recording {
  if (value === undefined) return { ...DEFAULT_RECORDING };
  if (!isObject(value)) throw new ScheduleInvalid('recording', 'must be an object');
  checkKeys(value, Object.keys(DEFAULT_RECORDING), 'recording');
  const r = { ...DEFAULT_RECORDING, ...value };
  if (!(FORMATS as readonly unknown[]).includes(r.fileExtension)) {
    throw new ScheduleInvalid('recording.fileExtension', 'must be one of "flac", "wav", "mp3"');
  }
  if (r.device !== null && (typeof r.device !== 'string' || r.device === '' || r.device.length > 256 || /[\0\n]/.test(r.device))) {
    throw new ScheduleInvalid('recording.device', 'must be a device id from GET /api/v1/audio/devices, or null');
  }
  integer(r.sampleRate, 'recording.sampleRate', [8000, 192000]);
  if (r.channels !== 1 && r.channels !== 2) throw new ScheduleInvalid('recording.channels', 'must be 1 or 2');
  integer(r.segmentSeconds, 'recording.segmentSeconds', SEGMENT_RANGE);
  const dir = r.directory;
  if (
    typeof dir !== 'string' ||
    dir === '' ||
    dir.length > 255 ||
    dir.startsWith('/') ||
    /[\0\\]/.test(dir) ||
    dir.split('/').some((part) => part === '' || part === '.' || part === '..')
  ) {
    throw new ScheduleInvalid('recording.directory', 'must be a relative directory inside recordingsDir (no "..", no leading "/")');
  }
  return r as Recording;
}

function parseWindow(value: unknown, path: string): Window {
  if (!isObject(value)) throw new ScheduleInvalid(path, 'must be an object');
  checkKeys(value, ['start', 'end', 'days', 'dates', 'duty'], path);
  for (const key of ['start', 'end'] as const) {
    if (typeof value[key] !== 'string' || !parsePoint(value[key] as string)) throw new ScheduleInvalid(`${path}.${key}`, POINT_RULE);
  }
  if (value.end === value.start) throw new ScheduleInvalid(`${path}.end`, 'must differ from start');
  let days: Day[] = [...DAYS.slice(1), 'sun'];
  if (value.days !== undefined) {
    const list = value.days;
    if (!Array.isArray(list) || list.length === 0 || list.some((d) => !(DAYS as readonly unknown[]).includes(d))) {
      throw new ScheduleInvalid(`${path}.days`, 'must be a non-empty list of "mon", "tue", "wed", "thu", "fri", "sat", "sun"');
    }
    days = [...new Set(list as Day[])];
  }
  let dates: Window['dates'] = null;
  if (value.dates !== undefined && value.dates !== null) {
    const d = value.dates;
    if (!isObject(d)) throw new ScheduleInvalid(`${path}.dates`, 'must be {"from": "MM-DD", "to": "MM-DD"}');
    checkKeys(d, ['from', 'to'], `${path}.dates`);
    for (const key of ['from', 'to'] as const) {
      if (parseMonthDay(d[key]) === null) throw new ScheduleInvalid(`${path}.dates.${key}`, 'must be a date MM-DD');
    }
    dates = { from: d.from as string, to: d.to as string };
  }
  let duty: Window['duty'] = null;
  if (value.duty !== undefined && value.duty !== null) {
    const d = value.duty;
    if (!isObject(d)) throw new ScheduleInvalid(`${path}.duty`, 'must be {"onSeconds": N, "offSeconds": N}');
    checkKeys(d, ['onSeconds', 'offSeconds'], `${path}.duty`);
    duty = {
      onSeconds: integer(d.onSeconds, `${path}.duty.onSeconds`, [1, DUTY_MAX_SECONDS]),
      offSeconds: integer(d.offSeconds, `${path}.duty.offSeconds`, [1, DUTY_MAX_SECONDS]),
    };
  }
  return { start: value.start as string, end: value.end as string, days, dates, duty };
}

/**
 * Validates a document and answers it with its defaults filled in (`timeZone`: the
 * device's zone). Throws ScheduleInvalid naming the first wrong field by path.
 */
export function parseSchedule(value: unknown, defaultZone: () => string = deviceZoneName): Schedule {
  if (!isObject(value)) throw new ScheduleInvalid('schedule', 'must be a JSON object');
  checkKeys(value, ['enabled', 'location', 'timeZone', 'recording', 'windows'], '');
  const enabled = value.enabled ?? true;
  if (typeof enabled !== 'boolean') throw new ScheduleInvalid('enabled', 'must be true or false');
  let location: Schedule['location'] = null;
  if (value.location !== undefined && value.location !== null) {
    const l = value.location;
    if (!isObject(l)) throw new ScheduleInvalid('location', 'must be {"latitude": N, "longitude": N}');
    checkKeys(l, ['latitude', 'longitude'], 'location');
    location = {
      latitude: number(l.latitude, 'location.latitude', -90, 90),
      longitude: number(l.longitude, 'location.longitude', -180, 180),
    };
  }
  let timeZone: string;
  if (value.timeZone === undefined || value.timeZone === null) timeZone = defaultZone();
  else if (typeof value.timeZone !== 'string' || value.timeZone === '' || !isZoneName(value.timeZone)) {
    throw new ScheduleInvalid('timeZone', 'must be an IANA time zone name such as "Europe/London"');
  } else timeZone = value.timeZone;
  const recording = parseRecording(value.recording);
  const list = value.windows ?? [];
  if (!Array.isArray(list) || list.length > MAX_WINDOWS)
    throw new ScheduleInvalid('windows', `must be a list of at most ${MAX_WINDOWS} windows`);
  const windows = list.map((w, i) => parseWindow(w, `windows[${i}]`));
  if (location === null) {
    for (const [i, w] of windows.entries()) {
      for (const key of ['start', 'end'] as const) {
        if (parsePoint(w[key])!.kind === 'sun')
          throw new ScheduleInvalid('location', `must be set for the sun event in windows[${i}].${key}`);
      }
    }
  }
  return { enabled, location, timeZone, recording, windows };
}
