// The outbox to a real S3 store (docs/outbox.md): s3rver behind a strict checking proxy
// (signature from the secret, real payload hash, Content-MD5, part sizes), read back by rclone.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bearer } from './helpers/http.ts';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { BUCKET, landed, SECRET, ACCESS_KEY, startStore, type Store } from './helpers/s3.ts';

const test = suite('outbox: S3');
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

async function until<T>(what: string, f: () => Promise<T | undefined> | T | undefined, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function outboxConfig(store: Store, dir: string, extra: Record<string, unknown> = {}) {
  writeFileSync(join(dir, 's3.secret'), `${SECRET}\n`, { mode: 0o600 });
  return {
    target: { type: 's3', endpoint: store.endpoint, region: 'us-east-1', bucket: BUCKET, prefix: 'dev-1/', accessKeyId: ACCESS_KEY, secretAccessKeyFile: 's3.secret' },
    maxBackoffSeconds: 4,
    ...extra,
  };
}

async function outboxState(agent: TestAgent, token: string) {
  const res = await fetch(`${agent.url}/api/v1/outbox`, { headers: bearer(token) });
  assert.is(res.status, 200);
  return (await res.json()) as Record<string, unknown> & { state: string; pending: { files: number }; uploaded: { files: number } };
}

/** An agent whose files exist before it starts (found by the start's scan: older than 10 s). */
async function agentWith(store: Store, files: Record<string, Buffer>, extra: Record<string, unknown> = {}): Promise<TestAgent> {
  const { makeDir } = await import('./helpers/agent.ts');
  const dir = makeDir();
  const old = new Date(Date.now() - 60_000);
  for (const [rel, data] of Object.entries(files)) {
    const abs = join(dir, 'files', rel);
    mkdirSync(join(abs, '..'), { recursive: true });
    writeFileSync(abs, data);
    utimesSync(abs, old, old);
  }
  const config = { outbox: outboxConfig(store, dir, extra) };
  const { prepareDir } = await import('./helpers/agent.ts');
  await prepareDir({ dir, config });
  return startAgent({ dir, config });
}

test('ships complete files found at start, byte-identical, never dot-names or temporary names', async () => {
  const store = await startStore();
  const files: Record<string, Buffer> = {
    'recordings/a.flac': randomBytes(300_000),
    'recordings/night 2 été.wav': randomBytes(70_000),
    'recordings/sub/b.wav': randomBytes(1000),
    'recordings/empty.wav': Buffer.alloc(0),
    'recordings/.hidden': randomBytes(10),
    'recordings/.dir/c.wav': randomBytes(10),
    'recordings/d.wav.tmp': randomBytes(10),
    'recordings/e.part': randomBytes(10),
    'recordings/f.partial': randomBytes(10),
    'recordings/g.wav~': randomBytes(10),
    'elsewhere/h.wav': randomBytes(10),
  };
  const agent = await agentWith(store, files);
  try {
    const token = await agent.login();
    const state = await until('four uploads', async () => {
      const s = await outboxState(agent, token);
      return s.uploaded.files === 4 && s.state === 'idle' ? s : undefined;
    });
    assert.equal(state.pending, { files: 0, bytes: 0 });
    assert.equal(state.target, { type: 's3', endpoint: store.endpoint, bucket: BUCKET });
    assert.is(state.lastError, null);
    const got = await landed(store);
    const want = new Map(['a.flac', 'night 2 été.wav', 'sub/b.wav', 'empty.wav'].map((n) => [`dev-1/recordings/${n}`, md5(files[`recordings/${n}`]!)]));
    assert.equal(new Map([...got].sort()), new Map([...want].sort()));
    assert.equal(store.refused, []);
  } finally {
    await agent.cleanup();
    await store.close();
  }
});

test.run();
