// Devices, levels and live audio on a private PulseAudio server (test/helpers/pulse.ts):
// one capture per device shared by a recording, live streams and the level meter; a
// second virtual source, defined in the ALSA configuration, stands in for a microphone
// plugged in later. Tones of known amplitude are played into the virtual microphone.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, startAgent, type TestAgent } from './helpers/agent.ts';
import { listenLive, soxi, startRecording, waitForEnd } from './helpers/audio.ts';
import { bearer } from './helpers/http.ts';
import { agentChildren, eventually } from './helpers/proc.ts';
import { startVirtualMic, type VirtualMic } from './helpers/pulse.ts';
import { openEvents } from './helpers/sse.ts';

type Ctx = { mic: VirtualMic; agent: TestAgent; token: string; olga: string; ivan: string };
const live = suite<Ctx>('audio devices, levels and live audio');

live.before(async (ctx) => {
  ctx.mic = startVirtualMic();
  const operator = (username: string) => ({ username, password: ADMIN.password, role: 'operator' as const });
  ctx.agent = await startAgent({
    env: ctx.mic.env,
    config: { audio: { device: 'pulse' } },
    users: [ADMIN, operator('olga'), operator('ivan')],
  });
  ctx.token = await ctx.agent.login();
  ctx.olga = await ctx.agent.login('olga', ADMIN.password);
  ctx.ivan = await ctx.agent.login('ivan', ADMIN.password);
});
live.after(async (ctx) => {
  await ctx.agent?.cleanup();
  await ctx.mic?.stop();
});

const run = (mic: VirtualMic, cmd: string, args: string[]) =>
  execFileSync(cmd, args, { env: { ...process.env, ...mic.env }, encoding: 'utf8', timeout: 10_000 }).trim();

/** A 1 kHz sine at `db` dBFS played into the virtual microphone until stopped. */
function tone(mic: VirtualMic, db: number): ChildProcess {
  return spawn('sox', ['-q', '-n', '-t', 'alsa', 'pulse', 'synth', '60', 'sine', '1000', 'gain', String(db)], {
    env: { ...process.env, ...mic.env },
    stdio: 'ignore',
  });
}

const get = (ctx: Ctx, path: string) => fetch(ctx.agent.url + path, { headers: bearer(ctx.token) });

/** A live stream read with node:http (a connection of its own). */
const listen = (ctx: Pick<Ctx, 'agent' | 'token'>, query: string) => listenLive(ctx.agent, ctx.token, query);

live(
  'the device list is what arecord -L lists; a source added to the ALSA configuration shows at once and records; removed, it goes',
  async (ctx) => {
    const res = await get(ctx, '/api/v1/audio/devices');
    assert.is(res.status, 200);
    const list = (await res.json()) as {
      configured: string;
      devices: Array<{ id: string; name: string; description: string; default: boolean }>;
    };
    assert.is(list.configured, 'pulse');
    const ids = list.devices.map((d) => d.id);
    assert.equal(
      ids,
      run(ctx.mic, 'arecord', ['-L'])
        .split('\n')
        .filter((l) => l !== '' && !/^\s/.test(l)),
    );
    assert.equal(list.devices.find((d) => d.id === 'default')?.default, true);
    assert.not.ok(ids.includes('mic2'));

    // "Plugging in": a second source in PulseAudio and its PCM in the ALSA configuration.
    const module = run(ctx.mic, 'pactl', ['load-module', 'module-null-sink', 'sink_name=mic2']);
    const asoundrc = join(ctx.mic.env.HOME!, '.asoundrc');
    writeFileSync(asoundrc, 'pcm.mic2 {\n  type pulse\n  device "mic2.monitor"\n  hint { show on; description "Second microphone" }\n}\n');
    try {
      const after = (await (await get(ctx, '/api/v1/audio/devices')).json()) as typeof list;
      assert.equal(
        after.devices.find((d) => d.id === 'mic2'),
        { id: 'mic2', name: 'Second microphone', description: '', default: false },
      );
      const started = await startRecording(ctx.agent, ctx.token, { duration: 0.5, fileExtension: 'wav', device: 'mic2' });
      assert.is(started.status, 202, await started.clone().text());
      const r = await waitForEnd(ctx.agent, ctx.token);
      assert.is(r.state, 'finished', r.error ?? '');
      assert.is(r.device, 'mic2');
      assert.is(soxi(join(ctx.agent.baseDir, r.file!)).seconds, 0.5);
    } finally {
      rmSync(asoundrc, { force: true });
      run(ctx.mic, 'pactl', ['unload-module', module]);
    }
    const gone = (await (await get(ctx, '/api/v1/audio/devices')).json()) as typeof list;
    assert.not.ok(gone.devices.some((d) => d.id === 'mic2'));
    const refused = await startRecording(ctx.agent, ctx.token, { duration: 1, fileExtension: 'flac', device: 'mic2' });
    assert.is(refused.status, 400);
    assert.equal(await refused.json(), { error: 'device mic2 is not an audio capture device here (GET /api/v1/audio/devices lists them)' });
  },
);

