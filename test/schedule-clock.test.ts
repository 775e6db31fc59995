// Segments while the wall clock goes back (docs/schedule.md, "Segments"): a real agent whose
// clock libfaketime steps back under it (test/helpers/faketime.ts) records from PulseAudio's
// virtual microphone playing pink noise. A segment is named from the wall clock, so after a
// step back its name may be one stored or being written: it takes a suffix (`_1`, `_2`), and
// no segment is lost or replaced.
import { execFileSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import * as assert from 'uvu/assert';
import { startAgent } from './helpers/agent.ts';
import { fakeClock } from './helpers/faketime.ts';
import { scheduledSegments, segmentTime } from './helpers/audio.ts';
import { bearer } from './helpers/http.ts';
import { noisySuite } from './helpers/pulse.ts';
import { segmentName } from '../src/schedule/segments.ts';

const SYNCED = join('/tmp', `da-synced-schedule-clock-${process.pid}`);
const RATE = 48_000;
const pad = (n: number) => String(n).padStart(2, '0');
const hhmm = (ms: number) => `${pad(new Date(ms).getUTCHours())}:${pad(new Date(ms).getUTCMinutes())}`;
const sleepUntil = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms - Date.now())));

const clock = noisySuite('segments and a clock stepped back', SYNCED);

clock('a clock stepped back names segments after taken ones: they take a suffix; none lost, none replaced', async ({ mic }) => {
  writeFileSync(SYNCED, '');
  const fake = fakeClock('+0');
  const agent = await startAgent({
    env: { ...mic.env, ...fake.env },
    config: { audio: { device: 'pulse', minFreeBytes: 0 }, clock: { syncedFile: SYNCED } },
  });
  try {
    const token = await agent.login();
    // A window from the next whole minute (at least 5 s away): its first segment is named from
    // its start, W, exactly; the next ones from W + 10 s, W + 20 s … within a few ms.
    const w = Math.ceil((Date.now() + 5000) / 60_000) * 60_000;
    const res = await fetch(`${agent.url}/api/v1/schedule`, {
      method: 'PUT',
      headers: { ...bearer(token), 'Content-Type': 'application/json' },
      body: JSON.stringify({
        timeZone: 'UTC',
        recording: { fileExtension: 'wav', segmentSeconds: 10 },
        windows: [{ start: hhmm(w), end: hhmm(w + 10 * 60_000) }],
      }),
    });
    assert.is(res.status, 200);
    // Every segment stored, by name, with the inode it was stored as: none may be replaced.
    const seen = new Map<string, number>();
    const watch = setInterval(() => {
      for (const f of scheduledSegments(agent.baseDir).files) {
        try {
          if (!seen.has(f)) seen.set(f, statSync(f).ino);
        } catch {
          /* removed meanwhile */
        }
      }
    }, 100);
    try {
      // 9.5 s back 1.2 s before the second segment begins: it begins at W + 0.5 s by the wall
      // clock, named W as the first one, which is being finalized then (the same temp file).
      await sleepUntil(w + 8800);
      fake.set('-9.5');
      // The third begins at W + 10.5 s: W + 10. Then 20 s further back: the fourth begins at
      // W + 0.5 s again (W and W_1 stored), the fifth at W + 10.5 s (W + 10 stored).
      await sleepUntil(w + 28_800);
      fake.set('-29.5');
      await sleepUntil(w + 45_000);
      const { code } = await agent.stop('SIGTERM');
      assert.is(code, 0);
    } finally {
      clearInterval(watch);
    }
    const { files, temps } = scheduledSegments(agent.baseDir);
    assert.equal(temps, [], 'no temp file left');
    const name = (ms: number, suffix = '') => `${segmentName(ms).base}${suffix}.wav`;
    assert.equal(
      files.map((f) => basename(f)).sort(),
      [name(w), name(w, '_1'), name(w, '_2'), name(w + 10_000), name(w + 10_000, '_1')].sort(),
      `segments: ${files.join(', ')}\n${agent.output()}`,
    );
    // A suffixed name still reads as the instant of its first sample by the wall clock.
    for (const f of files) assert.ok([w, w + 10_000].includes(segmentTime(f)), f);
    for (const [f, ino] of seen) assert.is(statSync(f).ino, ino, `${f} replaced`);
    // No sample lost: four complete segments, and the one SIGTERM cut, hold the 45 s since W.
    const samples = new Map(files.map((f) => [basename(f), Number(execFileSync('soxi', ['-s', f]).toString().trim())]));
    for (const n of [name(w), name(w, '_1'), name(w + 10_000), name(w, '_2')]) assert.is(samples.get(n), 10 * RATE, n);
    const total = [...samples.values()].reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(total - 45 * RATE) <= RATE, `${total} samples in 45 s`);
    const out = agent.output();
    assert.not.match(out, /could not keep the segment/);
    const warned = out.split('\n').filter((l) => l.includes('is taken (stored or being written: the clock went back)'));
    assert.is(warned.length, 3, warned.join('\n'));
    assert.match(warned[0]!, new RegExp(`${name(w)} is taken .*; this segment is ${name(w, '_1')}`));
  } finally {
    await agent.cleanup();
    fake.cleanup();
  }
});

clock.run();
