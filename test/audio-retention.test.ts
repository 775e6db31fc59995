// Retention and the disk guard across real recordings: sox capturing from a PulseAudio null
// sink's monitor (a real-time paced microphone), recordings on a real tmpfs for the guard.
// Both follow a SIGHUP reload without a restart.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordingRecord } from '../src/audio/record.ts';
import { prepareDir, runCli, startAgent, type TestAgent } from './helpers/agent.ts';
import { reloadAudio, soxi, startRecording, waitForEnd } from './helpers/audio.ts';
import { auditEvents } from './helpers/log.ts';
import { eventually } from './helpers/proc.ts';
import { startVirtualMic, type VirtualMic } from './helpers/pulse.ts';

type Ctx = { mic: VirtualMic };
const USERS = [{ username: 'op', password: 'operator pass', role: 'operator' as const }];

async function record(agent: TestAgent, token: string, body = { duration: 0.5, fileExtension: 'wav' }): Promise<RecordingRecord> {
  const res = await startRecording(agent, token, body);
  assert.is(res.status, 202, await res.text());
  const end = await waitForEnd(agent, token, 90_000);
  assert.is(end.state, 'finished', JSON.stringify(end));
  return end;
}

const recordings = (agent: TestAgent) =>
  readdirSync(join(agent.baseDir, 'recordings'))
    .filter((n) => n.startsWith('recording-'))
    .sort();

const audits = (agent: TestAgent) => auditEvents(agent.output());

/** Rewrites the config's audio section and reloads (SIGHUP); resolves once the agent says it applied. */

const keep = suite<Ctx>('retention across real recordings');
keep.before((ctx) => {
  ctx.mic = startVirtualMic();
});
keep.after(async (ctx) => {
  await ctx.mic?.stop();
});

keep(
  'maxCount keeps exactly the newest recordings and the guard is never reached; a reload changes the limit; config show has both keys',
  async ({ mic }) => {
    const agent = await startAgent({ users: USERS, env: mic.env, config: { audio: { device: 'pulse', retention: { maxCount: 5 } } } });
    try {
      const token = await agent.login('op', 'operator pass');
      const made: string[] = [];
      for (let i = 0; i < 7; i++) {
        const end = await record(agent, token);
        assert.is(end.stoppedBy, 'duration');
        made.push(end.file!.replace('recordings/', ''));
        assert.ok(await eventually(() => recordings(agent).length === Math.min(i + 1, 5), 5000), String(recordings(agent)));
        assert.equal(recordings(agent), made.slice(-5), `after recording ${i + 1}`);
      }
      for (const name of recordings(agent)) assert.ok(soxi(join(agent.baseDir, 'recordings', name)).seconds > 0.4);
      // The files vanish a moment before their audit lines reach the log.
      const deletes = () => audits(agent).filter((e) => e.event === 'delete');
      assert.ok(await eventually(() => deletes().length >= 2, 5000), JSON.stringify(deletes()));
      const deleted = deletes();
      assert.equal(
        deleted.map((e) => [e.path, e.reason, e.outcome, e.user, e.credential]),
        made.slice(0, 2).map((n) => [`recordings/${n}`, 'retention', 'ok', null, 'agent']),
      );
      // A file of the user's own beside them is never a recording.
      writeFileSync(join(agent.baseDir, 'recordings', 'notes.txt'), 'mine');
      await reloadAudio(agent, { retention: { maxCount: 1 } });
      made.push((await record(agent, token)).file!.replace('recordings/', ''));
      assert.ok(await eventually(() => recordings(agent).length === 1, 5000), String(recordings(agent)));
      assert.equal(recordings(agent), made.slice(-1));
      assert.ok(readdirSync(join(agent.baseDir, 'recordings')).includes('notes.txt'));
      const shown = await runCli(['config', 'show', '--config', agent.configFile]);
      const audio = JSON.parse(shown.stdout).audio;
      assert.equal(audio.retention, { maxCount: 1, maxBytes: null, maxAgeDays: null });
      assert.is(audio.minFreeBytes, 104857600);
    } finally {
      await agent.cleanup();
    }
  },
);

keep('retention applies at start', async ({ mic }) => {
  const { dir } = await prepareDir({ users: USERS });
  mkdirSync(join(dir, 'files/recordings'));
  for (const day of ['01', '02', '03']) writeFileSync(join(dir, `files/recordings/recording-2026-01-${day}T00-00-00.000Z.wav`), 'old');
  const agent = await startAgent({ dir, users: USERS, env: mic.env, config: { audio: { device: 'pulse', retention: { maxCount: 1 } } } });
  try {
    assert.ok(await eventually(() => recordings(agent).length === 1, 5000), String(recordings(agent)));
    assert.equal(recordings(agent), ['recording-2026-01-03T00-00-00.000Z.wav']);
  } finally {
    await agent.cleanup();
  }
});

const guard = suite<Ctx & { mnt?: string }>('the disk guard on a small tmpfs');
guard.before((ctx) => {
  ctx.mic = startVirtualMic();
});
guard.after(async (ctx) => {
  if (ctx.mnt) execFileSync('umount', ['-l', ctx.mnt]);
  await ctx.mic?.stop();
});

guard('a start with too little free is 507; a running recording ends at half the minimum, kept and playable', async (ctx) => {
  const { dir } = await prepareDir({ users: USERS });
  ctx.mnt = join(dir, 'files/recordings');
  mkdirSync(ctx.mnt);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', ctx.mnt]);
  const agent = await startAgent({ dir, users: USERS, env: ctx.mic.env, config: { audio: { device: 'pulse' } } });
  try {
    const token = await agent.login('op', 'operator pass');
    const s = statfsSync(ctx.mnt);
    const free = Math.floor((s.bavail * s.bsize) / 1048576);
    const res = await startRecording(agent, token, { duration: 60, fileExtension: 'wav' });
    assert.is(res.status, 507);
    assert.equal(await res.json(), { error: `not enough free space: ${free} MB free, 100 MB required` });
    // 800 KiB needed: a start is let in, and a 48 kHz wav (94 KiB/s) ends once under 400 KiB are left.
    await reloadAudio(agent, { minFreeBytes: 800 * 1024 });
    const started = await startRecording(agent, token, { duration: 60, fileExtension: 'wav' });
    assert.is(started.status, 202, await started.text());
    const end = await waitForEnd(agent, token, 60_000);
    assert.is(end.state, 'finished', JSON.stringify(end));
    assert.is(end.stoppedBy, 'disk');
    assert.is(end.error, null);
    assert.ok(end.durationSeconds! > 1 && end.durationSeconds! < 30, String(end.durationSeconds));
    const info = soxi(join(agent.baseDir, end.file!));
    assert.ok(Math.abs(info.seconds - end.durationSeconds!) < 0.05, `${info.seconds} vs ${end.durationSeconds}`);
    const left = statfsSync(ctx.mnt);
    assert.ok(left.bavail * left.bsize < 800 * 1024, 'it stopped below the minimum, not before');
    assert.equal(readdirSync(ctx.mnt), [end.file!.replace('recordings/', '')], 'no temp file left');
    // Below the minimum now: the next start is refused.
    const again = await startRecording(agent, token, { duration: 1, fileExtension: 'wav' });
    assert.is(again.status, 507);
  } finally {
    await agent.stop('SIGKILL');
    execFileSync('umount', ['-l', ctx.mnt]);
    ctx.mnt = undefined;
    await agent.cleanup();
  }
});

keep.run();
guard.run();
