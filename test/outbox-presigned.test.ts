// The `presigned` target (docs/outbox.md, "Presigned URLs") with what comes after an upload:
// `deleteAfterUpload` deletes the file once verified (audited `delete`, reason "uploaded"),
// without it the file stays; below `audio.minFreeBytes` uploaded files go for space, oldest
// first (audited `delete`, reason "disk", "uploaded": true), an un-uploaded one never. The
// collector is a real HTTP server of the test's own (presign + store); recordings/ is a real
// 2 MiB tmpfs for the disk part (mount(8): the suite runs as root).
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, statfsSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeDir, prepareDir, startAgent, type TestAgent } from './helpers/agent.ts';
import { reloadAudio, startRecording } from './helpers/audio.ts';
import { bearer } from './helpers/http.ts';
import { auditEvents } from './helpers/log.ts';
import { stateWhen, writeSettled } from './helpers/outbox.ts';
import { until } from './helpers/proc.ts';

const TOKEN = 'presign-token-3c9d';
const KiB = 1024;

interface Collector {
  url: string;
  /** Bodies stored, by path relative to baseDir. */
  stored: Map<string, Buffer>;
  /** A status every request is answered with while set (the collector down). */
  failWith: number;
  /** PUTs still to be answered 503 (the store down, the presign service up). */
  storeFails: number;
  presigns: number;
  server: Server;
}

async function startCollector(): Promise<Collector> {
  const c: Collector = { url: '', stored: new Map(), failWith: 0, storeFails: 0, presigns: 0, server: undefined as unknown as Server };
  c.server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const data = Buffer.concat(parts);
      const url = new URL(req.url!, 'http://x');
      if (c.failWith) return res.writeHead(c.failWith).end('{"error":"down for the test"}');
      if (req.method === 'POST' && url.pathname === '/presign') {
        if (req.headers.authorization !== `Bearer ${TOKEN}`) return res.writeHead(401).end('{"error":"bad token"}');
        c.presigns++;
        const ask = JSON.parse(data.toString()) as { path: string };
        const put = `${c.url}/store/${encodeURIComponent(ask.path)}?sig=s-${randomBytes(4).toString('hex')}`;
        return res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ url: put, method: 'PUT', headers: {}, expiresAt: new Date(Date.now() + 600_000).toISOString() }));
      }
      if (req.method !== 'PUT' || !url.pathname.startsWith('/store/') || !url.searchParams.get('sig')?.startsWith('s-'))
        return res.writeHead(403).end();
      if (req.headers['content-md5'] !== createHash('md5').update(data).digest('base64')) return res.writeHead(400).end();
      if (c.storeFails > 0 && c.storeFails--) return res.writeHead(503).end('<Error><Code>SlowDown</Code></Error>');
      c.stored.set(decodeURIComponent(url.pathname.slice('/store/'.length)), data);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => c.server.listen(0, '127.0.0.1', r));
  c.url = `http://127.0.0.1:${(c.server.address() as AddressInfo).port}`;
  return c;
}

/** An agent on `dir` (its files already there) shipping to the collector's presign URL. */
async function agentFor(c: Collector, dir: string, extra: Record<string, unknown>, more: Record<string, unknown> = {}): Promise<TestAgent> {
  writeFileSync(join(dir, 'presign.token'), `${TOKEN}\n`, { mode: 0o600 });
  const target = { type: 'presigned', url: `${c.url}/presign`, tokenFile: 'presign.token' };
  const config = { deviceId: 'dev-p', ...more, outbox: { target, maxBackoffSeconds: 2, ...extra } };
  await prepareDir({ dir, config });
  return startAgent({ dir, config });
}

const deletes = (agent: TestAgent, reason: string) =>
  auditEvents(agent.output()).filter((a) => a.event === 'delete' && a.reason === reason);

