// The `http` and `presigned` targets (docs/outbox.md) against a collector of the test's own:
// a real HTTP server that checks the bearer token and Content-MD5 and keeps what it gets.
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeDir, prepareDir, startAgent, type TestAgent } from './helpers/agent.ts';
import { outboxState, stateWhen, writeSettled } from './helpers/outbox.ts';
import { until } from './helpers/proc.ts';

const test = suite('outbox: http and presigned collectors');
const TOKEN = 'collector-token-7f3a';
const NAME = 'recordings/night 2 été.wav';

interface Collector {
  url: string;
  /** Milliseconds from a PUT's first body byte to its last, per path. */
  durations: Map<string, number>;
  stored: Map<string, Buffer>;
  presigns: Record<string, unknown>[];
  refusals: string[];
  server: Server;
}

function body(req: IncomingMessage, took?: (ms: number) => void): Promise<Buffer> {
  return new Promise((r) => {
    const parts: Buffer[] = [];
    let first = 0;
    req.on('data', (c: Buffer) => {
      first ||= performance.now();
      parts.push(c);
    });
    req.on('end', () => {
      took?.(first ? performance.now() - first : 0);
      r(Buffer.concat(parts));
    });
  });
}

async function startCollector(): Promise<Collector> {
  const c: Collector = {
    url: '',
    durations: new Map(),
    stored: new Map(),
    presigns: [],
    refusals: [],
    server: undefined as unknown as Server,
  };
  c.server = createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://x');
    const data = await body(req, (ms) => c.durations.set(url.pathname, ms));
    if (req.method === 'POST' && url.pathname === '/presign') {
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return res.writeHead(401).end('{"error":"bad token"}');
      const ask = JSON.parse(data.toString()) as Record<string, unknown>;
      c.presigns.push(ask);
      // The first URL is already expired at the store: the agent must ask again after its 403.
      const sig = c.presigns.length === 1 ? 'expired' : 'good';
      const target = `${c.url}/store/${encodeURIComponent(String(ask.path))}?sig=${sig}`;
      return res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          url: target,
          method: 'PUT',
          headers: { 'x-extra': 'kept' },
          expiresAt: new Date(Date.now() + 600_000).toISOString(),
        }),
      );
    }
    if (req.method !== 'PUT') return res.writeHead(405).end();
    const md5 = createHash('md5').update(data).digest('base64');
    if (req.headers['content-md5'] !== md5) {
      c.refusals.push(`${req.url}: Content-MD5`);
      return res.writeHead(400).end('{"error":"Content-MD5 mismatch"}');
    }
    if (url.pathname.startsWith('/store/')) {
      if (url.searchParams.get('sig') !== 'good')
        return res.writeHead(403).end('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
      if (req.headers['x-extra'] !== 'kept') c.refusals.push('presigned headers not sent');
      c.stored.set(decodeURIComponent(url.pathname.slice('/store/'.length)), data);
    } else {
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return res.writeHead(401).end('{"error":"bad token"}');
      c.stored.set(url.pathname, data);
    }
    res.writeHead(201).end();
  });
  await new Promise<void>((r) => c.server.listen(0, '127.0.0.1', r));
  c.url = `http://127.0.0.1:${(c.server.address() as AddressInfo).port}`;
  return c;
}

async function agentFor(target: Record<string, unknown>, data: Buffer, extra: Record<string, unknown> = {}): Promise<TestAgent> {
  const dir = makeDir();
  writeSettled(dir, { [NAME]: data });
  writeFileSync(join(dir, 'collector.token'), `${TOKEN}\n`);
  const config = { deviceId: 'dev-x', outbox: { target: { ...target, tokenFile: 'collector.token' }, ...extra } };
  await prepareDir({ dir, config });
  return startAgent({ dir, config });
}

