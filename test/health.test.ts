import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { PKG_VERSION } from './helpers/version.ts';

const health = suite<{ agent: TestAgent }>('health');

health.before(async (ctx) => {
  ctx.agent = await startAgent();
});
health.after(async (ctx) => {
  await ctx.agent.cleanup();
});

health('answers 200 with status ok and the version, without a token', async ({ agent }) => {
  const res = await fetch(`${agent.url}/api/v1/health`);
  assert.is(res.status, 200);
  assert.equal(await res.json(), { status: 'ok', version: PKG_VERSION });
});

health.run();
