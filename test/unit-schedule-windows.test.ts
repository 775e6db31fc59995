// The window rules (src/schedule/windows.ts): across midnight, the next day's event,
// daylight-saving gaps and repeats, polar days, days and dates, duty cycles, merging, the
// preview's range and what the recorder asks at an instant; and random schedules' periods
// checked against the rules' own definition.
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSchedule } from '../src/schedule/document.ts';
import { compile, momentAt, preview, previewJson, previewShown, windowsStarting } from '../src/schedule/windows.ts';
import { dayOfDate, zoneNamed } from '../src/schedule/zone.ts';

const LONDON = { latitude: 51.5074, longitude: -0.1278 };
const day = (ymd: string) => dayOfDate(ymd)!;
const at = (iso: string) => Date.parse(iso);
const build = (doc: Record<string, unknown>) => compile(parseSchedule({ timeZone: 'Europe/London', ...doc }));
const isoSpans = (c: ReturnType<typeof build>, spans: [number, number][]) => spans.map(([s, e]) => [c.zone.iso(s), c.zone.iso(e)]);

const rules = suite('rules of time');

rules('a window whose end is before its start ends on the next day: one window across midnight', () => {
  const c = build({ windows: [{ start: '22:00', end: '02:00' }] });
  const { windows } = preview(c, day('2024-01-10'), 2);
  assert.equal(
    windows.map((w) => [c.zone.iso(w.start), c.zone.iso(w.end)]),
    [
      ['2024-01-10T22:00:00Z', '2024-01-11T02:00:00Z'],
      ['2024-01-11T22:00:00Z', '2024-01-12T02:00:00Z'],
    ],
  );
  assert.equal(isoSpans(c, windows[0]!.on), [['2024-01-10T22:00:00Z', '2024-01-11T02:00:00Z']]);
});

rules('a sun event end before its start is the next day’s event (sunset to sunrise)', () => {
  const c = build({ location: LONDON, windows: [{ start: 'sunset', end: 'sunrise' }] });
  const [w] = preview(c, day('2024-01-10'), 1).windows;
  const sunrise11 = windowsStarting(
    build({ location: LONDON, windows: [{ start: 'sunrise', end: 'sunrise+1m' }] }),
    day('2024-01-11'),
    day('2024-01-12'),
  ).windows[0]!.start;
  assert.is(w!.end, sunrise11);
  assert.ok(w!.end - w!.start > 15 * 3_600_000 && w!.end - w!.start < 17 * 3_600_000);
});

rules('offsets move a sun event: sunrise-30m to sunrise+2h lasts 2 h 30 min', () => {
  const c = build({ location: LONDON, windows: [{ start: 'sunrise-30m', end: 'sunrise+2h' }] });
  const [w] = preview(c, day('2024-05-01'), 1).windows;
  assert.is(w!.end - w!.start, 150 * 60_000);
  const h = build({ location: LONDON, windows: [{ start: 'sunrise-1h30m', end: 'sunrise' }] });
  const [v] = preview(h, day('2024-05-01'), 1).windows;
  assert.is(v!.end - v!.start, 90 * 60_000);
  assert.is(v!.end, w!.start + 30 * 60_000);
});

rules('a wall time the change to summer time skips is the first instant after the gap', () => {
  const c = build({ windows: [{ start: '01:30', end: '03:00' }] });
  const [w] = preview(c, day('2024-03-31'), 1).windows;
  assert.is(c.zone.iso(w!.start), '2024-03-31T02:00:00+01:00');
  assert.is(w!.start, at('2024-03-31T01:00:00Z'));
  assert.is(w!.end, at('2024-03-31T02:00:00Z'));
  const ny = compile(parseSchedule({ timeZone: 'America/New_York', windows: [{ start: '02:30', end: '04:00' }] }));
  assert.is(preview(ny, day('2024-03-10'), 1).windows[0]!.start, at('2024-03-10T07:00:00Z'));
});

rules('a window whose two wall times a change to summer time skips is none that day, not one of 23 hours', () => {
  for (const [zone, from, start, end, next] of [
    ['Europe/London', '2027-03-28', '01:00', '01:59', '2027-03-29T01:00:00+01:00'],
    ['America/New_York', '2027-03-14', '02:15', '02:30', '2027-03-15T02:15:00-04:00'],
    ['Australia/Lord_Howe', '2026-10-04', '02:10', '02:20', '2026-10-05T02:10:00+11:00'],
  ] as const) {
    const c = compile(parseSchedule({ timeZone: zone, windows: [{ start, end }] }));
    const { windows, skipped } = preview(c, day(from), 2);
    assert.equal(
      windows.map((w) => [c.zone.iso(w.start), w.end - w.start]),
      [[next, (Number(end.slice(3)) - Number(start.slice(3))) * 60_000]],
      zone,
    );
    assert.equal(skipped, [{ day: day(from), window: 0, reason: 'no such time that day' }], zone);
  }
});