live('a 1 kHz sine at -6 dBFS reads -6 ± 1 dBFS peak, from the level route and from the recording', async (ctx) => {
  const player = tone(ctx.mic, -6);
  try {
    await new Promise((r) => setTimeout(r, 500));
    const res = await get(ctx, '/api/v1/audio/level?seconds=0.5');
    assert.is(res.status, 200);
    const level = (await res.json()) as { device: string; seconds: number; peakDbfs: number; rmsDbfs: number; clipped: boolean };
    assert.is(level.device, 'pulse');
    assert.is(level.seconds, 0.5);
    assert.ok(Math.abs(level.peakDbfs + 6) <= 1, `peak ${level.peakDbfs} dBFS`);
    assert.ok(Math.abs(level.rmsDbfs + 9) <= 1, `rms ${level.rmsDbfs} dBFS`);
    assert.is(level.clipped, false);
    assert.is((await startRecording(ctx.agent, ctx.token, { duration: 1, fileExtension: 'flac' })).status, 202);
    const r = await waitForEnd(ctx.agent, ctx.token);
    assert.is(r.stoppedBy, 'duration');
    assert.ok(Math.abs(r.peakDbfs! + 6) <= 1, `recorded peak ${r.peakDbfs} dBFS`);
  } finally {
    player.kill();
  }
  const bad = await get(ctx, '/api/v1/audio/level?seconds=11');
  assert.is(bad.status, 400);
  assert.equal(await bad.json(), { error: 'seconds must be a number from 0.2 to 10' });
  const nodev = await get(ctx, '/api/v1/audio/level?device=nope');
  assert.is(nodev.status, 400);
  assert.equal(await nodev.json(), { error: 'device nope is not an audio capture device here (GET /api/v1/audio/devices lists them)' });
});

