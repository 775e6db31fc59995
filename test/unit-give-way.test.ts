// Background work gives way to a busy API (docs/outbox.md, "Giving way to the API"),
// in-process with the real clock: with requests arriving at BUSY_PER_SECOND or more a chunk
// waits, but never past MAX_PAUSE_MS in a row (the outbox still moves); with the API quiet,
// or at a person's or a scraper's pace, it never waits.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BUSY_PER_SECOND, giveWay, MAX_PAUSE_MS } from '../src/util/give-way.ts';
import { requestLoad as load } from './helpers/request-load.ts';

const unit = suite('giving way to a busy API');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function timed(): Promise<number> {
  const t0 = performance.now();
  await giveWay();
  return performance.now() - t0;
}

unit('a quiet API: no wait', async () => {
  await sleep(120); // a whole counting window without requests
  for (let i = 0; i < 5; i++) assert.ok((await timed()) < 20);
});

unit('a busy API (20 x the threshold): each chunk waits, at most MAX_PAUSE_MS in a row, so the work still moves', async () => {
  const stop = load(BUSY_PER_SECOND * 20);
  try {
    // The rate is read per window, from chunk to chunk: a while of chunks first, as a shipping outbox's.
    for (const t0 = performance.now(); performance.now() - t0 < 150; ) {
      await giveWay();
      await sleep(5); // a chunk's read and send
    }
    for (let i = 0; i < 3; i++) {
      const waited = await timed();
      assert.ok(waited >= MAX_PAUSE_MS - 15, `waited ${waited.toFixed(1)} ms`);
      assert.ok(waited < MAX_PAUSE_MS + 500, `waited ${waited.toFixed(1)} ms: the bound holds`);
    }
  } finally {
    stop();
  }
  // The load over: within a window or two the work goes on at once again.
  await sleep(120);
  assert.ok((await timed()) < 20);
  await sleep(60);
  assert.ok((await timed()) < 20);
});

unit("a person's or a script's pace (a tenth of the threshold): no wait", async () => {
  const stop = load(BUSY_PER_SECOND / 10);
  try {
    for (let i = 0; i < 12; i++) {
      assert.ok((await timed()) < 20);
      await sleep(30); // chunks 30 ms apart: every window is read
    }
  } finally {
    stop();
  }
});

unit.run();
