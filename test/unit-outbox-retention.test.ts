// Retention with the outbox on (docs/outbox.md, "Retention"): uploaded recordings go first,
// oldest first, whatever their age relative to the others; then the oldest un-uploaded ones.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { toDeletePreferringUploaded } from '../src/outbox/retention-order.ts';

const test = suite('outbox retention order');
const DAY = 86_400_000;
const now = 100 * DAY;
const rec = (name: string, day: number, bytes = 10) => ({ name, seq: day, madeAt: day * DAY, bytes });
const recordings = [rec('a', 1), rec('b', 2), rec('c', 3), rec('d', 4), rec('e', 5)];
const names = (r: { name: string }[]) => r.map((x) => x.name);
const none = { maxCount: null, maxBytes: null, maxAgeDays: null };
const pass = { now, plausible: true };

test('maxCount: the uploaded go first, even when newer than un-uploaded ones', () => {
  const uploaded = new Set(['d', 'b']);
  assert.equal(names(toDeletePreferringUploaded(recordings, { ...none, maxCount: 3 }, pass, (n) => uploaded.has(n))), ['b', 'd']);
});

test('then the oldest un-uploaded ones', () => {
  const uploaded = new Set(['e']);
  assert.equal(names(toDeletePreferringUploaded(recordings, { ...none, maxCount: 2 }, pass, (n) => uploaded.has(n))), ['e', 'a', 'b']);
});

test('maxBytes counts the same way; nothing goes when the limits hold', () => {
  const uploaded = new Set(['c']);
  assert.equal(names(toDeletePreferringUploaded(recordings, { ...none, maxBytes: 35 }, pass, (n) => uploaded.has(n))), ['c', 'a']);
  assert.equal(
    toDeletePreferringUploaded(recordings, { ...none, maxCount: 5, maxBytes: 50 }, pass, () => false),
    [],
  );
});

test('maxAgeDays takes everything past it, uploaded or not', () => {
  assert.equal(names(toDeletePreferringUploaded(recordings, { ...none, maxAgeDays: 97.5 }, pass, () => false)), ['a', 'b']);
});

test('the recording whose end started the pass stays; under an implausible clock only maxBytes applies', () => {
  const uploaded = new Set(['e']);
  assert.equal(names(toDeletePreferringUploaded(recordings, { ...none, maxCount: 4 }, { ...pass, keep: 'e' }, (n) => uploaded.has(n))), [
    'a',
  ]);
  const unset = { now: 0, plausible: false };
  assert.equal(
    toDeletePreferringUploaded(recordings, { ...none, maxCount: 1, maxAgeDays: 1 }, unset, () => true),
    [],
  );
  assert.equal(names(toDeletePreferringUploaded(recordings, { ...none, maxBytes: 40 }, unset, (n) => uploaded.has(n))), ['e']);
});

test.run();
