import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { recordingStatus, soxi, START, startRecording, STATUS, waitForEnd } from './helpers/audio.ts';
import { bearer, jsonPost } from './helpers/http.ts';

// ALSA's "null" device: real sox and arecord, instant silence (not paced), so format checks are quick.
const api = suite<{ agent: TestAgent; token: string }>('recording API (null device)');

api.before(async (ctx) => {
  ctx.agent = await startAgent({ config: { audio: { device: 'null', maxDurationSeconds: 60 } } });
  ctx.token = await ctx.agent.login();
});
api.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

api('status is idle with null fields before the first recording', async ({ agent, token }) => {
  assert.equal(await recordingStatus(agent, token), {
    state: 'idle',
    fileExtension: null,
    durationSeconds: null,
    startedAt: null,
    finishedAt: null,
    file: null,
    sizeBytes: null,
    error: null,
    device: null,
    sampleRate: null,
    channels: null,
    peakDbfs: null,
    stoppedBy: null,
  });
});

api('both routes need a token', async ({ agent }) => {
  const start = await jsonPost(agent.url + START, { duration: 1, fileExtension: 'wav' });
  assert.is(start.status, 401);
  assert.is((await fetch(agent.url + STATUS)).status, 401);
});

const DURATION = 'duration must be a number of seconds above 0 and at most 60';
const EXTENSION = 'fileExtension must be one of "flac", "wav", "mp3"';
const invalid: Array<[string, unknown, string]> = [
  ['no duration', { fileExtension: 'wav' }, DURATION],
  ['a string duration', { duration: '1', fileExtension: 'wav' }, DURATION],
  ['a null duration', { duration: null, fileExtension: 'wav' }, DURATION],
  ['a zero duration', { duration: 0, fileExtension: 'wav' }, DURATION],
  ['a negative duration', { duration: -1, fileExtension: 'wav' }, DURATION],
  ['a duration above audio.maxDurationSeconds', { duration: 60.5, fileExtension: 'wav' }, DURATION],
  ['an infinite duration', '{"duration": 1e999, "fileExtension": "wav"}', DURATION],
  ['no fileExtension', { duration: 1 }, EXTENSION],
  ['an unknown fileExtension', { duration: 1, fileExtension: 'ogg' }, EXTENSION],
  ['an upper-case fileExtension', { duration: 1, fileExtension: 'MP3' }, EXTENSION],
  ['a fileExtension with a dot', { duration: 1, fileExtension: '.wav' }, EXTENSION],
  ['a numeric fileExtension', { duration: 1, fileExtension: 3 }, EXTENSION],
  ['a body that is not an object', '[1, "wav"]', 'request body must be a JSON object (Content-Type: application/json)'],
];
for (const [what, body, error] of invalid) {
  api(`refuses ${what} with 400 naming the field`, async ({ agent, token }) => {
    const res = await startRecording(agent, token, body);
    assert.is(res.status, 400);
    assert.equal(await res.json(), { error });
  });
}

api('an invalid body starts nothing', async ({ agent, token }) => {
  assert.is((await recordingStatus(agent, token)).state, 'idle');
  assert.equal(readdirSync(join(agent.baseDir, 'recordings')), []);
});

for (const ext of ['wav', 'flac', 'mp3'] as const) {
  api(`sox records ${ext}: 202, then a finished record whose file soxi reads at the asked length`, async ({ agent, token }) => {
    const res = await startRecording(agent, token, { duration: 1.5, fileExtension: ext });
    assert.is(res.status, 202);
    const started = await res.json();
    assert.ok(['recording', 'finished'].includes(started.state));
    assert.is(started.fileExtension, ext);
    assert.is(started.durationSeconds, 1.5);
    const r = await waitForEnd(agent, token);
    assert.is(r.state, 'finished', r.error ?? '');
    assert.is(r.error, null);
    assert.match(r.file!, new RegExp(`^recordings/recording-[0-9TZ.-]+\\.${ext}$`));
    const path = join(agent.baseDir, r.file!);
    const info = soxi(path);
    assert.is(info.type, ext);
    assert.is(info.rate, 48000);
    assert.is(info.channels, 1);
    assert.ok(Math.abs(info.seconds - 1.5) <= 0.25, `${ext} lasts ${info.seconds} s`);
    assert.ok(r.sizeBytes! > 0);
    assert.ok(Date.parse(r.finishedAt!) >= Date.parse(r.startedAt!));
  });
}