live(
  'a live wav stream shares the capture of a running recording: sox decodes it, the file has its length, level events flow',
  async (ctx) => {
    const events = await openEvents(ctx.agent.port, bearer(ctx.token));
    const started = await startRecording(ctx.agent, ctx.token, { duration: 3, fileExtension: 'flac' });
    assert.is(started.status, 202);
    const wav = await listen(ctx, 'format=wav');
    const mp3 = await listen(ctx, 'format=mp3');
    assert.is(wav.status, 200);
    assert.is(wav.headers['content-type'], 'audio/wav');
    assert.is(wav.headers['cache-control'], 'no-store');
    assert.is(mp3.headers['content-type'], 'audio/mpeg');
    // One capture program for the device, one encoder for the recording and one for the mp3 stream.
    const pid = ctx.agent.child.pid!;
    const captures = () => agentChildren(pid).filter((c) => readFileSync(`/proc/${c}/cmdline`, 'utf8').includes('\0alsa\0'));
    assert.is(captures().length, 1);
    const levels = await events.waitFor((e) => e.event === 'level', 4, 5000);
    assert.equal(Object.keys(JSON.parse(levels[0]!.data)), ['device', 'peakDbfs', 'rmsDbfs']);
    // Four level reports a second or more while the device is captured (docs/api.md): at
    // least 8 in the 2 s after the first.
    const first = levels[0]!.at;
    await events.waitFor((e) => e.event === 'level' && e.at > first + 2000, 1, 5000);
    const inTwo = events.events.filter((e) => e.event === 'level' && e.at > first && e.at <= first + 2000).length;
    assert.ok(inTwo >= 8, `${inTwo} level events in the 2 s after the first`);
    const r = await waitForEnd(ctx.agent, ctx.token);
    assert.is(r.state, 'finished', r.error ?? '');
    assert.ok(Math.abs(soxi(join(ctx.agent.baseDir, r.file!)).seconds - 3) <= 0.25);
    // The streams go on after the recording ended.
    const before = wav.body().length;
    await eventually(() => wav.body().length > before + 48000, 3000);
    wav.close();
    mp3.close();
    events.close();
    const body = wav.body();
    const decoded = execFileSync('sox', ['-t', 'wav', '-', '-n', 'stat'], {
      input: body,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    void decoded;
    const seconds = Number(execFileSync('sox', ['-t', 'wav', '-', '-t', 'raw', '-'], { input: body }).length / 96000);
    assert.ok(seconds > 3, `the live wav held ${seconds} s`);
    assert.ok(mp3.body().length > 1000, 'the mp3 stream sent audio');
    assert.ok(await eventually(() => agentChildren(pid).length === 0, 3000), 'the capture ends with its last consumer');
  },
);

live('a live stream ends when its credential expires', async () => {
  const mic = startVirtualMic();
  const agent = await startAgent({ env: mic.env, config: { tokenTtlSeconds: 3, audio: { device: 'pulse' } } });
  try {
    const token = await agent.login();
    const t0 = Date.now();
    const stream = await listen({ agent, token }, 'format=wav');
    assert.is(stream.status, 200);
    await stream.ended;
    const after = (Date.now() - t0) / 1000;
    assert.ok(after >= 2 && after < 6, `ended after ${after} s (token valid 3 s)`);
    assert.ok(stream.body().length > 44, 'sound came before the end');
  } finally {
    await agent.cleanup();
    await mic.stop();
  }
});

live('at most 2 live streams for one user, all their sessions together: the third is 503 for them, not for others', async (ctx) => {
  const two = await Promise.all([1, 2].map(() => listen(ctx, 'format=wav')));
  assert.equal(
    two.map((l) => l.status),
    [200, 200],
  );
  const session = await ctx.agent.login(); // another session of the same user
  const third = await fetch(`${ctx.agent.url}/api/v1/audio/live?format=wav`, { headers: bearer(session) });
  assert.is(third.status, 503);
  assert.is(third.headers.get('retry-after'), '5');
  assert.equal(await third.json(), { error: 'too many live audio streams for this user (at most 2)' });
  const other = await listenLive(ctx.agent, ctx.olga, 'format=wav');
  assert.is(other.status, 200);
  for (const l of [...two, other]) l.close();
});

live('at most 4 live streams: the fifth is 503; a bad format is 400', async (ctx) => {
  // Two users with 2 each (one user's share is half: the test above).
  const four = await Promise.all([ctx.token, ctx.token, ctx.olga, ctx.olga].map((t) => listenLive(ctx.agent, t, 'format=wav')));
  assert.equal(
    four.map((l) => l.status),
    [200, 200, 200, 200],
  );
  const fifth = await fetch(`${ctx.agent.url}/api/v1/audio/live?format=wav`, { headers: bearer(ctx.ivan) });
  assert.is(fifth.status, 503);
  assert.equal(await fifth.json(), { error: 'too many live audio streams (at most 4), try again later' });
  for (const l of four) l.close();
  // HEAD says what a GET would answer and takes no place.
  const head = await fetch(`${ctx.agent.url}/api/v1/audio/live?format=flac`, { method: 'HEAD', headers: bearer(ctx.token) });
  assert.is(head.status, 200);
  assert.is(head.headers.get('content-type'), 'audio/flac');
  const bad = await get(ctx, '/api/v1/audio/live?format=ogg');
  assert.is(bad.status, 400);
  assert.equal(await bad.json(), { error: 'format must be one of "flac", "wav", "mp3"' });
  assert.ok(await eventually(() => agentChildren(ctx.agent.child.pid!).length === 0, 3000));
});

live('a live client that never reads is dropped; the recording beside it keeps its length', async (ctx) => {
  // 192 kHz stereo (768 kB/s) so that the unread stream fills its buffers quickly.
  const started = await startRecording(ctx.agent, ctx.token, { duration: 4, fileExtension: 'flac', sampleRate: 192000, channels: 2 });
  assert.is(started.status, 202, await started.clone().text());
  const sock = connect(ctx.agent.port, '127.0.0.1');
  sock.write(`GET /api/v1/audio/live?format=wav HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ctx.token}\r\n\r\n`);
  sock.pause(); // never reads
  const r = await waitForEnd(ctx.agent, ctx.token);
  assert.is(r.state, 'finished', r.error ?? '');
  assert.is(r.sampleRate, 192000);
  const info = soxi(join(ctx.agent.baseDir, r.file!));
  assert.is(info.rate, 192000);
  assert.is(info.channels, 2);
  assert.ok(Math.abs(info.seconds - 4) <= 0.25, `${info.seconds} s`);
  // Dropped: nothing is left on the capture, which ends.
  assert.ok(await eventually(() => agentChildren(ctx.agent.child.pid!).length === 0, 10_000), 'the unread stream still holds the capture');
  sock.destroy();
});

live('size rule: a wav over the download limit is 400 up front; a flac ends at maxFileBytes, playable, stoppedBy size', async () => {
  const mic = startVirtualMic();
  const agent = await startAgent({ env: mic.env, config: { maxFileBytes: 200_000, audio: { device: 'pulse' } } });
  const player = tone(mic, -3);
  try {
    const token = await agent.login();
    const wav = await startRecording(agent, token, { duration: 3, fileExtension: 'wav' });
    assert.is(wav.status, 400);
    assert.equal(await wav.json(), { error: 'a 3 s wav recording would be 0.3 MB, over the 0.2 MB download limit' });
    const flac = await startRecording(agent, token, { duration: 60, fileExtension: 'flac', sampleRate: 96000, channels: 2 });
    assert.is(flac.status, 202, await flac.clone().text());
    const r = await waitForEnd(agent, token, 60_000);
    assert.is(r.state, 'finished', r.error ?? '');
    assert.is(r.stoppedBy, 'size');
    assert.ok(r.sizeBytes! <= 200_000 && r.sizeBytes! > 100_000, `${r.sizeBytes} bytes`);
    const info = soxi(join(agent.baseDir, r.file!));
    assert.ok(Math.abs(info.seconds - r.durationSeconds!) < 0.01 && info.seconds < 60, `${info.seconds} s`);
  } finally {
    player.kill();
    await agent.cleanup();
    await mic.stop();
  }
});

live('size rule under loud noise (flac near its most bytes a second): the skipped checks still end it under maxFileBytes', async () => {
  const mic = startVirtualMic();
  const limit = 1_000_000;
  const agent = await startAgent({ env: mic.env, config: { maxFileBytes: limit, audio: { device: 'pulse' } } });
  // White noise at full scale does not compress: the file grows at ~99 % of the PCM rate
  // (88.2 kB/s), near the most the checks allow for (maxEncodedBytesPerSecond, 92.6 kB/s).
  const noise = spawn('sox', ['-q', '-n', '-r', '44100', '-c', '1', '-t', 'alsa', 'pulse', 'synth', '60', 'whitenoise', 'gain', '-0.5'], {
    env: { ...process.env, ...mic.env },
    stdio: 'ignore',
  });
  try {
    const token = await agent.login();
    const flac = await startRecording(agent, token, { duration: 60, fileExtension: 'flac', sampleRate: 44100 });
    assert.is(flac.status, 202, await flac.clone().text());
    const r = await waitForEnd(agent, token, 60_000);
    assert.is(r.state, 'finished', r.error ?? '');
    assert.is(r.stoppedBy, 'size');
    assert.ok(r.sizeBytes! <= limit && r.sizeBytes! > limit * 0.8, `${r.sizeBytes} bytes`);
    const info = soxi(join(agent.baseDir, r.file!));
    assert.ok(r.sizeBytes! / info.seconds > 80_000, `it compressed: ${r.sizeBytes} bytes for ${info.seconds} s`);
    assert.ok(Math.abs(info.seconds - r.durationSeconds!) < 0.01, `${info.seconds} s`);
  } finally {
    noise.kill();
    await agent.cleanup();
    await mic.stop();
  }
});

live('SIGTERM with a recording and 3 live streams: the file complete, the streams ended, exit 0', async () => {
  const mic = startVirtualMic();
  const olga = { username: 'olga', password: ADMIN.password, role: 'operator' as const };
  const agent = await startAgent({ env: mic.env, config: { audio: { device: 'pulse' } }, users: [ADMIN, olga] });
  try {
    const token = await agent.login();
    assert.is((await startRecording(agent, token, { duration: 30, fileExtension: 'mp3' })).status, 202);
    // Two users: one user holds at most 2 live streams.
    const tokens = [token, token, await agent.login(olga.username, olga.password)];
    const three = await Promise.all(['wav', 'flac', 'mp3'].map((f, i) => listen({ agent, token: tokens[i]! }, `format=${f}`)));
    assert.equal(
      three.map((l) => l.status),
      [200, 200, 200],
    );
    await new Promise((r) => setTimeout(r, 1000));
    const t0 = Date.now();
    const exit = await agent.stop('SIGTERM');
    assert.equal(exit, { code: 0, signal: null });
    assert.ok(Date.now() - t0 < 10_000, `exit took ${Date.now() - t0} ms`);
    await Promise.all(three.map((l) => l.ended));
    const state = JSON.parse(readFileSync(join(agent.dir, 'last-recording.json'), 'utf8')) as {
      state: string;
      file: string;
      stoppedBy: string;
    };
    assert.is(state.state, 'finished');
    assert.is(state.stoppedBy, 'shutdown');
    const info = soxi(join(agent.baseDir, state.file));
    assert.ok(info.seconds > 0.5 && info.seconds < 30, `${info.seconds} s`);
  } finally {
    await agent.cleanup();
    await mic.stop();
  }
});

live.run();
