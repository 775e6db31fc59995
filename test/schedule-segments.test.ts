// A whole "on" period recorded on a schedule (docs/schedule.md, "Segments"), against
// PulseAudio's virtual microphone playing pink noise: a one-minute window that begins after
// the agent started, cut into 25 s segments. The first is named from the UTC time of its
// first sample (the window's start), each complete one holds segmentSeconds × rate samples,
// the last is shorter, and together they hold the on time × rate within 0.5 %.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { startAgent } from './helpers/agent.ts';
import { listenLive, scheduledSegments, segmentTime } from './helpers/audio.ts';
import { bearer } from './helpers/http.ts';
import { eventually } from './helpers/proc.ts';
import { noisySuite } from './helpers/pulse.ts';

const SYNCED = join('/tmp', `da-synced-segments-${process.pid}`);
const RATE = 48_000;
const pad = (n: number) => String(n).padStart(2, '0');
const hhmm = (ms: number) => `${pad(new Date(ms).getUTCHours())}:${pad(new Date(ms).getUTCMinutes())}`;

const seg = noisySuite('segments of an on period', SYNCED);

seg('a one-minute window: segments named from their first sample, adding up to 60 s × rate within 0.5 %', async ({ mic }) => {
  writeFileSync(SYNCED, '');
  const agent = await startAgent({
    env: mic.env,
    config: { audio: { device: 'pulse', minFreeBytes: 0 }, clock: { syncedFile: SYNCED } },
  });
  try {
    const token = await agent.login();
    // A live stream keeps the device's capture open, so the window's run starts on the chunk under way.
    const live = await listenLive(agent, token, 'format=wav');
    // The next minute at least 5 s away: the schedule is stored before its window begins.
    const start = Math.ceil((Date.now() + 5000) / 60_000) * 60_000;
    const res = await fetch(`${agent.url}/api/v1/schedule`, {
      method: 'PUT',
      headers: { ...bearer(token), 'Content-Type': 'application/json' },
      body: JSON.stringify({
        timeZone: 'UTC',
        recording: { fileExtension: 'flac', segmentSeconds: 25 },
        windows: [{ start: hhmm(start), end: hhmm(start + 60_000) }],
      }),
    });
    assert.is(res.status, 200);
    assert.equal(scheduledSegments(agent.baseDir), { files: [], temps: [] }, 'nothing before the window');
    const wait = start + 60_000 - Date.now() + 30_000;
    assert.ok(
      await eventually(
        () => scheduledSegments(agent.baseDir).files.length === 3 && scheduledSegments(agent.baseDir).temps.length === 0,
        wait,
      ),
      `three segments: ${scheduledSegments(agent.baseDir).files.join(', ')}`,
    );
    live.close();
    const { files } = scheduledSegments(agent.baseDir);
    const samples = files.map((f) => Number(execFileSync('soxi', ['-s', f]).toString().trim()));
    assert.equal(samples.slice(0, 2), [25 * RATE, 25 * RATE], 'complete segments: segmentSeconds × rate');
    const total = samples.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(total - 60 * RATE) <= 60 * RATE * 0.005, `${total} samples for a 60 s window`);
    // The first sample is the window's start (the chunk it came in may have begun a moment earlier).
    assert.ok(Math.abs(segmentTime(files[0]!) - start) <= 1000, `${files[0]} for a window at ${new Date(start).toISOString()}`);
    // The next ones begin where the samples before them end: named to the second by their count.
    assert.is(segmentTime(files[1]!) - segmentTime(files[0]!), 25_000, files[1]);
    assert.is(segmentTime(files[2]!) - segmentTime(files[0]!), 50_000, files[2]);
    assert.is(files[0]!.split('/').at(-2), new Date(segmentTime(files[0]!)).toISOString().slice(0, 10), 'under its UTC date');
  } finally {
    await agent.cleanup();
  }
});

seg.run();
