// Idle and slow connections: legitimate requests still answered, slow ones get 408,
// and every descriptor comes back.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { eventually, fdCount } from './helpers/proc.ts';

type Ctx = { agent: TestAgent; fds: number };
const conns = suite<Ctx>('idle and slow connections');
conns.before(async (ctx) => {
  ctx.agent = await startAgent();
  await fetch(`${ctx.agent.url}/api/v1/health`, { headers: { Connection: 'close' } });
  ctx.fds = fdCount(ctx.agent.child.pid!);
});
conns.after(async (ctx) => { await ctx.agent.cleanup(); });

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
}

conns('1,000 idle and 200 slowloris connections: requests still answered, the slow get 408', async ({ agent }) => {
  const idle = await Promise.all(Array.from({ length: 1000 }, () => open(agent.port)));
  const slow = await Promise.all(Array.from({ length: 200 }, () => open(agent.port)));
  const answers = slow.map((s) => new Promise<string>((resolve) => {
    let out = '';
    s.on('data', (d) => { out += d; });
    s.on('close', () => resolve(out));
    s.on('error', () => resolve(out));
  }));
  for (const s of slow) s.write('GET /api/v1/health HTTP/1.1\r\n');
  const drip = setInterval(() => { for (const s of slow) if (!s.destroyed) s.write('X'); }, 1000);
  try {
    const t = Date.now();
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${agent.url}/api/v1/health`);
      assert.is(res.status, 200);
      await res.arrayBuffer();
    }
    assert.ok(Date.now() - t < 3000, 'health answered promptly under the idle load');
    const outs = await Promise.all(answers);
    const got408 = outs.filter((o) => o.startsWith('HTTP/1.1 408')).length;
    assert.is(got408, 200, `${got408} of 200 slow clients got 408`);
    assert.ok(Date.now() - t < 25_000, `slow clients held for ${Date.now() - t} ms`);
  } finally {
    clearInterval(drip);
    for (const s of [...idle, ...slow]) s.destroy();
  }
});

conns('every descriptor comes back', async (ctx) => {
  const pid = ctx.agent.child.pid!;
  assert.ok(await eventually(() => fdCount(pid) <= ctx.fds, 5000), `descriptors: ${ctx.fds} before, ${fdCount(pid)} after`);
  assert.is((await fetch(`${ctx.agent.url}/api/v1/health`)).status, 200);
});

conns.run();