/** A collector and an agent shipping `data` (as NAME) to the target made from its URL; both stopped after `body`. */
async function withCollector(
  target: (collectorUrl: string) => Record<string, unknown>,
  data: Buffer,
  extra: Record<string, unknown>,
  body: (c: Collector, agent: TestAgent, token: string) => Promise<void>,
): Promise<void> {
  const c = await startCollector();
  const agent = await agentFor(target(c.url), data, extra);
  try {
    await body(c, agent, await agent.login());
  } finally {
    await agent.cleanup();
    c.server.close();
  }
}

test('http: a PUT to the URL with {deviceId} and each {path} segment encoded, bearer token, Content-MD5', async () => {
  const data = randomBytes(50_000);
  await withCollector(
    (url) => ({ type: 'http', url: `${url}/in/{deviceId}/{path}` }),
    data,
    {},
    async (c, agent, token) => {
      await stateWhen(agent, token, 'the upload', (s) => s.uploaded.files === 1, 30_000);
      assert.equal([...c.stored.keys()], ['/in/dev-x/recordings/night%202%20%C3%A9t%C3%A9.wav']);
      assert.ok(c.stored.values().next().value!.equals(data));
      assert.equal(c.refusals, []);
      assert.not.ok(agent.output().includes(TOKEN));
    },
  );
});

test('presigned: asks per file with path, sizes and digests; an expired URL (403) gets a new one', async () => {
  const data = randomBytes(70_000);
  await withCollector(
    (url) => ({ type: 'presigned', url: `${url}/presign` }),
    data,
    {},
    async (c, agent, token) => {
      await stateWhen(agent, token, 'the upload', (s) => s.uploaded.files === 1, 30_000);
      const ask = {
        deviceId: 'dev-x',
        path: NAME,
        sizeBytes: data.length,
        sha256: createHash('sha256').update(data).digest('hex'),
        contentMd5: createHash('md5').update(data).digest('base64'),
      };
      assert.equal(c.presigns, [ask, ask]);
      assert.ok(c.stored.get(NAME)?.equals(data));
      assert.equal(c.refusals, []);
    },
  );
});

test('maxBytesPerSecond paces the body, its bytes in order: 3 MiB at 1 MiB/s takes at least 1.9 s to arrive', async () => {
  // Over two 256 KiB reads: the pieces of one read wait for the limit while the next is read.
  const data = randomBytes(3 * 1024 * 1024);
  await withCollector(
    (url) => ({ type: 'http', url: `${url}/in/{path}` }),
    data,
    { maxBytesPerSecond: 1048576 },
    async (c, agent, token) => {
      await stateWhen(agent, token, 'the upload', (s) => s.uploaded.files === 1);
      const took = c.durations.get('/in/recordings/night%202%20%C3%A9t%C3%A9.wav')!;
      // At most a second's allowance is saved up before the start; the other 2 MiB take 2 s.
      assert.ok(took >= 1900, `the body arrived in ${took.toFixed(0)} ms`);
      assert.ok(c.stored.values().next().value!.equals(data));
    },
  );
});

test('deleteAfterUpload: the file goes once verified, audited as delete with reason uploaded', async () => {
  const data = randomBytes(10_000);
  await withCollector(
    (url) => ({ type: 'http', url: `${url}/in/{path}` }),
    data,
    { deleteAfterUpload: true },
    async (c, agent, token) => {
      await until('the deletion', () => !existsSync(join(agent.baseDir, NAME)) || undefined, 30_000);
      assert.ok(c.stored.values().next().value!.equals(data));
      const audit = agent
        .output()
        .split('\n')
        .filter((l) => l.includes('"outbox.upload"') || l.includes('"reason":"uploaded"'))
        .map((l) => JSON.parse(l.slice(l.indexOf('{'))) as Record<string, unknown>);
      assert.equal(
        audit.map((a) => [a.event, a.path, a.bytes, a.key ?? a.reason]),
        [
          ['outbox.upload', NAME, 10_000, `${c.url}/in/recordings/night%202%20%C3%A9t%C3%A9.wav`],
          ['delete', NAME, 10_000, 'uploaded'],
        ],
      );
      assert.is((await outboxState(agent, token)).uploaded.files, 1);
    },
  );
});