rules('a wall time the change back repeats is its first occurrence; other wall times keep their meaning', () => {
  const c = build({
    windows: [
      { start: '01:30', end: '01:45' },
      { start: '22:00', end: '23:00' },
    ],
  });
  const { windows } = preview(c, day('2024-10-26'), 2);
  assert.equal(
    windows.map((w) => [w.start, w.end]),
    [
      [at('2024-10-26T00:30:00Z'), at('2024-10-26T00:45:00Z')],
      [at('2024-10-26T21:00:00Z'), at('2024-10-26T22:00:00Z')],
      [at('2024-10-27T00:30:00Z'), at('2024-10-27T00:45:00Z')],
      [at('2024-10-27T22:00:00Z'), at('2024-10-27T23:00:00Z')],
    ],
  );
  assert.is(c.zone.iso(windows[2]!.start), '2024-10-27T01:30:00+01:00');
});

rules('a window across the night of a change lasts its wall-clock span plus or minus the hour', () => {
  const c = build({ windows: [{ start: '22:00', end: '06:00' }] });
  const spring = preview(c, day('2024-03-30'), 1).windows[0]!;
  const autumn = preview(c, day('2024-10-26'), 1).windows[0]!;
  assert.is(spring.end - spring.start, 7 * 3_600_000);
  assert.is(autumn.end - autumn.start, 9 * 3_600_000);
});

rules('a window whose sun event does not happen that day does not happen, and the preview says why', () => {
  const c = compile(
    parseSchedule({
      location: { latitude: 69.6492, longitude: 18.9553 },
      timeZone: 'Europe/Oslo',
      windows: [
        { start: 'sunrise', end: 'sunrise+1h' },
        { start: '12:00', end: 'dusk' },
        { start: '10:00', end: '11:00' },
      ],
    }),
  );
  const p = preview(c, day('2024-06-20'), 2);
  assert.equal(
    p.skipped.map((s) => [s.day, s.window, s.reason]),
    [
      [day('2024-06-20'), 0, 'no sunrise that day'],
      [day('2024-06-20'), 1, 'no dusk that day'],
      [day('2024-06-21'), 0, 'no sunrise that day'],
      [day('2024-06-21'), 1, 'no dusk that day'],
    ],
  );
  assert.is(p.windows.length, 2, 'the wall-time window still happens');
  assert.is(preview(c, day('2024-03-20'), 1).skipped.length, 0);
});

rules('days select the day on which a window starts, also when it ends on the next', () => {
  const c = build({ windows: [{ start: '22:00', end: '02:00', days: ['fri', 'sat'] }] });
  const { windows } = preview(c, day('2024-01-08'), 7); // Monday 8 to Sunday 14 January
  assert.equal(
    windows.map((w) => c.zone.iso(w.start)),
    ['2024-01-12T22:00:00Z', '2024-01-13T22:00:00Z'],
  );
  assert.is(c.zone.iso(windows[1]!.end), '2024-01-14T02:00:00Z');
});

rules('dates include both ends and may wrap the new year', () => {
  const c = build({ windows: [{ start: '12:00', end: '13:00', dates: { from: '12-30', to: '01-02' } }] });
  const { windows } = preview(c, day('2024-12-27'), 10);
  assert.equal(
    windows.map((w) => c.zone.iso(w.start).slice(0, 10)),
    ['2024-12-30', '2024-12-31', '2025-01-01', '2025-01-02'],
  );
  const plain = build({ windows: [{ start: '12:00', end: '13:00', dates: { from: '03-15', to: '03-16' } }] });
  assert.equal(
    preview(plain, day('2024-03-13'), 5).windows.map((w) => c.zone.iso(w.start).slice(0, 10)),
    ['2024-03-15', '2024-03-16'],
  );
  const leap = build({ windows: [{ start: '12:00', end: '13:00', dates: { from: '02-29', to: '02-29' } }] });
  assert.is(preview(leap, day('2024-01-01'), 366).windows.length, 1);
  assert.is(preview(leap, day('2025-01-01'), 365).windows.length, 0);
});

