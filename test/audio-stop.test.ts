// POST /api/v1/audiofiles/audiorecordstop (docs/api.md#stopping-a-recording) with real sox and arecord: from
// the ALSA null device (unpaced: many seconds a second) and from a private PulseAudio
// "microphone" paced in real time. The stopped file is complete (soxi reads it) and
// durationSeconds is its own length; 409 with the exact text when nothing records.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordingRecord } from '../src/audio/record.ts';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { recordingStatus, soxi, startRecording } from './helpers/audio.ts';
import { download } from './helpers/files.ts';
import { bearer } from './helpers/http.ts';
import { agentChildren, eventually } from './helpers/proc.ts';
import { startVirtualMic, type VirtualMic } from './helpers/pulse.ts';

const STOP = '/api/v1/audiofiles/audiorecordstop';
const stop = (agent: TestAgent, token: string) => fetch(agent.url + STOP, { method: 'POST', headers: bearer(token) });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const stops = suite<{ mic: VirtualMic }>('audio record stop');
stops.before((ctx) => {
  ctx.mic = startVirtualMic();
});
stops.after(async (ctx) => {
  await ctx.mic?.stop();
});

async function withAgent(
  config: Record<string, unknown>,
  env: Record<string, string>,
  body: (agent: TestAgent, token: string) => Promise<void>,
) {
  // The null device is not paced: a few hundred ms make a file larger than the default download limit.
  const agent = await startAgent({ env, config: { audio: config, maxFileBytes: 1024 ** 3 } });
  try {
    await body(agent, await agent.login());
  } catch (err) {
    console.log(agent.output());
    throw err;
  } finally {
    await agent.cleanup();
  }
}

async function expect409(agent: TestAgent, token: string) {
  const res = await stop(agent, token);
  assert.is(res.status, 409);
  assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.equal(await res.json(), { error: 'no recording is in progress' });
}

/** Stops after `afterMs` and checks the answer, the status record, the file and the download. */
async function stopAndCheck(agent: TestAgent, token: string, ext: string, afterMs: number): Promise<RecordingRecord> {
  const started = await startRecording(agent, token, { duration: 3600, fileExtension: ext });
  assert.is(started.status, 202, await started.clone().text());
  await sleep(afterMs);
  assert.is((await recordingStatus(agent, token)).state, 'recording');
  const t0 = Date.now();
  const res = await stop(agent, token);
  const record = (await res.json()) as RecordingRecord;
  assert.is(res.status, 200, JSON.stringify(record));
  assert.ok(Date.now() - t0 < 5000, `the stop took ${Date.now() - t0} ms`);
  assert.is(record.state, 'finished');
  assert.is(record.error, null);
  assert.is(record.fileExtension, ext);
  assert.ok(record.file?.startsWith('recordings/') && record.file.endsWith(`.${ext}`), record.file ?? 'no file');
  const path = join(agent.baseDir, record.file!);
  const info = soxi(path); // throws unless the file is complete and readable
  assert.is(info.rate, 48000);
  assert.is(info.channels, 1);
  assert.ok(Math.abs(info.seconds - record.durationSeconds!) < 0.01, `soxi ${info.seconds} s, record ${record.durationSeconds} s`);
  assert.ok(record.durationSeconds! > 0 && record.durationSeconds! < 3600, String(record.durationSeconds));
  assert.is(record.sizeBytes, statSync(path).size);
  assert.equal(await recordingStatus(agent, token), record);
  const file = await download(agent.url, token, `filepath=${encodeURIComponent(record.file!)}`);
  assert.is(file.status, 200);
  assert.is((await file.arrayBuffer()).byteLength, record.sizeBytes);
  await expect409(agent, token);
  assert.ok(await eventually(() => agentChildren(agent.child.pid!).length === 0, 3000), 'a capture program outlived the stop');
  return record;
}

