// A flood of requests without a valid credential writes a bounded amount (docs/behaviour.md,
// "Refusals in a flood"): identical denials from one address are one `denied` event in
// full, then one line of how many more came in the 10 s window, in the audit trail (standard
// output and audit.file) and in the access log; a clean stop writes what is still counted.
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

flood('2,000 refused tokens: one event and one log line in full, then one line of the 1,999 more after 10 s', async ({ agent }) => {
  await refused(agent, 2000);
  // While the window runs: the first alone, in both places, and one access-log line.
  assert.equal(fileEvents(agent).map(withoutTime), [FIRST]);
  assert.equal(auditEvents(agent.output()).map(withoutTime), [FIRST]);
  assert.is(refusalLines(agent).length, 1);
  assert.ok(statSync(join(agent.dir, 'audit.log')).size < 400, `${statSync(join(agent.dir, 'audit.log')).size} bytes for 2,000 denials`);
  // The window's end: how many more, one line each.
  assert.ok(
    await eventually(() => fileEvents(agent).length === 2 && summaryLines(agent).length === 1, 20_000),
    agent.output().slice(-2000),
  );
  const { path: _path, ...rest } = FIRST;
  assert.equal(withoutTime(fileEvents(agent)[1]), { ...rest, more: 1999, seconds: 10 });
  assert.equal(auditEvents(agent.output()).map(withoutTime), fileEvents(agent).map(withoutTime));
  assert.is(summaryLines(agent)[0]!.text, '401 from 127.0.0.1: 1999 more in the last 10 s');
  assert.is(summaryLines(agent)[0]!.priority, 6);
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