rules('a duty cycle records onSeconds then pauses offSeconds from the window’s start; the last period is cut at its end', () => {
  const c = build({ windows: [{ start: '10:00', end: '10:12', duty: { onSeconds: 120, offSeconds: 180 } }] });
  const [w] = preview(c, day('2024-01-10'), 1).windows;
  assert.equal(isoSpans(c, w!.on), [
    ['2024-01-10T10:00:00Z', '2024-01-10T10:02:00Z'],
    ['2024-01-10T10:05:00Z', '2024-01-10T10:07:00Z'],
    ['2024-01-10T10:10:00Z', '2024-01-10T10:12:00Z'],
  ]);
  const cut = build({ windows: [{ start: '10:00', end: '10:11', duty: { onSeconds: 120, offSeconds: 180 } }] });
  assert.equal(isoSpans(cut, preview(cut, day('2024-01-10'), 1).windows[0]!.on).at(-1), ['2024-01-10T10:10:00Z', '2024-01-10T10:11:00Z']);
});

rules('overlapping or touching windows merge into one; their periods are the union', () => {
  const c = build({
    windows: [
      { start: '10:00', end: '11:00', duty: { onSeconds: 600, offSeconds: 1200 } },
      { start: '10:30', end: '10:45' },
      { start: '11:00', end: '11:30' },
      { start: '12:00', end: '12:30' },
    ],
  });
  const { windows } = preview(c, day('2024-01-10'), 1);
  assert.equal(
    windows.map((w) => [c.zone.iso(w.start), c.zone.iso(w.end)]),
    [
      ['2024-01-10T10:00:00Z', '2024-01-10T11:30:00Z'],
      ['2024-01-10T12:00:00Z', '2024-01-10T12:30:00Z'],
    ],
  );
  assert.equal(isoSpans(c, windows[0]!.on), [
    ['2024-01-10T10:00:00Z', '2024-01-10T10:10:00Z'],
    ['2024-01-10T10:30:00Z', '2024-01-10T10:45:00Z'],
    ['2024-01-10T11:00:00Z', '2024-01-10T11:30:00Z'],
  ]);
});

rules('the preview lists the merged windows that begin on its days, not one begun the day before', () => {
  const c = build({ windows: [{ start: '22:00', end: '02:00' }] });
  const { windows } = preview(c, day('2024-01-11'), 1);
  assert.equal(
    windows.map((w) => c.zone.iso(w.start)),
    ['2024-01-11T22:00:00Z'],
  );
});

rules('times carry the schedule zone’s offset', () => {
  const zone = zoneNamed('Asia/Kolkata')!;
  assert.is(zone.iso(at('2024-01-10T04:30:00Z')), '2024-01-10T10:00:00+05:30');
  assert.is(zoneNamed('America/St_Johns')!.iso(at('2024-01-10T13:30:00Z')), '2024-01-10T10:00:00-03:30');
  assert.is(zoneNamed('UTC')!.iso(at('2024-01-10T13:30:00.900Z')), '2024-01-10T13:30:00Z');
});

rules('the preview written as bytes is JSON.stringify of the preview, byte for byte, in every kind of zone', () => {
  const windows = [
    { start: 'sunrise-30m', end: 'sunrise+2h', duty: { onSeconds: 60, offSeconds: 240 } },
    { start: 'sunset-1h', end: 'sunset+30m' },
    { start: 'night', end: 'nightEnd' },
    { start: '01:30', end: '02:45', duty: { onSeconds: 600, offSeconds: 300 } }, // across the DST gap and repeat
    { start: '23:00', end: '00:30', days: ['mon', 'fri'] },
  ];
  const cases: Array<[string, { latitude: number; longitude: number }]> = [
    ['Europe/London', LONDON],
    ['UTC', { latitude: 0, longitude: 0 }],
    ['Asia/Kolkata', { latitude: 28.6, longitude: 77.2 }],
    ['America/St_Johns', { latitude: 47.6, longitude: -52.7 }],
    ['Pacific/Chatham', { latitude: -43.9, longitude: -176.5 }],
    ['Europe/Oslo', { latitude: 78.2, longitude: 15.6 }], // Svalbard: polar day and night, skipped windows
  ];
  for (const [timeZone, location] of cases) {
    const c = compile(parseSchedule({ timeZone, location, windows }));
    for (const [from, days] of [
      ['2024-01-01', 366],
      ['2024-03-30', 3],
      ['2024-10-26', 2],
    ] as const) {
      const text = previewJson(c, day(from), days).toString('latin1');
      assert.is(text, JSON.stringify(previewShown(c, day(from), days)), `${timeZone} ${from} ${days}`);
    }
  }
  assert.ok(JSON.parse(previewJson(build({ windows: [] }), day('2024-01-01'), 1).toString()).windows.length === 0);
});

const moment = suite('the schedule at an instant (the recorder)');

