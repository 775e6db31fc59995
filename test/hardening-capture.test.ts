// The capture program dying, stopped from outside, or hanging mid-recording (on a paced
// virtual microphone): the record says failed naming the device; what was recorded before
// it ended is kept (a stall keeps nothing: the watchdog cannot tell what the encoder holds).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { recordingStatus, soxi, startRecording, waitForEnd } from './helpers/audio.ts';
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

/** Starts a recording and returns the pid of the capturing sox (the one reading ALSA; the other encodes). */
async function recordingSox(ctx: Ctx, duration: number): Promise<number> {
  const res = await startRecording(ctx.agent, ctx.token, { duration, fileExtension: 'flac' });
  assert.is(res.status, 202, await res.text());
  const pid = ctx.agent.child.pid!;
  const capturing = () => agentChildren(pid).filter((c) => cmdline(c).includes('\0alsa\0'));
  assert.ok(
    await eventually(() => capturing().length === 1 && agentChildren(pid).length === 2, 3000),
    "one sox captures and one encodes, both the agent's children",
  );
  return capturing()[0]!;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return ''; // exited meanwhile
  }
}

const nothingKept = (ctx: Ctx) => assert.equal(readdirSync(join(ctx.agent.baseDir, 'recordings')), []);

for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
  capture(
    `the capturing sox ended from outside (${signal}) mid-recording: failed naming the device, what was recorded kept and playable`,
    async (ctx) => {
      const sox = await recordingSox(ctx, 5);
      await new Promise((r) => setTimeout(r, 700));
      process.kill(sox, signal);
      const r = await waitForEnd(ctx.agent, ctx.token);
      assert.is(r.state, 'failed');
      const said =
        /^sox capturing from "pulse" (was killed by SIGKILL|exited with code \d+)(: .*)?; the [0-9.]+ s recorded so far were kept$/;
      assert.ok(said.test(r.error ?? ''), r.error ?? 'no error');
      assert.is(r.stoppedBy, null);
      const info = soxi(join(ctx.agent.baseDir, r.file!));
      assert.ok(info.seconds > 0 && info.seconds < 5, `${info.seconds} s kept`);
      assert.ok(Math.abs(info.seconds - r.durationSeconds!) < 0.01, `${info.seconds} s on disk, ${r.durationSeconds} s in the record`);
      assert.ok(await eventually(() => agentChildren(ctx.agent.child.pid!).length === 0, 3000), 'the encoder outlived the capture');
      rmSync(join(ctx.agent.baseDir, r.file!));
    },
  );
}

capture('sox hanging (SIGSTOP): the watchdog kills it after duration + margin and records failed', async (ctx) => {
  const t = Date.now();
  const sox = await recordingSox(ctx, 1);
  process.kill(sox, 'SIGSTOP');
  assert.is((await recordingStatus(ctx.agent, ctx.token)).state, 'recording');
  const r = await waitForEnd(ctx.agent, ctx.token, 15_000);
  const took = (Date.now() - t) / 1000;
  assert.is(r.state, 'failed');
  assert.is(
    r.error,
    'sox was still running 5 s after the 1 s recording should have ended (it hung: stopped, or the ' +
      'audio device stalled); it was killed and nothing was kept: start the recording again',
  );
  assert.ok(took >= 6 && took < 9, `failed after ${took} s`);
  assert.equal(agentChildren(ctx.agent.child.pid!), []);
  nothingKept(ctx);
  // And the recorder is free again.
  const res = await startRecording(ctx.agent, ctx.token, { duration: 0.5, fileExtension: 'wav' });
  assert.is(res.status, 202);
  assert.is((await waitForEnd(ctx.agent, ctx.token)).state, 'finished');
});

capture.run();
