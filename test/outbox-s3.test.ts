// The outbox to a real S3 store (docs/outbox.md): s3rver behind a strict checking proxy
// (signature from the secret, real payload hash, Content-MD5, part sizes), read back by rclone.
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bearer, jsonPost } from './helpers/http.ts';
import { upload } from './helpers/files.ts';
import { agentWith, md5, outboxState, stateWhen } from './helpers/outbox.ts';
import { makeDir } from './helpers/agent.ts';
import { BUCKET, landed, startStore } from './helpers/s3.ts';

const test = suite('outbox: S3');

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
    const state = await stateWhen(agent, token, 'four uploads', (s) => s.uploaded.files === 4 && s.state === 'idle');
    assert.equal(state.pending, { files: 0, bytes: 0 });
    assert.equal(state.target, { type: 's3', endpoint: store.endpoint, bucket: BUCKET });
    assert.is(state.lastError, null);
    const got = await landed(store);
    const want = new Map(
      ['a.flac', 'night 2 été.wav', 'sub/b.wav', 'empty.wav'].map((n) => [`dev-1/recordings/${n}`, md5(files[`recordings/${n}`]!)]),
    );
    assert.equal(new Map([...got].sort()), new Map([...want].sort()));
    assert.equal(store.refused, []);
    // files/list marks them: uploaded under outbox.paths, null elsewhere.
    const list = async (path: string) =>
      (
        (await (await fetch(`${agent.url}/api/v1/files/list?path=${encodeURIComponent(path)}`, { headers: bearer(token) })).json()) as {
          entries: { name: string; uploaded: boolean | null }[];
        }
      ).entries.map((e): [string, boolean | null] => [e.name, e.uploaded]);
    assert.equal(await list('elsewhere'), [['h.wav', null]]);
    const marks = new Map(await list('recordings'));
    assert.is(marks.get('a.flac'), true);
    assert.is(marks.get('.hidden'), false);
    assert.is(marks.get('sub'), null);
  } finally {
    await agent.cleanup();
    await store.close();
  }
});

test("files other programs write ship once unchanged for 10 s of the agent's time: one growing, one dated ahead of the clock", async () => {
  const store = await startStore();
  const dir = makeDir();
  const rec = join(dir, 'files/recordings');
  mkdirSync(rec, { recursive: true });
  // Written while the clock was a day ahead, before it was stepped back (a board's bad RTC, then NTP).
  const ahead = randomBytes(20_000);
  writeFileSync(join(rec, 'ahead.wav'), ahead);
  const tomorrow = new Date(Date.now() + 86_400_000);
  utimesSync(join(rec, 'ahead.wav'), tomorrow, tomorrow);
  // Another program still writing: a chunk a second for 12 s after the start.
  const chunks = [randomBytes(4096)];
  writeFileSync(join(rec, 'growing.wav'), chunks[0]!);
  const agent = await agentWith(store, {}, {}, undefined, { dir });
  try {
    const token = await agent.login();
    for (let i = 0; i < 12; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      const c = randomBytes(4096);
      chunks.push(c);
      appendFileSync(join(rec, 'growing.wav'), c);
      assert.ok(!(await landed(store)).has('dev-1/recordings/growing.wav'), `growing.wav shipped while written (${i + 1} s)`);
    }
    const lastWrite = Date.now();
    const state = await stateWhen(agent, token, 'both shipped', (s) => s.uploaded.files === 2, 30_000);
    assert.ok(Date.now() - lastWrite >= 9_000, 'growing.wav waited 10 s after its last change');
    assert.is(state.lastError, null);
    const got = await landed(store);
    assert.is(got.get('dev-1/recordings/ahead.wav'), md5(ahead));
    assert.is(got.get('dev-1/recordings/growing.wav'), md5(Buffer.concat(chunks)), 'the whole file, every chunk');
    assert.equal((await outboxState(agent, token)).pending, { files: 0, bytes: 0 });
  } finally {
    await agent.cleanup();
    await store.close();
  }
});

