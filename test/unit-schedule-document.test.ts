// The schedule document's validation (src/schedule/document.ts): every refusal names its
// field by path with the text the API answers and the CLI prints; defaults filled in.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parsePoint, parseSchedule, ScheduleInvalid } from '../src/schedule/document.ts';

const refusal = (doc: unknown): string => {
  try {
    parseSchedule(doc, () => 'Europe/London');
  } catch (err) {
    assert.instance(err, ScheduleInvalid);
    return (err as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(doc)}`);
};
const W = (w: Record<string, unknown>) => ({
  windows: [
    { start: '10:00', end: '11:00' },
    { start: '22:00', end: '02:00', ...w },
  ],
});

const doc = suite('schedule document');

doc('defaults filled in: enabled, the device zone, the recording settings, every day, no dates, no duty', () => {
  assert.equal(
    parseSchedule({ windows: [{ start: '22:00', end: '02:00' }] }, () => 'Europe/Paris'),
    {
      enabled: true,
      location: null,
      timeZone: 'Europe/Paris',
      recording: { fileExtension: 'flac', device: null, sampleRate: 48000, channels: 1, segmentSeconds: 300, directory: 'scheduled' },
      windows: [{ start: '22:00', end: '02:00', days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], dates: null, duty: null }],
    },
  );
  assert.equal(parseSchedule({}, () => 'UTC').windows, []);
});

doc('the example document of docs/schedule.md is accepted as written', () => {
  const s = parseSchedule({
    enabled: true,
    location: { latitude: 52.2, longitude: 0.12 },
    timeZone: 'Europe/London',
    recording: { fileExtension: 'flac', device: null, sampleRate: 48000, channels: 1, segmentSeconds: 300, directory: 'scheduled' },
    windows: [
      { start: 'sunrise-30m', end: 'sunrise+2h' },
      {
        start: '22:00',
        end: '02:00',
        days: ['fri', 'sat'],
        dates: { from: '03-15', to: '07-31' },
        duty: { onSeconds: 60, offSeconds: 240 },
      },
    ],
  });
  assert.equal(s.windows[1]!.days, ['fri', 'sat']);
});

doc('start and end: HH:MM or a sun event with an optional offset', () => {
  for (const ok of ['00:00', '23:59', 'sunrise', 'sunset-30m', 'dawn+1h', 'nightEnd+1h30m', 'night-90m', 'solarNoon', 'nauticalDusk+2h']) {
    assert.ok(parsePoint(ok), ok);
  }
  for (const bad of [
    '24:00',
    '7:00',
    '12:60',
    'sunrise+',
    'sunrise+30',
    'moonrise',
    'sunrise+1h30',
    'sunrise 30m',
    'Sunrise',
    'sunrise+25h',
    '',
  ]) {
    assert.is(parsePoint(bad), null, bad);
  }
  assert.is(refusal(W({ start: '25:00' })), 'windows[1].start: must be HH:MM or a sun event with an offset');
  assert.is(refusal(W({ end: 'moonset' })), 'windows[1].end: must be HH:MM or a sun event with an offset');
  assert.is(refusal(W({ end: 7 })), 'windows[1].end: must be HH:MM or a sun event with an offset');
  assert.is(refusal(W({ start: '02:00' })), 'windows[1].end: must differ from start');
});

doc('a sun event needs location, named', () => {
  assert.is(refusal({ windows: [{ start: '10:00', end: 'sunset' }] }), 'location: must be set for the sun event in windows[0].end');
  assert.is(refusal({ location: { latitude: 91, longitude: 0 } }), 'location.latitude: must be a number from -90 to 90');
  assert.is(refusal({ location: { latitude: 0, longitude: '0' } }), 'location.longitude: must be a number from -180 to 180');
  assert.is(refusal({ location: [1, 2] }), 'location: must be {"latitude": N, "longitude": N}');
});

doc('every other field refused by its path', () => {
  const cases: [unknown, string][] = [
    [[], 'schedule: must be a JSON object'],
    [{ enabled: 'yes' }, 'enabled: must be true or false'],
    [{ colour: 'red' }, 'colour: is not a field of a schedule'],
    [{ timeZone: 'Mars/Olympus' }, 'timeZone: must be an IANA time zone name such as "Europe/London"'],
    [{ recording: 'flac' }, 'recording: must be an object'],
    [{ recording: { fileExtension: 'ogg' } }, 'recording.fileExtension: must be one of "flac", "wav", "mp3"'],
    [{ recording: { device: '' } }, 'recording.device: must be a device id from GET /api/v1/audio/devices, or null'],
    [{ recording: { sampleRate: 4000 } }, 'recording.sampleRate: must be an integer from 8000 to 192000'],
    [{ recording: { channels: 3 } }, 'recording.channels: must be 1 or 2'],
    [{ recording: { segmentSeconds: 9 } }, 'recording.segmentSeconds: must be an integer from 10 to 3600'],
    [{ recording: { segmentSeconds: 3601 } }, 'recording.segmentSeconds: must be an integer from 10 to 3600'],
    [
      { recording: { directory: '../out' } },
      'recording.directory: must be a relative directory inside recordingsDir (no "..", no leading "/")',
    ],
    [
      { recording: { directory: '/abs' } },
      'recording.directory: must be a relative directory inside recordingsDir (no "..", no leading "/")',
    ],
    [{ recording: { gain: 2 } }, 'recording.gain: is not a field of a schedule'],
    [{ windows: {} }, 'windows: must be a list of at most 16 windows'],
    [{ windows: Array.from({ length: 17 }, () => ({ start: '10:00', end: '11:00' })) }, 'windows: must be a list of at most 16 windows'],
    [W({ colour: 1 }), 'windows[1].colour: is not a field of a schedule'],
    [{ windows: ['10:00'] }, 'windows[0]: must be an object'],
    [W({ days: [] }), 'windows[1].days: must be a non-empty list of "mon", "tue", "wed", "thu", "fri", "sat", "sun"'],
    [W({ days: ['friday'] }), 'windows[1].days: must be a non-empty list of "mon", "tue", "wed", "thu", "fri", "sat", "sun"'],
    [W({ dates: '03-15' }), 'windows[1].dates: must be {"from": "MM-DD", "to": "MM-DD"}'],
    [W({ dates: { from: '02-30', to: '03-01' } }), 'windows[1].dates.from: must be a date MM-DD'],
    [W({ dates: { from: '02-28', to: '13-01' } }), 'windows[1].dates.to: must be a date MM-DD'],
    [W({ duty: { onSeconds: 0, offSeconds: 10 } }), 'windows[1].duty.onSeconds: must be an integer from 1 to 86400'],
    [W({ duty: { onSeconds: 10, offSeconds: 1.5 } }), 'windows[1].duty.offSeconds: must be an integer from 1 to 86400'],
    [W({ duty: { onSeconds: 10 } }), 'windows[1].duty.offSeconds: must be an integer from 1 to 86400'],
    [W({ duty: 60 }), 'windows[1].duty: must be {"onSeconds": N, "offSeconds": N}'],
  ];
  for (const [input, text] of cases) assert.is(refusal(input), text, JSON.stringify(input));
});

doc.run();