api('no temporary file is left beside the recordings', async ({ agent }) => {
  const names = readdirSync(join(agent.baseDir, 'recordings'));
  assert.is(names.length, 3);
  assert.ok(
    names.every((n) => !n.startsWith('.')),
    names.join(' '),
  );
});

api('the device status reports the recording state', async ({ agent, token }) => {
  const res = await fetch(`${agent.url}/api/v1/devicestatus/get`, { headers: bearer(token) });
  assert.equal((await res.json()).recording, { state: 'finished' });
});

api('recordings/ deleted through the API is made again by the next recording', async ({ agent, token }) => {
  const del = await fetch(`${agent.url}/api/v1/files?path=recordings&recursive=true`, { method: 'DELETE', headers: bearer(token) });
  assert.is(del.status, 204, await del.text());
  assert.not.ok(existsSync(join(agent.baseDir, 'recordings')));
  const res = await startRecording(agent, token, { duration: 0.5, fileExtension: 'flac' });
  assert.is(res.status, 202, await res.clone().text());
  const r = await waitForEnd(agent, token);
  assert.is(r.state, 'finished', r.error ?? '');
  assert.is(soxi(join(agent.baseDir, r.file!)).type, 'flac');
  assert.is(statSync(join(agent.baseDir, 'recordings')).mode & 0o777, 0o755);
});

api.run();

// Failures: each answers 503 naming the program, and the record says failed.
const failing = suite('recording failures');

async function failWith(config: Record<string, unknown>, env: Record<string, string>, body: unknown, error: string) {
  const agent = await startAgent({ config: { audio: config }, env });
  try {
    const token = await agent.login();
    const res = await startRecording(agent, token, body);
    assert.is(res.status, 503);
    assert.equal(await res.json(), { error });
    const r = await recordingStatus(agent, token);
    assert.is(r.state, 'failed');
    assert.is(r.error, error);
    assert.is(r.file, null);
    assert.ok(r.finishedAt);
    assert.equal(readdirSync(join(agent.baseDir, 'recordings')), []);
  } finally {
    await agent.cleanup();
  }
}

failing('sox missing from PATH: 503 naming sox and its package', async () => {
  await failWith(
    { device: 'null' },
    { PATH: '/nonexistent' },
    { duration: 1, fileExtension: 'wav' },
    'sox is not installed or not on PATH: install the Debian package sox',
  );
});

failing('arecord missing from PATH: 503 naming arecord and alsa-utils', async () => {
  await failWith(
    { device: 'null', recorder: 'arecord' },
    { PATH: '/nonexistent' },
    { duration: 1, fileExtension: 'wav' },
    'arecord is not installed or not on PATH: install the Debian package alsa-utils',
  );
});

failing('a device that does not exist: 503 saying to check the microphone', async () => {
  await failWith(
    { device: 'nosuchmic' },
    {},
    { duration: 1, fileExtension: 'flac' },
    'sox: the audio device "nosuchmic" was not found: check that the microphone is plugged in and that audio.device names it ("arecord -L" lists devices)',
  );
});

failing('arecord on a device that does not exist: the same, naming arecord', async () => {
  await failWith(
    { device: 'hw:7', recorder: 'arecord' },
    {},
    { duration: 1, fileExtension: 'wav' },
    'arecord: the audio device "hw:7" was not found: check that the microphone is plugged in and that audio.device names it ("arecord -L" lists devices)',
  );
});

failing.run();

// arecord on the null device: wav by itself, flac and mp3 through a sox stage.
const arecord = suite<{ agent: TestAgent; token: string }>('arecord recorder (null device)');
arecord.before(async (ctx) => {
  ctx.agent = await startAgent({ config: { audio: { device: 'null', recorder: 'arecord' } } });
  ctx.token = await ctx.agent.login();
});
arecord.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

for (const ext of ['wav', 'flac', 'mp3'] as const) {
  arecord(`records ${ext} at the asked length`, async ({ agent, token }) => {
    assert.is((await startRecording(agent, token, { duration: 2, fileExtension: ext })).status, 202);
    const r = await waitForEnd(agent, token);
    assert.is(r.state, 'finished', r.error ?? '');
    const info = soxi(join(agent.baseDir, r.file!));
    assert.is(info.type, ext);
    assert.ok(Math.abs(info.seconds - 2) <= 0.25, `${ext} lasts ${info.seconds} s`);
    assert.ok(existsSync(join(agent.baseDir, r.file!)));
  });
}

arecord.run();
