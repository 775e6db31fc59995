// Retention and a clock that jumps (docs/behaviour.md, "Recordings and the disk"): real
// recordings (ALSA "null", silence) by real agents whose wall clock libfaketime sets. A
// board without a real-time clock records at 1970 until NTP answers; those recordings are
// neither deleted at their end nor at the first start with the real clock, and the order
// in which recordings were made survives restarts.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordingRecord } from '../src/audio/record.ts';
import { makeDir, startAgent, type TestAgent } from './helpers/agent.ts';
import { startRecording, waitForEnd } from './helpers/audio.ts';
import { fakeClock } from './helpers/faketime.ts';
import { bearer } from './helpers/http.ts';

const RETENTION = { maxCount: 2, maxBytes: null, maxAgeDays: 1 };

async function record(agent: TestAgent, token: string): Promise<RecordingRecord> {
  const res = await startRecording(agent, token, { duration: 0.5, fileExtension: 'wav' });
  assert.is(res.status, 202, await res.text());
  const end = await waitForEnd(agent, token, 60_000);
  assert.is(end.state, 'finished', JSON.stringify(end));
  return end;
}

const names = (agent: TestAgent) =>
  readdirSync(join(agent.baseDir, 'recordings'))
    .filter((n) => n.startsWith('recording-'))
    .sort();
const base = (r: RecordingRecord) => r.file!.slice('recordings/'.length);

/** Polls until `check` holds (retention runs in the background after a start or an end). */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within 20 s: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const jump = suite('retention across a clock jump');

jump('a recording made at 1970 is kept at its end and at the next start; the order of making decides', async () => {
  const dir = makeDir();
  const clock = fakeClock('+0');
  const start = () => startAgent({ dir, env: clock.env, config: { audio: { device: 'null', retention: RETENTION } } });
  let agent: TestAgent | undefined;
  try {
    agent = await start();
    let token = await agent.login();
    const r1 = await record(agent, token);
    const r2 = await record(agent, token);
    assert.equal(names(agent), [base(r1), base(r2)].sort());
    await agent.stop();

    // A boot without a real-time clock: the wall clock says 1970.
    clock.set('@1970-01-02 00:00:00');
    agent = await start();
    token = await agent.login();
    const r3 = await record(agent, token);
    assert.match(base(r3), /^recording-1970-01-02T/);
    // No deletion by count or age while the clock is implausible: all three stay, the
    // new one downloadable although its name is the "oldest".
    const got = await fetch(`${agent.url}/api/download?filepath=${encodeURIComponent(r3.file!)}`, { headers: bearer(token) });
    assert.is(got.status, 200);
    await got.arrayBuffer();
    assert.equal(names(agent), [base(r1), base(r2), base(r3)].sort());
    await agent.stop();

    // NTP answered: the first start with the real clock applies the count by the order of
    // making (r1 goes) and ages r3 from now, not from 1970 (it stays under maxAgeDays: 1).
    clock.set('+0');
    agent = await start();
    const a = agent;
    await until(() => !existsSync(join(a.baseDir, r1.file!)), 'r1 deleted at start');
    assert.equal(names(agent), [base(r2), base(r3)].sort());
    token = await agent.login();
    const r4 = await record(agent, token);
    await until(() => !existsSync(join(a.baseDir, r2.file!)), 'r2 deleted after r4');
    assert.equal(names(agent), [base(r3), base(r4)].sort());
  } finally {
    await agent?.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    clock.cleanup();
  }
});

jump.run();
