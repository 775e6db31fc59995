// Retention with the outbox on, across real recordings (docs/outbox.md, "Retention"): a deleted
// recording's audit says whether it had been uploaded, and each un-uploaded one retention
// deletes is counted in device_agent_outbox_dropped_files_total. sox records from a PulseAudio
// null sink's monitor (test/helpers/pulse.ts); the store is s3rver (test/helpers/s3.ts).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestAgent } from './helpers/agent.ts';
import { startRecording, waitForEnd } from './helpers/audio.ts';
import { auditEvents } from './helpers/log.ts';
import { scrape } from './helpers/metrics.ts';
import { agentWith, stateWhen } from './helpers/outbox.ts';
import { until } from './helpers/proc.ts';
import { startVirtualMic, type VirtualMic } from './helpers/pulse.ts';
import { startStore } from './helpers/s3.ts';

const test = suite<{ mic: VirtualMic }>('outbox: retention of uploaded and un-uploaded recordings');
test.before((ctx) => {
  ctx.mic = startVirtualMic();
});
test.after(async (ctx) => {
  await ctx.mic?.stop();
});

const OLD = ['recording-2026-01-01T00-00-00.000Z.wav', 'recording-2026-01-02T00-00-00.000Z.wav'];

async function record(agent: TestAgent, token: string): Promise<string> {
  const res = await startRecording(agent, token, { duration: 0.5, fileExtension: 'wav' });
  assert.is(res.status, 202, await res.text());
  const end = await waitForEnd(agent, token, 90_000);
  assert.is(end.state, 'finished', JSON.stringify(end));
  return end.file!.replace('recordings/', '');
}

const recordings = (agent: TestAgent) => readdirSync(join(agent.baseDir, 'recordings')).filter((n) => n.startsWith('recording-'));
const retentionDeletes = (agent: TestAgent) =>
  auditEvents(agent.output())
    .filter((a) => a.event === 'delete' && a.reason === 'retention')
    .map((a): [string, unknown] => [a.path, a.uploaded]);

test('the uploaded go with "uploaded": true, an un-uploaded one with "uploaded": false and counted as dropped', async ({ mic }) => {
  const store = await startStore();
  const old = Object.fromEntries(OLD.map((n) => [`recordings/${n}`, Buffer.from('old')]));
  const agent = await agentWith(store, old, {}, undefined, {
    env: mic.env,
    config: { audio: { device: 'pulse', retention: { maxCount: 2 } } },
  });
  try {
    const token = await agent.login();
    await stateWhen(agent, token, 'the two old recordings uploaded', (s) => s.uploaded.files === 2);
    // From now on nothing ships: the new recordings stay un-uploaded.
    store.failWith = 503;
    const made: string[] = [];
    for (let i = 1; i <= 3; i++) {
      made.push(await record(agent, token));
      await until(`retention after recording ${i}`, () => retentionDeletes(agent).length === i, 20_000);
    }
    assert.equal(retentionDeletes(agent), [
      [`recordings/${OLD[0]}`, true],
      [`recordings/${OLD[1]}`, true],
      [`recordings/${made[0]}`, false],
    ]);
    assert.equal(recordings(agent).sort(), made.slice(1).sort());
    assert.is((await scrape(agent)).get('device_agent_outbox_dropped_files_total'), 1);
  } finally {
    await agent.cleanup();
    await store.close();
  }
});

test('at start: the first retention pass runs with the outbox on, so an un-uploaded recording it deletes says so and is counted', async () => {
  const store = await startStore();
  store.failWith = 503; // nothing ever ships
  const three = [
    'recording-2026-01-01T00-00-00.000Z.wav',
    'recording-2026-01-02T00-00-00.000Z.wav',
    'recording-2026-01-03T00-00-00.000Z.wav',
  ];
  const files = Object.fromEntries(three.map((n) => [`recordings/${n}`, Buffer.from('old')]));
  const agent = await agentWith(store, files, {}, undefined, { config: { audio: { retention: { maxCount: 2 } } } });
  try {
    await until('the start-up retention pass', () => retentionDeletes(agent).length === 1, 20_000);
    assert.equal(retentionDeletes(agent), [[`recordings/${three[0]}`, false]]);
    assert.equal(recordings(agent).sort(), three.slice(1));
    assert.is((await scrape(agent)).get('device_agent_outbox_dropped_files_total'), 1);
  } finally {
    await agent.cleanup();
    await store.close();
  }
});

test.run();
