// A flood of requests without a valid credential writes a bounded amount (docs/behaviour.md,
// "Refusals in a flood"): identical denials from one address are one `denied` event in
// full, then one event of how many more came in the 10 s window (standard output and
// audit.file alike); the access log writes ten such lines in full, then one of the rest; a
// clean stop writes the audit trail's pending count.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { auditEvents, logLines } from './helpers/log.ts';
import { eventually } from './helpers/proc.ts';

const BAD = `dat_${'B'.repeat(43)}`;
const STATUS = '/api/v1/devicestatus/get';

const flood = suite<{ agent: TestAgent }>('audit and log in a flood of refused credentials');

flood.before(async (ctx) => {
  ctx.agent = await startAgent({ config: { audit: { file: 'audit.log' } } });
});
flood.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

/** `n` requests with a refused token, `parallel` at a time; each must be 401. */
async function refused(agent: TestAgent, n: number, parallel = 16): Promise<void> {
  let left = n;
  const worker = async () => {
    while (left > 0) {
      left--;
      const res = await fetch(agent.url + STATUS, { headers: { Authorization: `Bearer ${BAD}` } });
      await res.arrayBuffer();
      assert.is(res.status, 401);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

const fileEvents = (agent: TestAgent) =>
  readFileSync(join(agent.dir, 'audit.log'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const refusalLines = (agent: TestAgent) => logLines(agent.output()).filter((l) => l.text.startsWith(`GET ${STATUS} 401 `));
const summaryLines = (agent: TestAgent) =>
  logLines(agent.output()).filter((l) => /^401 from 127\.0\.0\.1: \d+ more in the last 10 s$/.test(l.text));

const FIRST = {
  event: 'denied',
  outcome: 'denied',
  user: null,
  credential: 'none',
  client: '127.0.0.1',
  path: STATUS,
  status: 401,
  reason: 'invalid token',
};
const withoutTime = ({ time: _time, ...rest }: Record<string, unknown>) => rest;

flood('2,000 refused tokens: one event and ten log lines in full a window, then one line each of how many more', async ({ agent }) => {
  const t0 = Date.now();
  await refused(agent, 2000);
  // Each 10 s window the flood spans (one, unless the machine is very slow) writes the
  // first event in full (the access log its first ten lines) and, when it ends, one line of the rest.
  const windows = Math.floor((Date.now() - t0) / 10_000) + 1;
  const { path: _path, ...rest } = FIRST;
  const summary = (more: number) => ({ ...rest, more, seconds: 10 });
  const counted = (events: Record<string, unknown>[]) => events.reduce((n, e) => n + ((e.more as number | undefined) ?? 1), 0);
  const full = fileEvents(agent)
    .map(withoutTime)
    .filter((e) => e.more === undefined); // a window that ended during the flood has told its count already
  assert.ok(full.length <= windows, `${full.length} events in full over ${windows} window(s)`);
  for (const e of full) assert.equal(e, FIRST);
  assert.ok(refusalLines(agent).length <= 10 * windows, `${refusalLines(agent).length} log lines in full`);
  assert.ok(
    statSync(join(agent.dir, 'audit.log')).size < 400 * windows,
    `${statSync(join(agent.dir, 'audit.log')).size} bytes for 2,000 denials`,
  );
  // The windows' ends: how many more, one line each, until all 2,000 are told.
  assert.ok(await eventually(() => counted(fileEvents(agent)) === 2000, 25_000), JSON.stringify(fileEvents(agent)));
  const events = fileEvents(agent).map(withoutTime);
  assert.ok(events.length <= 2 * windows, `${events.length} events for 2,000 denials`);
  for (const e of events) if (e.more !== undefined) assert.equal(e, summary(e.more as number));
  if (windows === 1) assert.equal(events, [FIRST, summary(1999)]);
  assert.equal(auditEvents(agent.output()).map(withoutTime), events);
  const told = () => refusalLines(agent).length + summaryLines(agent).reduce((n, l) => n + Number(/: (\d+) more/.exec(l.text)![1]), 0);
  assert.ok(await eventually(() => told() === 2000, 25_000), agent.output().slice(-2000));
  if (windows === 1)
    assert.equal(
      summaryLines(agent).map((l) => l.text),
      ['401 from 127.0.0.1: 1990 more in the last 10 s'],
    );
  for (const l of summaryLines(agent)) assert.is(l.priority, 6);
});

flood('after the window the next refusal is written in full again; a clean stop writes what is still counted', async ({ agent }) => {
  const before = fileEvents(agent).length;
  await refused(agent, 301);
  assert.equal(fileEvents(agent).slice(before).map(withoutTime), [FIRST]);
  const { code } = await agent.stop('SIGTERM');
  assert.is(code, 0);
  const { path: _path, ...rest } = FIRST;
  assert.equal(fileEvents(agent).slice(before).map(withoutTime), [FIRST, { ...rest, more: 300, seconds: 10 }]);
});

flood.run();
