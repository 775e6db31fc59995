// The settle after a burst (src/native/memory.ts) waits for a quiet API: a second after the
// burst, and again while requests arrive at BUSY_PER_SECOND or more (docs/performance.md,
// "What the figures taught"), in-process with the real clock.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { burstStarted, settlesRun } from '../src/native/memory.ts';
import { BUSY_PER_SECOND } from '../src/util/give-way.ts';
import { requestLoad as load } from './helpers/request-load.ts';

const unit = suite('the settle after a burst');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

unit('a quiet API: the settle a second after the burst ended', async () => {
  const before = settlesRun();
  burstStarted()();
  await sleep(500);
  assert.is(settlesRun(), before, 'not before the second');
  await sleep(1_000);
  assert.is(settlesRun(), before + 1);
});

unit('a busy API puts the settle off until it is quiet; a pace under the threshold does not', async () => {
  let before = settlesRun();
  const stop = load(BUSY_PER_SECOND * 5);
  try {
    burstStarted()();
    await sleep(3_000);
    assert.is(settlesRun(), before, 'no settle while the API is busy');
  } finally {
    stop();
  }
  await sleep(2_500);
  assert.is(settlesRun(), before + 1, 'the settle once the API is quiet');

  before = settlesRun();
  const stopSlow = load(BUSY_PER_SECOND / 4);
  try {
    burstStarted()();
    await sleep(1_600);
  } finally {
    stopSlow();
  }
  assert.is(settlesRun(), before + 1, 'a person or a scrape does not put it off');
});

unit.run();
