// Room made for recordings with the outbox on (docs/outbox.md, "Retention"): when free space
// under recordingsDir is below audio.minFreeBytes, uploaded files under outbox.paths go, oldest
// first, until it is above again (audited `delete`, reason "disk"); a file not uploaded never
// goes for space. recordings/ is a real 2 MiB tmpfs (mount(8): the suite runs as root); the
// store is s3rver behind the strict check (test/helpers/s3.ts).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, statfsSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeDir, type TestAgent } from './helpers/agent.ts';
import { reloadAudio, startRecording } from './helpers/audio.ts';
import { auditEvents } from './helpers/log.ts';
import { agentWith, stateWhen } from './helpers/outbox.ts';
import { startStore } from './helpers/s3.ts';

const KiB = 1024;
// 2 MiB of tmpfs: three 400 KiB files leave 848 KiB; deleting one leaves 1,248 KiB, two 1,648 KiB.
const MIN = 1_300_000;

const test = suite<{ mnt?: string }>('outbox: room made below minFreeBytes');
test.after((ctx) => {
  if (ctx.mnt) execFileSync('umount', ['-l', ctx.mnt]);
});

/** A fresh agent directory whose recordings/ is a 2 MiB tmpfs holding `files` (name → age in seconds). */
function tmpfsDir(ctx: { mnt?: string }, files: Record<string, [number, number]>): string {
  const dir = makeDir();
  ctx.mnt = join(dir, 'files/recordings');
  mkdirSync(ctx.mnt, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', ctx.mnt]);
  for (const [name, [kib, age]] of Object.entries(files)) {
    const abs = join(ctx.mnt, name);
    writeFileSync(abs, randomBytes(kib * KiB));
    const t = new Date(Date.now() - age * 1000);
    utimesSync(abs, t, t);
  }
  return dir;
}

const free = (dir: string) => {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
};
const diskDeletes = (agent: TestAgent) =>
  auditEvents(agent.output())
    .filter((a) => a.event === 'delete' && a.reason === 'disk')
    .map((a): [string, unknown] => [a.path, a.uploaded]);
const uploadsInOrder = (agent: TestAgent) =>
  auditEvents(agent.output())
    .filter((a) => a.event === 'outbox.upload')
    .map((a) => a.path);

async function unmount(ctx: { mnt?: string }, agent: TestAgent | undefined): Promise<void> {
  await agent?.stop('SIGKILL');
  if (ctx.mnt) execFileSync('umount', ['-l', ctx.mnt]);
  ctx.mnt = undefined;
  await agent?.cleanup();
}

test('a start short of space: the oldest uploaded files go until there is room, an older un-uploaded one stays; then 202', async (ctx) => {
  const store = await startStore();
  const dir = tmpfsDir(ctx, { 'night-0.wav': [100, 400], 'night-1.wav': [400, 300], 'night-2.wav': [400, 200], 'night-3.wav': [300, 100] });
  let agent: TestAgent | undefined;
  try {
    agent = await agentWith(store, {}, {}, undefined, { dir, config: { audio: { device: 'null', minFreeBytes: 0 } } });
    const token = await agent.login();
    await stateWhen(agent, token, 'the four uploaded', (s) => s.uploaded.files === 4);
    assert.equal(diskDeletes(agent), [], 'no minimum: nothing goes');
    // night-0, the oldest, changes after its upload (and the store is down from now on): its
    // present version is not in the store, so it never goes for space.
    store.failWith = 503;
    const night0 = join(ctx.mnt!, 'night-0.wav');
    appendFileSync(night0, randomBytes(4 * KiB));
    const old = new Date(Date.now() - 400_000);
    utimesSync(night0, old, old);
    assert.ok(free(ctx.mnt!) < MIN, `${free(ctx.mnt!)} free`);
    await reloadAudio(agent, { minFreeBytes: MIN });
    const res = await startRecording(agent, token, { duration: 1, fileExtension: 'wav' });
    assert.is(res.status, 202, await res.text());
    assert.equal(diskDeletes(agent), [
      ['recordings/night-1.wav', true],
      ['recordings/night-2.wav', true],
    ]);
    assert.ok(existsSync(night0), 'the un-uploaded file stays, oldest or not');
    assert.ok(existsSync(join(ctx.mnt!, 'night-3.wav')), 'no more than the room asked');
    const audits = auditEvents(agent.output()).filter((a) => a.event === 'delete' && a.reason === 'disk');
    assert.equal(
      audits.map((a) => [a.bytes, a.credential]),
      [
        [400 * KiB, 'agent'],
        [400 * KiB, 'agent'],
      ],
    );
  } finally {
    await unmount(ctx, agent);
    await store.close();
  }
});

test('the store down: nothing goes for space and a start is 507; once files upload, each verified one may go, until there is room', async (ctx) => {
  const store = await startStore();
  store.failWith = 503;
  const dir = tmpfsDir(ctx, { 'a.wav': [400, 300], 'b.wav': [400, 200], 'c.wav': [400, 100] });
  let agent: TestAgent | undefined;
  try {
    agent = await agentWith(store, {}, {}, undefined, { dir, config: { audio: { device: 'null', minFreeBytes: MIN } } });
    const token = await agent.login();
    await stateWhen(agent, token, 'a failed attempt', (s) => s.lastError !== null);
    const refused = await startRecording(agent, token, { duration: 1, fileExtension: 'wav' });
    assert.is(refused.status, 507);
    assert.equal(diskDeletes(agent), [], 'not one un-uploaded file deleted for space');
    store.failWith = 0;
    await stateWhen(agent, token, 'all three uploaded', (s) => s.uploaded.files === 3);
    // Each upload makes its file deletable: the first two uploaded go (the first alone leaves too little).
    const [first, second, third] = uploadsInOrder(agent);
    assert.equal(diskDeletes(agent), [
      [first, true],
      [second, true],
    ]);
    assert.ok(existsSync(join(dir, 'files', third!)), `${third} kept: there is room`);
    assert.ok(free(ctx.mnt!) >= MIN, `${free(ctx.mnt!)} free`);
    const started = await startRecording(agent, token, { duration: 1, fileExtension: 'wav' });
    assert.is(started.status, 202, await started.text());
  } finally {
    await unmount(ctx, agent);
    await store.close();
  }
});

test.run();
