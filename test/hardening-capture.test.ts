// The capture program dying, stopped from outside, or hanging mid-recording (on a paced
// virtual microphone): the record says failed with what to do, nothing partial is kept.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { recordingStatus, startRecording, waitForEnd } from './helpers/audio.ts';
import { agentChildren, eventually } from './helpers/proc.ts';
import { startVirtualMic, type VirtualMic } from './helpers/pulse.ts';

type Ctx = { mic: VirtualMic; agent: TestAgent; token: string };
const capture = suite<Ctx>('capture program faults');

capture.before(async (ctx) => {
  ctx.mic = startVirtualMic();
  ctx.agent = await startAgent({ env: ctx.mic.env, config: { audio: { device: 'pulse' } } });
  ctx.token = await ctx.agent.login();
});
capture.after(async (ctx) => {
  await ctx.agent?.cleanup();
  await ctx.mic?.stop();
});

/** Starts a recording and returns the pid of the sox the agent spawned for it. */
async function recordingSox(ctx: Ctx, duration: number): Promise<number> {
  const res = await startRecording(ctx.agent, ctx.token, { duration, fileExtension: 'flac' });
  assert.is(res.status, 202, await res.text());
  const pid = ctx.agent.child.pid!;
  assert.ok(await eventually(() => agentChildren(pid).length === 1, 3000), 'sox runs as the agent\'s child');
  return agentChildren(pid)[0]!;
}

const nothingKept = (ctx: Ctx) => assert.equal(readdirSync(join(ctx.agent.baseDir, 'recordings')), []);

capture('sox killed (SIGKILL) mid-recording: failed, saying it was killed and to start again', async (ctx) => {
  process.kill(await recordingSox(ctx, 3), 'SIGKILL');
  const r = await waitForEnd(ctx.agent, ctx.token);
  assert.is(r.state, 'failed');
  assert.is(r.error, 'sox was killed by SIGKILL before the recording was complete (another program or the system ' +
    'ended it, e.g. out of memory); nothing was kept: start the recording again');
  assert.is(r.file, null);
  nothingKept(ctx);
});

capture('sox stopped from outside (SIGTERM, it exits 0): failed, the short file not kept', async (ctx) => {
  const sox = await recordingSox(ctx, 3);
  await new Promise((r) => setTimeout(r, 700));
  process.kill(sox, 'SIGTERM');
  const r = await waitForEnd(ctx.agent, ctx.token);
  assert.is(r.state, 'failed');
  assert.match(r.error!, /^sox stopped after [0-9.]+ s of the 3 s asked \(ended by a signal from outside the agent\); the partial recording was not kept: start the recording again$/);
  nothingKept(ctx);
});

capture('sox hanging (SIGSTOP): the watchdog kills it after duration + margin and records failed', async (ctx) => {
  const t = Date.now();
  const sox = await recordingSox(ctx, 1);
  process.kill(sox, 'SIGSTOP');
  assert.is((await recordingStatus(ctx.agent, ctx.token)).state, 'recording');
  const r = await waitForEnd(ctx.agent, ctx.token, 15_000);
  const took = (Date.now() - t) / 1000;
  assert.is(r.state, 'failed');
  assert.is(r.error, 'sox was still running 5 s after the 1 s recording should have ended (it hung: stopped, or the ' +
    'audio device stalled); it was killed and nothing was kept: start the recording again');
  assert.ok(took >= 6 && took < 9, `failed after ${took} s`);
  assert.equal(agentChildren(ctx.agent.child.pid!), []);
  nothingKept(ctx);
  // And the recorder is free again.
  const res = await startRecording(ctx.agent, ctx.token, { duration: 0.5, fileExtension: 'wav' });
  assert.is(res.status, 202);
  assert.is((await waitForEnd(ctx.agent, ctx.token)).state, 'finished');
});

capture.run();
