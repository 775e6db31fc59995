// How a capture's PCM reaches the agent (src/audio/capture.ts): a pipe of the addon read
// into one reused buffer, or, where the addon cannot load (a temp directory mounted
// noexec), Node's own stdio socket. Either way the recording and a live stream get the
// same bytes: pink noise is played into the virtual microphone, and the PCM of a wav
// recording must be found, byte for byte, in the live stream that ran around it.
import { execFileSync, spawn } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, withNoexecTmpdir } from './helpers/agent.ts';
import { listenLive, soxi, startRecording, waitForEnd } from './helpers/audio.ts';
import { agentChildren, eventually, fdCount } from './helpers/proc.ts';
import { startVirtualMic, type VirtualMic } from './helpers/pulse.ts';

const capture = suite<{ mic: VirtualMic }>('how a capture reads its program');

capture.before((ctx) => {
  ctx.mic = startVirtualMic();
});
capture.after(async (ctx) => {
  await ctx.mic?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The kind of file a process's descriptor is: "pipe", "socket", ... */
const fdKind = (pid: number, fd: number) => readlinkSync(`/proc/${pid}/fd/${fd}`).replace(/:.*/, '');

async function recordAgainstLive(mic: VirtualMic, env: Record<string, string>, stdout: 'pipe' | 'socket') {
  const agent = await startAgent({ env: { ...mic.env, ...env }, config: { audio: { device: 'pulse' } } });
  const noise = spawn('sox', ['-q', '-n', '-t', 'alsa', 'pulse', 'synth', '60', 'pinknoise', 'gain', '-10'], {
    env: { ...process.env, ...mic.env },
    stdio: 'ignore',
  });
  try {
    const token = await agent.login();
    const fdsBefore = fdCount(agent.child.pid!);
    // A live wav stream first: the recording then joins its capture.
    const stream = await listenLive(agent, token, 'format=wav');
    const status = stream.status;
    assert.is(status, 200);
    const programs = agentChildren(agent.child.pid!);
    assert.is(programs.length, 1, 'one capture program');
    assert.is(fdKind(programs[0]!, 1), stdout, "the capture program's stdout");
    await sleep(500);
    const started = await startRecording(agent, token, { duration: 2, fileExtension: 'wav' });
    assert.is(started.status, 202, await started.clone().text());
    const r = await waitForEnd(agent, token);
    assert.is(r.state, 'finished', r.error ?? '');
    assert.is(agentChildren(agent.child.pid!).length, 1, 'the recording shared the live stream capture');
    await sleep(500);
    stream.close();
    const file = join(agent.baseDir, r.file!);
    assert.is(soxi(file).seconds, 2);
    const recorded = execFileSync('sox', [file, '-t', 'raw', '-'], { maxBuffer: 1 << 24 });
    const live = stream.body().subarray(44); // the streaming wav header
    assert.is(recorded.length, 2 * 48_000 * 2);
    assert.ok(
      recorded.subarray(0, 4096).some((b) => b !== 0),
      'noise was recorded, not silence',
    );
    const at = live.indexOf(recorded.subarray(0, 4096));
    assert.ok(at >= 0, 'the recording begins inside the live stream');
    assert.ok(live.subarray(at, at + recorded.length).equals(recorded), 'the recording is the live stream, byte for byte');
    // The capture ends with its last consumer, and leaves no descriptor behind.
    assert.ok(await eventually(() => agentChildren(agent.child.pid!).length === 0, 5000), 'the capture program ended');
    assert.ok(await eventually(() => fdCount(agent.child.pid!) <= fdsBefore, 3000), `descriptors: ${fdsBefore} before`);
  } finally {
    noise.kill();
    await agent.cleanup();
  }
}

capture('with the addon: the program writes into a pipe; recording and live stream get the same bytes', async (ctx) => {
  await recordAgainstLive(ctx.mic, {}, 'pipe');
});

capture("without the addon (temp directory noexec): Node's stdio socket; the same bytes", async (ctx) => {
  await withNoexecTmpdir((tmp) => recordAgainstLive(ctx.mic, { TMPDIR: tmp }, 'socket'));
});

capture.run();