async function listed(agent: TestAgent, token: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${agent.url}/api/v1/files/list?path=recordings`, { headers: bearer(token) });
  assert.is(res.status, 200);
  const body = (await res.json()) as { entries: { name: string; uploaded?: unknown }[] };
  return Object.fromEntries(body.entries.map((e) => [e.name, e.uploaded]));
}

const test = suite('outbox: presigned target, deleteAfterUpload and room for recordings');

test('a URL is used until its expiresAt: the store answering 503 twice, the same URL is tried again, one presign', async () => {
  const c = await startCollector();
  c.storeFails = 2;
  const dir = makeDir();
  const data = randomBytes(3 * KiB);
  writeSettled(dir, { 'recordings/a.flac': data });
  const agent = await agentFor(c, dir, {});
  try {
    await stateWhen(agent, await agent.login(), 'the upload', (s) => s.uploaded.files === 1, 30_000);
    assert.is(c.storeFails, 0, 'two refusals before');
    assert.is(c.presigns, 1);
    assert.ok(c.stored.get('recordings/a.flac')?.equals(data));
  } finally {
    await agent.cleanup();
    c.server.close();
  }
});

test('deleteAfterUpload: each file goes once its presigned PUT is verified, audited delete reason uploaded', async () => {
  const c = await startCollector();
  const dir = makeDir();
  const files = { 'recordings/a.wav': randomBytes(20_000), 'recordings/sub/b.wav': randomBytes(30_000) };
  writeSettled(dir, files);
  const agent = await agentFor(c, dir, { deleteAfterUpload: true });
  try {
    const token = await agent.login();
    await until('both deleted', () => Object.keys(files).every((f) => !existsSync(join(agent.baseDir, f))) || undefined, 30_000);
    for (const [rel, data] of Object.entries(files)) assert.ok(c.stored.get(rel)?.equals(data), `${rel} stored whole`);
    await until('the audit lines', () => deletes(agent, 'uploaded').length === 2 || undefined);
    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    assert.equal(
      deletes(agent, 'uploaded')
        .sort(byPath)
        .map((a) => [a.path, a.bytes, a.credential]),
      [
        ['recordings/a.wav', 20_000, 'agent'],
        ['recordings/sub/b.wav', 30_000, 'agent'],
      ],
    );
    // The upload's audit key is the presigned URL without its query (no signature in the trail).
    const uploads = auditEvents(agent.output())
      .filter((a) => a.event === 'outbox.upload')
      .sort(byPath);
    assert.equal(
      uploads.map((a) => [a.path, a.key, a.bytes]),
      [
        ['recordings/a.wav', `${c.url}/store/recordings%2Fa.wav`, 20_000],
        ['recordings/sub/b.wav', `${c.url}/store/recordings%2Fsub%2Fb.wav`, 30_000],
      ],
    );
    assert.not.ok(agent.output().includes('sig=s-'), 'no signature logged');
    const state = await stateWhen(agent, token, 'both counted', (s) => s.uploaded.files === 2);
    assert.is(state.pending.files, 0);
    assert.equal(deletes(agent, 'disk'), []);
  } finally {
    await agent.cleanup();
    c.server.close();
  }
});

test('without deleteAfterUpload: the file stays, marked uploaded, and no delete is audited', async () => {
  const c = await startCollector();
  const dir = makeDir();
  const data = randomBytes(25_000);
  writeSettled(dir, { 'recordings/kept.wav': data });
  const agent = await agentFor(c, dir, {});
  try {
    const token = await agent.login();
    await stateWhen(agent, token, 'the upload', (s) => s.uploaded.files === 1, 30_000);
    assert.ok(c.stored.get('recordings/kept.wav')?.equals(data));
    assert.equal(await listed(agent, token), { 'kept.wav': true });
    assert.ok(readFileSync(join(agent.baseDir, 'recordings/kept.wav')).equals(data), 'the file stays as it was');
    assert.equal(
      auditEvents(agent.output()).filter((a) => a.event === 'delete'),
      [],
    );
  } finally {
    await agent.cleanup();
    c.server.close();
  }
});

// 2 MiB of tmpfs: 100 + 3 × 400 KiB leave ~748 KiB; deleting one 400 KiB file leaves ~1,148,
// two ~1,548 KiB.
const MIN = 1_300_000;
const disk = suite<{ mnt?: string }>('outbox: presigned target, room made below minFreeBytes');
disk.after((ctx) => {
  if (ctx.mnt) execFileSync('umount', ['-l', ctx.mnt]);
});

disk('uploaded files go for space, oldest first, until there is room; one changed since its upload stays however old', async (ctx) => {
  const c = await startCollector();
  const dir = makeDir();
  ctx.mnt = join(dir, 'files/recordings');
  mkdirSync(ctx.mnt, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', ctx.mnt]);
  const ages: Record<string, [number, number]> = { 'n0.wav': [100, 400], 'n1.wav': [400, 300], 'n2.wav': [400, 200], 'n3.wav': [400, 100] };
  for (const [name, [kib, age]] of Object.entries(ages)) {
    writeFileSync(join(ctx.mnt, name), randomBytes(kib * KiB));
    const t = new Date(Date.now() - age * 1000);
    utimesSync(join(ctx.mnt, name), t, t);
  }
  const free = () => {
    const s = statfsSync(ctx.mnt!);
    return s.bavail * s.bsize;
  };
  let agent: TestAgent | undefined;
  try {
    agent = await agentFor(c, dir, {}, { audio: { device: 'null', minFreeBytes: 0 } });
    const token = await agent.login();
    await stateWhen(agent, token, 'the four uploaded', (s) => s.uploaded.files === 4, 30_000);
    assert.equal(deletes(agent, 'disk'), [], 'no minimum: nothing goes');
    assert.equal(deletes(agent, 'uploaded'), [], 'no deleteAfterUpload: nothing goes');
    // n0, the oldest, changes after its upload while the collector is down: not deletable for space.
    c.failWith = 503;
    const n0 = join(ctx.mnt, 'n0.wav');
    appendFileSync(n0, randomBytes(4 * KiB));
    const old = new Date(Date.now() - 400_000);
    utimesSync(n0, old, old);
    assert.ok(free() < MIN, `${free()} free`);
    await reloadAudio(agent, { minFreeBytes: MIN });
    const res = await startRecording(agent, token, { duration: 1, fileExtension: 'wav' });
    assert.is(res.status, 202, await res.text());
    assert.equal(
      deletes(agent, 'disk').map((a) => [a.path, a.uploaded, a.bytes, a.credential]),
      [
        ['recordings/n1.wav', true, 400 * KiB, 'agent'],
        ['recordings/n2.wav', true, 400 * KiB, 'agent'],
      ],
    );
    assert.ok(existsSync(n0), 'the changed file stays, oldest or not');
    assert.ok(existsSync(join(ctx.mnt, 'n3.wav')), 'no more than the room asked');
    assert.ok(free() >= MIN, `${free()} free`);
  } finally {
    await agent?.stop('SIGKILL');
    if (ctx.mnt) execFileSync('umount', ['-l', ctx.mnt]);
    ctx.mnt = undefined;
    await agent?.cleanup();
    c.server.close();
  }
});

test.run();
disk.run();
