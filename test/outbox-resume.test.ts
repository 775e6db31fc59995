// The outbox's multipart uploads (docs/outbox.md, "Verified", "Nothing lost"): 8 MiB parts from
// 16 MiB on, continued after a kill -9 from the last acknowledged part, byte-identical in the store.
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { agentWith, md5, stateWhen } from './helpers/outbox.ts';
import { SECRET, type Store, landed, startStore } from './helpers/s3.ts';
import { gate, until } from './helpers/proc.ts';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const test = suite('outbox: multipart and kill -9');
const MiB = 1024 * 1024;

/** An agent shipping `files`, killed (-9) while the store holds part 2 of its upload; the store then answers again. */
async function killedInPart2(store: Store, files: Record<string, Buffer>) {
  const part = gate();
  store.hold = async (method, url) => {
    if (method !== 'PUT' || !url.includes('partNumber=2')) return 'pass';
    part.arrive();
    await part.opened;
    return 'cut';
  };
  const agent = await agentWith(store, files);
  try {
    await part.reached;
    await agent.stop('SIGKILL');
  } catch (err) {
    await agent.cleanup();
    throw err;
  } finally {
    part.open();
    store.hold = undefined;
  }
  return agent;
}

test('a kill -9 during part 2 of 3: the restart continues from part 2, one upload, one object', async () => {
  const store = await startStore();
  const data = randomBytes(20 * MiB);
  const first = await killedInPart2(store, { 'recordings/long night.flac': data });
  let second: Awaited<ReturnType<typeof agentWith>> | undefined;
  try {
    second = await agentWith(store, {}, {}, SECRET, { dir: first.dir });
    const token = await second.login();
    await stateWhen(second, token, 'the upload completed', (s) => s.uploaded.files === 1, 120_000);
    const parts = (n: number) =>
      store.seen.filter((s) => s.method === 'PUT' && s.url.includes(`partNumber=${n}&`) && s.status === 200).length;
    assert.is(store.seen.filter((s) => s.method === 'POST' && s.url.endsWith('?uploads')).length, 1, 'one multipart upload started');
    assert.is(parts(1), 1, 'part 1 acknowledged once, never sent again');
    assert.is(parts(2), 1);
    assert.is(parts(3), 1);
    assert.equal(
      store.seen.filter((s) => s.method === 'PUT' && s.status === 200).map((s) => s.bodyBytes),
      [8 * MiB, 8 * MiB, 4 * MiB],
    );
    assert.equal(await landed(store), new Map([['dev-1/recordings/long night.flac', md5(data)]]));
    assert.equal(store.refused, []);
  } finally {
    await (second ?? first).cleanup();
    await store.close();
  }
});

test('a file gone while its multipart upload waits (kill -9, then deleted): the next start aborts the upload and drops it', async () => {
  const store = await startStore();
  const first = await killedInPart2(store, { 'recordings/gone.flac': randomBytes(20 * MiB) });
  let second: Awaited<ReturnType<typeof agentWith>> | undefined;
  try {
    const journal = join(first.dir, 'outbox.json');
    const multipart = () => Object.keys((JSON.parse(readFileSync(journal, 'utf8')) as { multipart: object }).multipart);
    assert.equal(multipart(), ['recordings/gone.flac'], 'the journal holds the upload under way');
    rmSync(join(first.baseDir, 'recordings', 'gone.flac'));
    second = await agentWith(store, {}, {}, SECRET, { dir: first.dir });
    const abort = await until('the upload aborted', () => store.seen.find((s) => s.method === 'DELETE' && s.url.includes('uploadId=')));
    // Signed and checked by the proxy (refused stays empty); s3rver implements no AbortMultipartUpload
    // and answers 405, which the agent takes as any refusal of an abort: the entry goes regardless.
    assert.is(abort.status, 405);
    await until('the journal without it', () => multipart().length === 0);
    assert.is(store.seen.filter((s) => s.method === 'POST' && s.url.endsWith('?uploads')).length, 1, 'no new upload');
    assert.equal(await landed(store), new Map(), 'nothing stored');
    assert.equal(store.refused, []);
  } finally {
    await (second ?? first).cleanup();
    await store.close();
  }
});

test('NoSuchUpload: the store forgot the upload; a new one starts and the file lands whole', async () => {
  const store = await startStore();
  let forgotten = false;
  store.hold = async (method, url) => {
    if (method !== 'PUT' || !url.includes('partNumber=2') || forgotten) return 'pass';
    forgotten = true;
    return { status: 404, code: 'NoSuchUpload', message: 'The specified upload does not exist.' };
  };
  const data = randomBytes(17 * MiB);
  const agent = await agentWith(store, { 'recordings/b.flac': data });
  try {
    const token = await agent.login();
    const state = await stateWhen(agent, token, 'the upload', (s) => s.uploaded.files === 1, 120_000);
    assert.is(state.lastError, null, 'a NoSuchUpload is handled within the attempt');
    assert.is(store.seen.filter((s) => s.method === 'POST' && s.url.endsWith('?uploads')).length, 2, 'a second upload started');
    assert.equal(await landed(store), new Map([['dev-1/recordings/b.flac', md5(data)]]));
    assert.equal(store.refused, []);
  } finally {
    await agent.cleanup();
    await store.close();
  }
});

test.run();
