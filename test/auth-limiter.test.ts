// The failed-login limiter's memory is bounded whatever names a client tries (docs/behaviour.md,
// "Failed-login limiter"): 20,000 distinct names of 16 KiB from one address, against a real
// agent, leave its resident memory within 5 MB of where it was. A name that cannot be a user's
// is counted under one key per address, so after ten failures the rest are 429 without a hash.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { rssKb } from './helpers/proc.ts';

const NAME_CHARS = 16 * 1024 - 64; // the body (name, password, JSON) stays within the 16 KiB limit
const WORKERS = 8;

const limiter = suite<{ agent: TestAgent }>('failed-login limiter memory');

limiter.before(async (ctx) => {
  ctx.agent = await startAgent();
});
limiter.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

/** `count` logins with distinct long names, WORKERS at a time; the statuses seen, counted. */
async function flood(agent: TestAgent, from: number, count: number): Promise<Map<number, number>> {
  const seen = new Map<number, number>();
  let next = from;
  const end = from + count;
  const worker = async () => {
    while (next < end) {
      const i = next++;
      // Distinct in their first characters and their last, 16 KiB each.
      const name = `${i.toString(36)}-${'n'.repeat(NAME_CHARS)}-${i}`;
      const res = await fetch(`${agent.url}/api/v1/agentusers/loginusertoagent`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: name, password: 'wrong' }),
      });
      await res.arrayBuffer();
      seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  return seen;
}

limiter('20,000 distinct 16 KiB names from one address: 429 after ten failures, resident memory within +5 MB', async ({ agent }) => {
  // Warm: the limiter, the parser, and V8's heap at its working size for this load (it grows
  // in steps of ~16 MB over the first ~20,000 such requests, then stays). Batches run until
  // one adds less than 1 MB; a retained name (16 KiB each, 40 MB a batch) never settles, so
  // the warm-up cannot hide a leak: it ends at its cap and the measure below fails.
  const warm = await flood(agent, 0, 2500);
  const failures = warm.get(401) ?? 0;
  assert.ok(failures >= 10 && failures <= 10 + WORKERS, `failures counted before the limit: ${failures}`);
  let sent = 2500;
  let before = rssKb(agent.child.pid!);
  for (let batch = 0; batch < 10; batch++) {
    await flood(agent, sent, 2500);
    sent += 2500;
    const now = rssKb(agent.child.pid!);
    const grew = now - before;
    before = now;
    if (grew < 1024) break;
  }
  const seen = await flood(agent, sent, 20_000);
  const after = rssKb(agent.child.pid!);
  assert.equal([...seen.keys()], [429], 'every one throttled under the shared key');
  assert.is(seen.get(429), 20_000);
  console.log(`RSS ${Math.round(before / 1024)} MB -> ${Math.round(after / 1024)} MB after ${sent} + 20,000 names`);
  assert.ok(after - before <= 5 * 1024, `RSS grew by ${after - before} kB`);
  // The names were never written out: the log holds no long line.
  assert.ok(
    agent
      .output()
      .split('\n')
      .every((l) => l.length < 2048),
    'no long line in the output',
  );
});

limiter.run();
