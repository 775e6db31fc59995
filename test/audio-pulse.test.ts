import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { recordingStatus, soxi, startRecording, waitForEnd } from './helpers/audio.ts';
import { startVirtualMic, type VirtualMic } from './helpers/pulse.ts';

// A private PulseAudio null sink through ALSA device "pulse": paced in real time like a microphone.
const paced = suite<{ mic: VirtualMic }>('recording from a paced virtual microphone');

paced.before((ctx) => {
  ctx.mic = startVirtualMic();
});
paced.after(async (ctx) => {
  await ctx.mic?.stop();
});

const within = (seconds: number, asked: number, what: string) =>
  assert.ok(Math.abs(seconds - asked) <= 0.25, `${what} lasts ${seconds} s, asked ${asked} s`);

async function withAgent(mic: VirtualMic, recorder: 'sox' | 'arecord', body: (agent: TestAgent, token: string) => Promise<void>) {
  const agent = await startAgent({ env: mic.env, config: { audio: { device: 'pulse', recorder } } });
  try {
    await body(agent, await agent.login());
  } finally {
    await agent.cleanup();
  }
}

for (const recorder of ['sox', 'arecord'] as const) {
  paced(`${recorder}: a second start while one runs gets 409; the file has the asked length`, async ({ mic }) => {
    await withAgent(mic, recorder, async (agent, token) => {
      const res = await startRecording(agent, token, { duration: 1.5, fileExtension: 'flac' });
      assert.is(res.status, 202);
      assert.is((await res.json()).state, 'recording');
      const again = await startRecording(agent, token, { duration: 1, fileExtension: 'wav' });
      assert.is(again.status, 409);
      assert.equal(await again.json(), { error: 'a recording is already in progress' });
      const during = await recordingStatus(agent, token);
      assert.is(during.state, 'recording');
      assert.is(during.file, null);
      // Nothing under a final name while it runs.
      assert.ok(readdirSync(join(agent.baseDir, 'recordings')).every((n) => n.startsWith('.')));

      const r = await waitForEnd(agent, token);
      assert.is(r.state, 'finished', r.error ?? '');
      const info = soxi(join(agent.baseDir, r.file!));
      assert.is(info.type, 'flac');
      within(info.seconds, 1.5, 'flac');
    });
  });
}

paced('sox: mp3 from the paced device has the asked length', async ({ mic }) => {
  await withAgent(mic, 'sox', async (agent, token) => {
    for (const ext of ['mp3'] as const) {
      assert.is((await startRecording(agent, token, { duration: 1, fileExtension: ext })).status, 202);
      const r = await waitForEnd(agent, token);
      assert.is(r.state, 'finished', r.error ?? '');
      const info = soxi(join(agent.baseDir, r.file!));
      assert.is(info.type, ext);
      within(info.seconds, 1, ext);
    }
  });
});

/** Waits until the recording's temp file holds `bytes`. */
async function grown(dir: string, bytes: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const part = readdirSync(dir).find((n) => n.endsWith('.part'));
    if (part && statSync(join(dir, part)).size >= bytes) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the recording never reached its temp file');
}

for (const [recorder, ext] of [
  ['sox', 'wav'],
  ['arecord', 'wav'],
  ['arecord', 'mp3'],
] as const) {
  paced(
    `${recorder} ${ext}: SIGTERM mid-recording keeps a complete file, exits 0, and the record survives the restart`,
    async ({ mic }) => {
      const first = await startAgent({ env: mic.env, config: { audio: { device: 'pulse', recorder } } });
      let second: TestAgent | undefined;
      try {
        const token = await first.login();
        assert.is((await startRecording(first, token, { duration: 10, fileExtension: ext })).status, 202);
        const dir = join(first.baseDir, 'recordings');
        // Mid-recording for real: sound is reaching the temp file (the device may take a while to open).
        await grown(dir, 16_384);
        assert.equal(await first.stop('SIGTERM'), { code: 0, signal: null });

        const names = readdirSync(dir);
        assert.is(names.length, 1, names.join(' '));
        assert.match(names[0]!, new RegExp(`^recording-.*\\.${ext}$`));
        const path = join(dir, names[0]!);
        const info = soxi(path);
        assert.is(info.type, ext);
        assert.ok(info.seconds > 0.1 && info.seconds < 10, `kept ${info.seconds} s`);
        // The header's length is the data's length: (size - 44 header bytes) / 2 bytes / 48000.
        if (ext === 'wav') assert.ok(Math.abs(info.seconds - (statSync(path).size - 44) / 96000) < 0.001);

        second = await startAgent({ dir: first.dir, env: mic.env, config: { audio: { device: 'pulse', recorder } } });
        const r = await recordingStatus(second, await second.login());
        assert.is(r.state, 'finished');
        assert.is(r.file, `recordings/${names[0]}`);
        assert.is(r.sizeBytes, statSync(path).size);
        assert.match(r.error!, /^stopped early after [0-9.]+ s because the agent shut down$/);
      } finally {
        await (second ?? first).cleanup();
      }
    },
  );
}

paced('an agent killed mid-recording comes back with a failed record and no temporary file', async ({ mic }) => {
  const first = await startAgent({ env: mic.env, config: { audio: { device: 'pulse' } } });
  let second: TestAgent | undefined;
  try {
    const token = await first.login();
    assert.is((await startRecording(first, token, { duration: 2, fileExtension: 'wav' })).status, 202);
    await first.stop('SIGKILL');
    second = await startAgent({ dir: first.dir, env: mic.env, config: { audio: { device: 'pulse' } } });
    const r = await recordingStatus(second, await second.login());
    assert.is(r.state, 'failed');
    assert.is(r.error, 'the agent stopped during the recording (killed or powered off); nothing was kept');
    assert.equal(readdirSync(join(first.baseDir, 'recordings')), []);
  } finally {
    await (second ?? first).cleanup();
  }
});

paced.run();