test('an upload and a move in ship at once; a file changed after its upload ships again to the same key', async () => {
  const store = await startStore();
  const agent = await agentWith(store, {});
  try {
    const token = await agent.login();
    const first = randomBytes(5000);
    const res = await upload(agent.url, token, [
      { name: 'saveToPath', value: 'recordings/up.wav' },
      { name: 'myFile', filename: 'up.wav', value: first },
    ]);
    assert.is(res.status, 200);
    await stateWhen(agent, token, 'the upload shipped', (s) => s.uploaded.files === 1, 20_000);
    // A new version moved over it (a dot-name is never shipped, so the staging file stays local).
    const second = randomBytes(7000);
    writeFileSync(join(agent.baseDir, 'recordings/.staging'), second);
    const moved = await jsonPost(
      `${agent.url}/api/v1/files/move`,
      { from: 'recordings/.staging', to: 'recordings/up.wav', overwrite: true },
      bearer(token),
    );
    assert.is(moved.status, 200);
    const state = await stateWhen(agent, token, 'the new version shipped', (s) => s.uploaded.files === 2, 20_000);
    assert.equal(state.uploaded, { files: 2, bytes: 12000 });
    assert.equal(await landed(store), new Map([['dev-1/recordings/up.wav', md5(second)]]));
    assert.equal(store.refused, []);
  } finally {
    await agent.cleanup();
    await store.close();
  }
});

test('a store answering 503: one backoff, the store text as lastError, waiting; retry ships once it is back', async () => {
  const store = await startStore();
  store.failWith = 503;
  const data = randomBytes(4096);
  const agent = await agentWith(store, { 'recordings/x.wav': data }, { maxBackoffSeconds: 600 });
  try {
    const token = await agent.login();
    const state = await stateWhen(agent, token, 'a failed attempt', (s) => s.lastError !== null);
    assert.is(state.state, 'waiting');
    assert.equal(state.pending, { files: 1, bytes: 4096 });
    assert.is((state.lastError as { text: string }).text, '503 SlowDown: Please reduce your request rate.');
    const next = Date.parse(state.nextAttemptAt as string) - Date.parse((state.lastError as { time: string }).time);
    assert.ok(next >= 1500 && next <= 2500, `first wait ${next} ms is 2 s ±20 %`);
    // The API answers at once while the target fails.
    const status = await fetch(`${agent.url}/api/v1/devicestatus/get`, { headers: bearer(token) });
    assert.is(status.status, 200);
    const second = await stateWhen(
      agent,
      token,
      'the second failure',
      (s) => (s.lastError as { time: string }).time !== (state.lastError as { time: string }).time,
      20_000,
    );
    const wait = Date.parse(second.nextAttemptAt as string) - Date.parse((second.lastError as { time: string }).time);
    assert.ok(wait >= 3000 && wait <= 5000, `second wait ${wait} ms is 4 s ±20 %`);
    store.failWith = 0;
    const retry = await fetch(`${agent.url}/api/v1/outbox/retry`, { method: 'POST', headers: bearer(token) });
    assert.is(retry.status, 202);
    const done = await stateWhen(agent, token, 'shipped after retry', (s) => s.uploaded.files === 1, 20_000);
    assert.is(done.state, 'idle');
    assert.is(done.nextAttemptAt, null);
    assert.equal(await landed(store), new Map([['dev-1/recordings/x.wav', md5(data)]]));
  } finally {
    await agent.cleanup();
    await store.close();
  }
});

test('wrong credentials: the store text kept as lastError, nothing stored', async () => {
  const store = await startStore();
  const agent = await agentWith(store, { 'recordings/x.wav': randomBytes(100) }, {}, 'not-the-secret');
  try {
    const token = await agent.login();
    const state = await stateWhen(agent, token, 'a refusal', (s) => s.lastError !== null);
    assert.is((state.lastError as { text: string }).text, '403 SignatureDoesNotMatch: signature does not match');
    assert.is(state.uploaded.files, 0);
    assert.is((await landed(store)).size, 0);
    assert.not.ok(agent.output().includes('not-the-secret'));
  } finally {
    await agent.cleanup();
    await store.close();
  }
});

test.run();
