// What the outbox tells (docs/outbox.md, "API", "Events and metrics"): GET /api/v1/outbox's
// fields while the store fails and once it is back, the `outbox` event of each outcome, the six
// metrics, the audit of an S3 upload; names never shipped when the agent itself completes them;
// a SIGHUP with a changed target, whose upload under way ships to the new store.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { upload } from './helpers/files.ts';
import { bearer } from './helpers/http.ts';
import { auditEvents } from './helpers/log.ts';
import { scrape } from './helpers/metrics.ts';
import { agentWith, md5, stateWhen } from './helpers/outbox.ts';
import { landed, startStore } from './helpers/s3.ts';
import { openEvents } from './helpers/sse.ts';
import { gate } from './helpers/proc.ts';

const test = suite('outbox: state, events, metrics, reload');
const NAME = 'recordings/x.wav';
const SERIES = [
  'device_agent_outbox_pending_files',
  'device_agent_outbox_pending_bytes',
  'device_agent_outbox_oldest_pending_age_seconds',
  'device_agent_outbox_uploaded_bytes_total',
  'device_agent_outbox_failures_total',
  'device_agent_outbox_dropped_files_total',
];

async function outboxSeries(agent: Parameters<typeof scrape>[0]): Promise<Record<string, number | undefined>> {
  const all = await scrape(agent);
  return Object.fromEntries(SERIES.map((s) => [s, all.get(s)]));
}

test('a failing store, then a retry: the state fields, an outbox event per outcome, the six metrics, the audit', async () => {
  const store = await startStore();
  store.failWith = 503;
  const data = randomBytes(4096);
  const agent = await agentWith(store, { [NAME]: data }, { maxBackoffSeconds: 600 });
  try {
    const token = await agent.login();
    const events = await openEvents(agent.port, bearer(token));
    try {
      const failing = await stateWhen(agent, token, 'a failed attempt', (s) => s.lastError !== null);
      const text = '503 SlowDown: Please reduce your request rate.';
      assert.is(failing.state, 'waiting');
      assert.equal(failing.pending, { files: 1, bytes: 4096 });
      // The oldest pending file's modification time (to the millisecond).
      const mtimeMs = statSync(join(agent.baseDir, NAME)).mtimeMs;
      assert.ok(Math.abs(Date.parse(failing.oldestPendingAt as string) - mtimeMs) < 1, `${failing.oldestPendingAt} vs ${mtimeMs}`);
      assert.equal(failing.failed, [], 'a target that fails sets no file aside');
      assert.equal(failing.uploaded, { files: 0, bytes: 0 });
      assert.is(failing.lastSuccessAt, null);
      assert.ok(Date.parse(failing.nextAttemptAt as string) > Date.parse((failing.lastError as { time: string }).time));
      const [failed] = await events.waitFor((e) => e.event === 'outbox', 1, 20_000);
      assert.equal(JSON.parse(failed!.data), { path: NAME, outcome: 'failed', bytes: 4096, error: text });
      const before = await outboxSeries(agent);
      assert.is(before.device_agent_outbox_pending_files, 1);
      assert.is(before.device_agent_outbox_pending_bytes, 4096);
      // The file was written a minute before the start: its age counts from its modification time.
      assert.ok(
        before.device_agent_outbox_oldest_pending_age_seconds! >= 60,
        String(before.device_agent_outbox_oldest_pending_age_seconds),
      );
      assert.is(before.device_agent_outbox_uploaded_bytes_total, 0);
      assert.ok(before.device_agent_outbox_failures_total! >= 1);
      assert.is(before.device_agent_outbox_dropped_files_total, 0);

      store.failWith = 0;
      const retry = await fetch(`${agent.url}/api/v1/outbox/retry`, { method: 'POST', headers: bearer(token) });
      assert.is(retry.status, 202);
      const done = await stateWhen(agent, token, 'the upload', (s) => s.uploaded.files === 1, 20_000);
      assert.is(done.state, 'idle');
      assert.equal(done.pending, { files: 0, bytes: 0 });
      assert.is(done.oldestPendingAt, null);
      assert.is(done.nextAttemptAt, null);
      assert.equal(done.uploaded, { files: 1, bytes: 4096 });
      assert.ok(Date.parse(done.lastSuccessAt as string) >= Date.parse((failing.lastError as { time: string }).time));
      const uploaded = (await events.waitFor((e) => e.event === 'outbox' && e.data.includes('"uploaded"'), 1, 20_000))[0]!;
      assert.equal(JSON.parse(uploaded.data), { path: NAME, outcome: 'uploaded', bytes: 4096 });
      const after = await outboxSeries(agent);
      assert.is(after.device_agent_outbox_pending_files, 0);
      assert.is(after.device_agent_outbox_pending_bytes, 0);
      assert.is(after.device_agent_outbox_oldest_pending_age_seconds, 0);
      assert.is(after.device_agent_outbox_uploaded_bytes_total, 4096);
      // A counter: every failed attempt told on the stream is in it (the first may precede the stream's opening).
      const failures = events.events.filter((e) => e.event === 'outbox' && e.data.includes('"failed"')).length;
      assert.ok(after.device_agent_outbox_failures_total! >= Math.max(failures, before.device_agent_outbox_failures_total!));
      assert.is(after.device_agent_outbox_dropped_files_total, 0);
      const audit = auditEvents(agent.output()).filter((a) => a.event === 'outbox.upload');
      assert.equal(
        audit.map((a) => [a.outcome, a.path, a.key, a.bytes]),
        [['ok', NAME, `dev-1/${NAME}`, 4096]],
      );
    } finally {
      events.close();
    }
  } finally {
    await agent.cleanup();
    await store.close();
  }
});

