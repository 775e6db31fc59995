// Faults: a full disk under a recording, SIGKILL mid-upload, users and secret files going
// bad at runtime, downloads cut at random offsets, SIGTERM under load. Real kills, a real tmpfs.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN, prepareDir, runCli, spawnAgent, startAgent, type TestAgent } from './helpers/agent.ts';
import { startRecording, waitForEnd } from './helpers/audio.ts';
import { jsonPost } from './helpers/http.ts';
import { download, parseRaw } from './helpers/files.ts';
import { agentChildren, eventually, fdCount } from './helpers/proc.ts';
import { paceUpload, partialDownload } from './helpers/streams.ts';

const faults = suite('faults');
const MiB = 1024 * 1024;
const OLD = 'old content, complete\n';
const temps = (dir: string) =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((n) => /\.device-agent-upload-|\.part$/.test(n));

function requireRoot(): void {
  // mount(8) needs CAP_SYS_ADMIN: without it this test cannot build its small disk.
  if (process.getuid?.() !== 0) throw new Error('the disk-full test mounts a tmpfs and must run as root');
}

faults('a disk that fills up under a recording: failed with the reason, no debris, agent healthy', async () => {
  requireRoot();
  // The disk guard off (audio.minFreeBytes 0): this is the disk filling under sox itself;
  // the guard's own refusal and stop are test/audio-retention.test.ts's.
  const { dir } = await prepareDir({ config: { audio: { device: 'null', minFreeBytes: 0 } } });
  const recordings = join(dir, 'files/recordings');
  mkdirSync(recordings);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', recordings]);
  try {
    const { child, port } = await spawnAgent(dir);
    try {
      const agent = { url: `http://127.0.0.1:${port}` } as TestAgent;
      const login = await jsonPost(`${agent.url}/api/v1/agentusers/loginusertoagent`, ADMIN);
      const { token } = (await login.json()) as { token: string };
      // 5 s of 48 kHz 16-bit mono is 480 KB: the 64 KiB disk fills within the first second.
      const res = await startRecording(agent, token, { duration: 5, fileExtension: 'wav' });
      assert.ok(res.status === 202 || res.status === 503, `${res.status}`);
      const r = await waitForEnd(agent, token);
      assert.is(r.state, 'failed');
      assert.is(
        r.error,
        'sox: the disk holding the recordings is full (no space left on device): free some space there and start the recording again',
      );
      assert.is(r.file, null);
      assert.equal(readdirSync(recordings), [], 'no temp file left on the full disk');
      assert.is((await fetch(`${agent.url}/api/v1/health`)).status, 200);
      // The capture, shared with other consumers, stops when the last one lets go: it may
      // still be exiting as the recording reads failed, and must be gone soon after.
      assert.ok(await eventually(() => agentChildren(child.pid!).length === 0, 3000), `children left: ${agentChildren(child.pid!)}`);
    } finally {
      child.kill('SIGKILL');
    }
  } finally {
    execFileSync('umount', ['-l', recordings]);
    rmSync(dir, { recursive: true, force: true });
  }
});

faults('SIGKILL mid-upload: after a restart no temp file remains and the target is the old one', async () => {
  const agent = await startAgent();
  try {
    writeFileSync(join(agent.baseDir, 'target.bin'), OLD);
    const token = await agent.login();
    const flow = paceUpload(agent.port, token, 'target.bin', 30 * MiB, 'n', { stopAfter: 3 * MiB });
    assert.ok(await eventually(() => temps(agent.baseDir).length === 1 && flow.bytes() >= 3 * MiB, 5000), 'the upload is under way');
    await new Promise((r) => setTimeout(r, 200));
    await agent.stop('SIGKILL');
    flow.sock.destroy();
    assert.is(temps(agent.baseDir).length, 1, 'a crash leaves the temp file');
    const again = await spawnAgent(agent.dir);
    try {
      assert.ok(await eventually(() => temps(agent.baseDir).length === 0, 5000), 'swept at start');
      // The sweep logs after it removed: the line may arrive a moment later.
      assert.ok(await eventually(() => /removed 1 orphaned upload temp file/.test(again.output()), 3000), again.output());
      assert.is(readFileSync(join(agent.baseDir, 'target.bin'), 'utf8'), OLD);
    } finally {
      again.child.kill('SIGKILL');
    }
  } finally {
    await agent.cleanup();
  }
});

faults("a schedule's segment temp file left by a kill is removed at the next start, with no schedule stored then", async () => {
  const agent = await startAgent();
  try {
    const day = join(agent.baseDir, 'recordings', '2026-01-02');
    mkdirSync(day, { recursive: true });
    const left = join(day, '.20260102_030405.flac.part');
    const kept = join(day, '.notes.part'); // not a segment's name: not the agent's to remove
    writeFileSync(left, 'cut short');
    writeFileSync(kept, 'mine');
    await agent.stop('SIGKILL');
    const again = await spawnAgent(agent.dir);
    try {
      assert.ok(await eventually(() => !existsSync(left), 5000), 'removed at start');
      assert.ok(await eventually(() => /removed 1 segment temp file\(s\) left by a kill or a power cut under /.test(again.output()), 3000));
      assert.ok(existsSync(kept));
    } finally {
      again.child.kill('SIGKILL');
    }
  } finally {
    await agent.cleanup();
  }
});