moment('inside a period, in a duty pause, between windows', () => {
  const c = build({ windows: [{ start: '10:00', end: '11:00', duty: { onSeconds: 600, offSeconds: 600 } }] });
  const on = momentAt(c, at('2024-01-10T10:05:00Z'));
  assert.equal(on.on, [at('2024-01-10T10:00:00Z'), at('2024-01-10T10:10:00Z')]);
  assert.equal([on.window!.start, on.window!.end], [at('2024-01-10T10:00:00Z'), at('2024-01-10T11:00:00Z')]);
  assert.is(on.next!.start, at('2024-01-11T10:00:00Z'));
  const pause = momentAt(c, at('2024-01-10T10:15:00Z'));
  assert.is(pause.on, null);
  assert.ok(pause.window !== null);
  const off = momentAt(c, at('2024-01-10T12:00:00Z'));
  assert.is(off.window, null);
  assert.is(off.next!.start, at('2024-01-11T10:00:00Z'));
});

moment('a window across midnight is under way after midnight; a window months away is next', () => {
  const c = build({ windows: [{ start: '22:00', end: '02:00' }] });
  assert.is(momentAt(c, at('2024-01-11T01:00:00Z')).window!.start, at('2024-01-10T22:00:00Z'));
  const summer = build({ windows: [{ start: '05:00', end: '06:00', dates: { from: '07-01', to: '07-31' } }] });
  assert.is(momentAt(summer, at('2024-01-11T01:00:00Z')).next!.start, at('2024-07-01T04:00:00Z'));
  assert.is(momentAt(build({ windows: [] }), at('2024-01-11T01:00:00Z')).next, null);
});

const props = suite('random schedules');

const wall = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const sunPoint = fc
  .tuple(
    fc.constantFrom('sunrise', 'sunset', 'dawn', 'dusk', 'solarNoon', 'night'),
    fc.constantFrom('', '+', '-'),
    fc.integer({ min: 1, max: 180 }),
  )
  .map(([e, sign, m]) => (sign ? `${e}${sign}${m}m` : e));
const windowArb = fc
  .record({
    start: fc.oneof(wall, sunPoint),
    end: fc.oneof(wall, sunPoint),
    days: fc.option(fc.subarray(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], { minLength: 1 }), { nil: undefined }),
    duty: fc.option(fc.record({ onSeconds: fc.integer({ min: 60, max: 7200 }), offSeconds: fc.integer({ min: 60, max: 7200 }) }), {
      nil: undefined,
    }),
  })
  .filter((w) => w.start !== w.end)
  .map((w) => Object.fromEntries(Object.entries(w).filter(([, v]) => v !== undefined)));
const zones = fc.constantFrom('Europe/London', 'America/New_York', 'Australia/Sydney', 'Asia/Kolkata', 'UTC', 'Pacific/Chatham');

props(
  'periods are sorted, disjoint and not touching, inside their windows; windows too; an instant records iff some window’s period holds it',
  () => {
    fc.assert(
      fc.property(fc.array(windowArb, { minLength: 1, maxLength: 5 }), zones, fc.integer({ min: 0, max: 365 }), (ws, zone, offset) => {
        const c = compile(parseSchedule({ location: { latitude: 48, longitude: 11 }, timeZone: zone, windows: ws }));
        const from = day('2025-01-01') + offset;
        const { windows } = windowsStarting(c, from, from + 4);
        for (const [i, w] of windows.entries()) {
          assert.ok(w.start < w.end);
          if (i > 0) assert.ok(windows[i - 1]!.end < w.start, 'windows neither overlap nor touch');
          for (const [j, [s, e]] of w.on.entries()) {
            assert.ok(s < e && s >= w.start && e <= w.end);
            if (j > 0) assert.ok(w.on[j - 1]![1] < s, 'periods neither overlap nor touch');
          }
        }
        // Each window alone, on each day: its periods must be recorded by the merged result.
        const spans = windows.flatMap((w) => w.on);
        const recorded = (t: number) => spans.some(([s, e]) => s <= t && t < e);
        for (const [i, w] of ws.entries()) {
          const alone = compile(parseSchedule({ location: { latitude: 48, longitude: 11 }, timeZone: zone, windows: [w] }));
          for (const x of windowsStarting(alone, from, from + 4).windows) {
            for (const [s, e] of x.on) {
              assert.ok(recorded(s) && recorded(e - 1) && recorded(Math.floor((s + e) / 2)), `window ${i}'s period is recorded`);
            }
          }
        }
        for (const [s, e] of spans) {
          const mid = Math.floor((s + e) / 2);
          const some = ws.some((w) => {
            const alone = compile(parseSchedule({ location: { latitude: 48, longitude: 11 }, timeZone: zone, windows: [w] }));
            return windowsStarting(alone, from, from + 4).windows.some((x) => x.on.some(([a, b]) => a <= mid && mid < b));
          });
          assert.ok(some, 'a recorded instant belongs to some window');
        }
      }),
      { numRuns: 150 },
    );
  },
);

rules.run();
moment.run();
props.run();