stops('409 "no recording is in progress" before any recording, and without a token 401', async () => {
  await withAgent({ device: 'null' }, {}, async (agent, token) => {
    await expect409(agent, token);
    const res = await fetch(agent.url + STOP, { method: 'POST' });
    assert.is(res.status, 401);
    assert.equal(await res.json(), { error: 'missing bearer token' });
    const get = await fetch(agent.url + STOP, { headers: bearer(token) });
    assert.is(get.status, 405);
    assert.is(get.headers.get('allow'), 'POST');
    await get.arrayBuffer();
    // A finished recording is not a running one.
    assert.is((await startRecording(agent, token, { duration: 0.2, fileExtension: 'wav' })).status, 202);
    assert.ok(await eventually(() => agentChildren(agent.child.pid!).length === 0, 5000));
    await sleep(200);
    await expect409(agent, token);
  });
});

// Not arecord wav: unpaced and unencoded, it writes the whole hour (345 MB) in ~0.17 s on a
// quiet machine, before the stop is sent (it failed so in a full run); the paced microphone
// below covers arecord wav.
for (const [recorder, ext] of [
  ['sox', 'flac'],
  ['sox', 'wav'],
  ['sox', 'mp3'],
  ['arecord', 'flac'],
] as const) {
  stops(`${recorder} ${ext} from the null device: stopped now, the file complete, its own length recorded`, async () => {
    await withAgent({ device: 'null', recorder }, {}, async (agent, token) => {
      await stopAndCheck(agent, token, ext, 200);
    });
  });
}

for (const [recorder, ext] of [
  ['sox', 'flac'],
  ['sox', 'mp3'],
  ['arecord', 'wav'],
  ['arecord', 'mp3'],
] as const) {
  stops(`${recorder} ${ext} from the paced microphone: the length is the time it ran`, async ({ mic }) => {
    await withAgent({ device: 'pulse', recorder }, mic.env, async (agent, token) => {
      const t0 = Date.now();
      const record = await stopAndCheck(agent, token, ext, 1500);
      const ran = (Date.now() - t0) / 1000;
      // Real-time capture: at least most of the 1.5 s waited, at most the whole time it ran.
      assert.ok(record.durationSeconds! >= 1.0 && record.durationSeconds! <= ran + 0.1, `${record.durationSeconds} s of ${ran} s`);
    });
  });
}

stops('two stops at once both answer the one finished record; a new start works after', async ({ mic }) => {
  await withAgent({ device: 'pulse' }, mic.env, async (agent, token) => {
    assert.is((await startRecording(agent, token, { duration: 60, fileExtension: 'wav' })).status, 202);
    await sleep(800);
    const [a, b] = await Promise.all([stop(agent, token), stop(agent, token)]);
    assert.is(a.status, 200);
    assert.is(b.status, 200);
    const [ra, rb] = (await Promise.all([a.json(), b.json()])) as RecordingRecord[];
    assert.equal(ra, rb);
    assert.is(ra!.state, 'finished');
    soxi(join(agent.baseDir, ra!.file!));
    assert.is((await startRecording(agent, token, { duration: 0.5, fileExtension: 'wav' })).status, 202);
  });
});

stops('a stop sent while the start still waits for the device stops what that start spawned', async ({ mic }) => {
  await withAgent({ device: 'pulse' }, mic.env, async (agent, token) => {
    let answered = false;
    const start = startRecording(agent, token, { duration: 60, fileExtension: 'flac' }).finally(() => {
      answered = true;
    });
    // The start has spawned its capture and waits for the device (it answers once sound
    // flows, a block of 0.2 s later): a fixed sleep raced the start's own arrival on a busy host.
    for (let t = Date.now(); agentChildren(agent.child.pid!).length === 0 && Date.now() - t < 5000; ) await sleep(5);
    assert.not.ok(answered, 'the start answered before the stop was sent: nothing tested');
    const stopped = await stop(agent, token);
    const started = await start;
    assert.is(started.status, 202);
    const record = (await stopped.json()) as RecordingRecord;
    assert.is(stopped.status, 200, JSON.stringify(record));
    assert.is(record.state, 'finished');
    assert.ok(record.durationSeconds! < 5, String(record.durationSeconds));
    assert.ok(Math.abs(soxi(join(agent.baseDir, record.file!)).seconds - record.durationSeconds!) < 0.01);
    await expect409(agent, token);
  });
});

stops.run();