faults('users file replaced by a directory or broken JSON at runtime: last good users kept, bad start is 78', async () => {
  const agent = await startAgent();
  try {
    const usersFile = join(agent.dir, 'users.json');
    const good = readFileSync(usersFile, 'utf8');
    rmSync(usersFile);
    mkdirSync(usersFile);
    assert.ok(await eventually(() => /EISDIR.*keeping the last good users \(1\)/.test(agent.output()), 4000), agent.output());
    assert.type(await agent.login(), 'string');
    rmSync(usersFile, { recursive: true });
    writeFileSync(usersFile, good.slice(0, good.length >> 1));
    assert.ok(
      await eventually(() => /is not valid JSON: .*; keeping the last good users \(1\)/.test(agent.output()), 4000),
      agent.output(),
    );
    assert.type(await agent.login(), 'string');
    const bad = await runCli(['serve', '--config', agent.configFile]);
    assert.is(bad.code, 78);
    assert.match(bad.stderr, /usersFile: users file .* is not valid JSON/);
  } finally {
    await agent.cleanup();
  }
});

faults('secret file corrupted at runtime: tokens keep working on the secret in memory; a restart refuses it (78)', async () => {
  const agent = await startAgent();
  try {
    const token = await agent.login();
    const secretFile = join(agent.dir, 'jwt.secret');
    writeFileSync(secretFile, 'short\n', { mode: 0o600 });
    const res = await fetch(`${agent.url}/api/v1/devicestatus/get`, { headers: { Authorization: `Bearer ${token}` } });
    assert.is(res.status, 200);
    let bad = await runCli(['serve', '--config', agent.configFile]);
    assert.is(bad.code, 78);
    assert.match(bad.stderr, /jwtSecretFile: JWT secret file .* is shorter than 32 bytes/);
    rmSync(secretFile);
    mkdirSync(secretFile);
    bad = await runCli(['serve', '--config', agent.configFile]);
    assert.is(bad.code, 78);
    assert.match(bad.stderr, /jwtSecretFile: JWT secret file .* is not a regular file/);
  } finally {
    await agent.cleanup();
  }
});

faults('100 downloads cut at random offsets: no descriptor leak, the next download is whole', async () => {
  const agent = await startAgent();
  try {
    const data = Buffer.alloc(8 * MiB);
    for (let i = 0; i < data.length; i += 4) data.writeUInt32LE(i, i);
    writeFileSync(join(agent.baseDir, 'big.bin'), data);
    const token = await agent.login();
    await (await fetch(`${agent.url}/api/v1/health`, { headers: { Connection: 'close' } })).arrayBuffer();
    const fds = fdCount(agent.child.pid!);
    const flows = Array.from({ length: 100 }, () =>
      partialDownload(agent.port, token, 'big.bin', Math.floor(Math.random() * data.length), true),
    );
    await Promise.all(flows.map((f) => f.done));
    assert.ok(
      await eventually(() => fdCount(agent.child.pid!) <= fds, 5000),
      `descriptors: ${fds} before, ${fdCount(agent.child.pid!)} after`,
    );
    const res = await download(agent.url, token, 'filepath=big.bin');
    assert.is(res.status, 200);
    const got = Buffer.from(await res.arrayBuffer());
    assert.is(createHash('sha256').update(got).digest('hex'), createHash('sha256').update(data).digest('hex'));
  } finally {
    await agent.cleanup();
  }
});

faults('SIGTERM under load: transfers finish or are cut within the drain time, exit 0, no temp file', async () => {
  const agent = await startAgent();
  try {
    writeFileSync(join(agent.baseDir, 'big.bin'), Buffer.alloc(20 * MiB, 'd'));
    for (let i = 0; i < 4; i++) writeFileSync(join(agent.baseDir, `t${i}.bin`), OLD);
    const token = await agent.login();
    const fast = [0, 1].map((i) => paceUpload(agent.port, token, `t${i}.bin`, 2 * MiB, 'f', { everyMs: 20 }));
    const stuck = [2, 3].map((i) => paceUpload(agent.port, token, `t${i}.bin`, 30 * MiB, 's', { stopAfter: MiB }));
    const reading = [0, 1, 2].map(() => partialDownload(agent.port, token, 'big.bin', Infinity, false));
    const stalled = [0, 1].map(() => partialDownload(agent.port, token, 'big.bin', 1, false));
    await eventually(() => stuck.every((f) => f.bytes() >= MiB) && reading.every((f) => f.bytes() > 0), 5000);
    const t = Date.now();
    const exit = await agent.stop('SIGTERM');
    const took = Date.now() - t;
    assert.is(exit.code, 0, agent.output());
    assert.ok(took < 12_000, `exit took ${took} ms`);
    for (const f of fast) assert.is(parseRaw(await f.done).status, 200, 'an upload that could finish did');
    for (const f of reading) {
      await f.done;
      assert.is(f.bytes(), 20 * MiB, 'a download being read finished whole');
    }
    for (const f of [...stuck, ...stalled]) f.sock.destroy();
    assert.equal(temps(agent.baseDir), []);
    for (const i of [0, 1]) assert.is(readFileSync(join(agent.baseDir, `t${i}.bin`), 'utf8'), 'f'.repeat(2 * MiB));
    for (const i of [2, 3]) assert.is(readFileSync(join(agent.baseDir, `t${i}.bin`), 'utf8'), OLD);
  } finally {
    await agent.cleanup();
  }
});

faults.run();
