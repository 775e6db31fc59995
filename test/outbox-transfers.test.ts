// The outbox ships up to four files at once (docs/outbox.md, "What ships, and when"), each
// file whole or in parts one after the other, and the target keeps one wait: transfers that
// fail together do not double it more than once. The store is s3rver behind the strict check
// (test/helpers/s3.ts), whose hold() sees each request before it is forwarded.
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { scrape } from './helpers/metrics.ts';
import { agentWith, md5, outboxState, stateWhen } from './helpers/outbox.ts';
import { gate, until } from './helpers/proc.ts';
import { landed, startStore } from './helpers/s3.ts';

const test = suite('outbox: transfers at once');

test('six files: four PUTs under way together, never a fifth; every file lands', async () => {
  const store = await startStore();
  const four = gate();
  let under = 0;
  let most = 0;
  store.hold = async (method) => {
    if (method !== 'PUT') return 'pass';
    under++;
    most = Math.max(most, under);
    if (under === 4) four.open();
    // Held until four are under way together (or 5 s: a sequential outbox never gets there).
    await Promise.race([four.opened, new Promise((r) => setTimeout(r, 5000))]);
    under--;
    return 'pass';
  };
  const files = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`recordings/night-${i}.wav`, randomBytes(8192 + i)]));
  const agent = await agentWith(store, files);
  try {
    const token = await agent.login();
    await stateWhen(agent, token, 'the six uploaded', (s) => s.uploaded.files === 6);
    assert.is(most, 4, 'at most four at once, and four');
    assert.equal(await landed(store), new Map(Object.entries(files).map(([rel, data]) => [`dev-1/${rel}`, md5(data)])));
    assert.equal(store.refused, []);
  } finally {
    await agent.cleanup();
    await store.close();
  }
});

test('three files failing together: one wait of 2 s ±20 %, not one doubled per transfer; each failure counted', async () => {
  const store = await startStore();
  store.failWith = 503;
  const files = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`recordings/dusk-${i}.wav`, randomBytes(4096)]));
  const agent = await agentWith(store, files, { maxBackoffSeconds: 600 });
  try {
    const token = await agent.login();
    await until('three failed transfers', async () => (await scrape(agent)).get('device_agent_outbox_failures_total') === 3);
    const state = await outboxState(agent, token);
    assert.is(state.state, 'waiting');
    const first = store.seen.filter((s) => s.method === 'PUT').length;
    assert.is(first, 3, 'the three went together');
    const wait = Date.parse(state.nextAttemptAt as string) - Date.parse((state.lastError as { time: string }).time);
    assert.ok(wait <= 2500, `the wait ${wait} ms is the first one (2 s ±20 %), not doubled by each transfer`);
  } finally {
    await agent.cleanup();
    await store.close();
  }
});

test('maxBytesPerSecond bounds the transfers together: 3 × 96 KiB at 64 KiB/s take at least 3.5 s', async () => {
  const store = await startStore();
  const files = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`recordings/dawn-${i}.wav`, randomBytes(96 * 1024)]));
  const t = performance.now();
  const agent = await agentWith(store, files, { maxBytesPerSecond: 65536 });
  try {
    const token = await agent.login();
    await stateWhen(agent, token, 'the three uploaded', (s) => s.uploaded.files === 3, 60_000);
    // A second's allowance may be saved up before the start; the other 224 KiB take 3.5 s,
    // shared by the three (each at the rate alone: about 1 s).
    const took = performance.now() - t;
    assert.ok(took >= 3500, `the three arrived in ${took.toFixed(0)} ms`);
    assert.equal(await landed(store), new Map(Object.entries(files).map(([rel, data]) => [`dev-1/${rel}`, md5(data)])));
  } finally {
    await agent.cleanup();
    await store.close();
  }
});

test.run();
