// The time of a captured stream's chunks (src/audio/pcm.ts, StreamClock; docs/schedule.md,
// "The recorder"): from their place in the stream, not their arrival, which varies.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { StreamClock } from '../src/audio/pcm.ts';

const test = suite('stream clock');
const RATE = 96_000; // bytes a second: 48 kHz, mono, 16-bit
const CHUNK = 19_200; // 200 ms
const T0 = 1_700_000_000_000;

/** Chunks of 200 ms of a stream whose first sample was at T0, each arriving `delays[i]` ms after its last sample. */
function feed(clock: StreamClock, delays: number[], from = 0, rate = RATE): number[] {
  return delays.map((d, i) => clock.chunk(CHUNK, T0 + (((from + i + 1) * CHUNK) / rate) * 1000 + d));
}

test('a chunk read late does not move the times: each chunk is timed from the least delayed', () => {
  const clock = new StreamClock(RATE);
  // Arrivals that vary by up to 150 ms over a floor of 20 ms.
  const delays = [90, 20, 150, 35, 20, 120, 60, 20, 140, 25];
  const at = feed(clock, delays);
  // From the second chunk on (the floor was reached there), every chunk's time is its place × 200 ms, within 2 ms.
  for (let i = 1; i < at.length; i++) assert.ok(Math.abs(at[i]! - (T0 + 20 + i * 200)) < 2, `chunk ${i}: ${at[i]! - T0}`);
  // Consecutive chunks are exactly 200 ms apart once the floor is known: no gap, no overlap.
  for (let i = 3; i < at.length; i++) assert.ok(Math.abs(at[i]! - at[i - 1]! - 200) < 1.5, `${i}: ${at[i]! - at[i - 1]!}`);
});

test('a sound card slower than its rate is followed; arrival as such would not be', () => {
  const clock = new StreamClock(RATE);
  // The card gives 0.999 of its nominal rate: after 600 chunks (2 minutes) the stream is 120 ms behind its sample count.
  const slow = RATE * 0.999;
  const delays = Array.from({ length: 600 }, (_, i) => (i % 3 === 0 ? 20 : 80));
  const at = feed(clock, delays, 0, slow);
  const truth = T0 + 20 + (599 * CHUNK * 1000) / slow;
  assert.ok(Math.abs(at[599]! - truth) < 30, `behind by ${truth - at[599]!} ms`);
});

test('a step of the clock re-anchors it, either way', () => {
  const clock = new StreamClock(RATE);
  feed(clock, [20, 20, 20]);
  // The wall clock jumps an hour forward (a device without a real-time clock gets its time).
  const hour = 3_600_000;
  const after = clock.chunk(CHUNK, T0 + 800 + 20 + hour);
  assert.ok(Math.abs(after - (T0 + 600 + 20 + hour)) < 1, `${after - T0 - hour}`);
  // And back by a minute.
  const back = clock.chunk(CHUNK, T0 + 1000 + 20 + hour - 60_000);
  assert.ok(Math.abs(back - (T0 + 800 + 20 + hour - 60_000)) < 1, `${back - T0 - hour + 60_000}`);
});

test.run();