test('a path of outbox.paths that is a link out of baseDir ships nothing; a file changed after its upload is not listed uploaded', async () => {
  const data = randomBytes(20_000);
  const c = await startCollector();
  const dir = makeDir();
  const outside = makeDir('da-outside-');
  writeSettled(dir, { [NAME]: data });
  writeFileSync(join(outside, 'secret.wav'), data); // the same bytes: the collector would take them
  utimesSync(join(outside, 'secret.wav'), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  symlinkSync(outside, join(dir, 'files', 'linked'));
  writeFileSync(join(dir, 'collector.token'), `${TOKEN}\n`);
  const target = { type: 'http', url: `${c.url}/in/{path}`, tokenFile: 'collector.token' };
  const config = { deviceId: 'dev-x', outbox: { target, paths: ['recordings', 'linked'] } };
  await prepareDir({ dir, config });
  const agent = await startAgent({ dir, config });
  try {
    const token = await agent.login();
    await stateWhen(agent, token, 'the upload', (s) => s.uploaded.files === 1, 30_000);
    await until('the warning', () => agent.output().includes('leads outside baseDir through a link'));
    assert.equal([...c.stored.keys()], ['/in/recordings/night%202%20%C3%A9t%C3%A9.wav']);
    const listed = async () => {
      const res = await fetch(`${agent.url}/api/v1/files/list?path=recordings`, { headers: { authorization: `Bearer ${token}` } });
      return ((await res.json()) as { entries: Array<{ uploaded: boolean }> }).entries[0]!.uploaded;
    };
    assert.is(await listed(), true);
    appendFileSync(join(agent.baseDir, NAME), 'more'); // the store holds the version before
    assert.is(await listed(), false);
  } finally {
    await agent.cleanup();
    c.server.close();
    rmSync(outside, { recursive: true, force: true });
  }
});

test("a success resets the wait: a file moved in after it ships at once, not when a failing file's wait ends", async () => {
  // The collector refuses one file with 503 at once and takes the others after 300 ms.
  const stored: string[] = [];
  let refused = 0;
  const server = createServer(async (req, res) => {
    await body(req);
    if (req.url!.includes('refused')) {
      refused++;
      return res.writeHead(503).end('{"error":"try later"}');
    }
    setTimeout(() => {
      stored.push(decodeURIComponent(req.url!));
      res.writeHead(201).end();
    }, 300);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = makeDir();
  writeSettled(dir, { 'recordings/a-refused.wav': randomBytes(1000) });
  writeFileSync(join(dir, 'collector.token'), `${TOKEN}\n`);
  const config = { deviceId: 'dev-x', outbox: { target: { type: 'http', url: `${url}/in/{path}`, tokenFile: 'collector.token' } } };
  await prepareDir({ dir, config });
  const agent = await startAgent({ dir, config });
  const token = await agent.login();
  const moveIn = async (name: string) => {
    writeFileSync(join(agent.baseDir, name), randomBytes(1000));
    const res = await fetch(`${agent.url}/api/v1/files/move`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ from: name, to: `recordings/${name}` }),
    });
    assert.is(res.status, 200);
  };
  try {
    // Three failures: the wait is now about 8 s; a file moved in waits with the rest.
    await until('three failures', () => refused >= 3, 30_000);
    await moveIn('b-good.wav');
    // The wait ends: the refused file fails again first (a longer wait), then b-good.wav is taken.
    await until('b-good.wav stored', () => stored.includes('/in/recordings/b-good.wav'), 30_000);
    const after = Date.now();
    await moveIn('c-good.wav');
    await until('c-good.wav stored', () => stored.includes('/in/recordings/c-good.wav'), 30_000);
    const took = Date.now() - after;
    assert.ok(took < 5000, `c-good.wav was stored ${took} ms after the success (the failing file's wait was about 16 s)`);
  } finally {
    await agent.cleanup();
    server.close();
  }
});

test.run();
