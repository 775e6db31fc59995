// isoTime() gives exactly what Date.prototype.toISOString() gives.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isoTime } from '../src/util/time.ts';

const t = suite('isoTime');

t('matches toISOString at the edges of days, months, leap years and centuries', () => {
  const edges = [
    '1970-01-01T00:00:00.000Z',
    '1969-12-31T23:59:59.999Z',
    '2000-02-29T12:34:56.007Z',
    '1900-03-01T00:00:00.000Z',
    '2100-02-28T23:59:59.999Z',
    '2100-03-01T00:00:00.000Z',
    '2024-12-31T23:59:59.999Z',
    '2025-01-01T00:00:00.000Z',
    '2026-11-22T14:19:28.789Z',
    '9999-12-31T23:59:59.999Z',
    '0001-01-01T00:00:00.000Z',
    '1600-02-29T00:00:00.010Z',
  ];
  for (const text of edges) assert.is(isoTime(Date.parse(text)), text);
});

t('matches toISOString for 200,000 random instants from 1900 to 2400, and for now', () => {
  const lo = Date.parse('1900-01-01T00:00:00Z');
  const hi = Date.parse('2400-01-01T00:00:00Z');
  for (let i = 0; i < 200_000; i++) {
    const ms = lo + Math.floor(Math.random() * (hi - lo));
    const want = new Date(ms).toISOString();
    if (isoTime(ms) !== want) assert.is(isoTime(ms), want, `at ${ms}`);
  }
  const before = Date.now();
  const now = Date.parse(isoTime());
  assert.ok(now >= before && now <= Date.now());
});

t.run();