test('files the agent completes under a temporary or dot-name never ship; the others at once', async () => {
  const store = await startStore();
  const agent = await agentWith(store, {});
  try {
    const token = await agent.login();
    mkdirSync(join(agent.baseDir, 'recordings/.cache'), { recursive: true });
    for (const name of [
      'recordings/u.partial',
      'recordings/v.wav~',
      'recordings/w.part',
      'recordings/.cache/y.wav',
      'recordings/.z.wav',
      'recordings/ok.wav',
    ]) {
      const res = await upload(agent.url, token, [
        { name: 'saveToPath', value: name },
        { name: 'myFile', filename: 'f.wav', value: randomBytes(100) },
      ]);
      assert.is(res.status, 200, `${name}: ${await res.text()}`);
    }
    const state = await stateWhen(agent, token, 'the one upload', (s) => s.uploaded.files === 1 && s.state === 'idle', 20_000);
    assert.equal(state.pending, { files: 0, bytes: 0 });
    assert.equal([...(await landed(store)).keys()], ['dev-1/recordings/ok.wav']);
  } finally {
    await agent.cleanup();
    await store.close();
  }
});

test('SIGHUP with a changed target: the upload under way is abandoned and its file ships to the new store', async () => {
  const first = await startStore();
  const second = await startStore();
  const part = gate();
  first.hold = async (method) => {
    if (method !== 'PUT') return 'pass';
    part.arrive();
    await part.opened;
    return 'cut';
  };
  const data = randomBytes(300_000);
  const agent = await agentWith(first, { [NAME]: data });
  try {
    const token = await agent.login();
    await part.reached;
    assert.is((await stateWhen(agent, token, 'the upload under way', (s) => s.state === 'uploading')).pending.files, 1);
    const config = JSON.parse(readFileSync(agent.configFile, 'utf8'));
    config.outbox.target.endpoint = second.endpoint;
    writeFileSync(agent.configFile, JSON.stringify(config));
    agent.child.kill('SIGHUP');
    const state = await stateWhen(agent, token, 'the upload to the new store', (s) => s.uploaded.files === 1, 30_000);
    assert.equal(state.target, { type: 's3', endpoint: second.endpoint, bucket: 'field' });
    assert.equal(await landed(second), new Map([[`dev-1/${NAME}`, md5(data)]]));
    assert.is((await landed(first)).size, 0, 'nothing of it stored at the old target');
    assert.equal(second.refused, []);
  } finally {
    part.open();
    await agent.cleanup();
    await first.close();
    await second.close();
  }
});

test.run();
