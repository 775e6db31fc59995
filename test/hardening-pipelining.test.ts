// Pipelined requests wait for their turn: one connection that sends hundreds of downloads
// in one write and never reads holds neither files nor buffers for them, takes no
// event-stream slot, and stops being read; other clients are answered; closing it gives
// everything back. Against a real agent (sources, then the built executable).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { bearer } from './helpers/http.ts';

type Ctx = { agent: TestAgent; token: string };
const test = suite<Ctx>('pipelining');

test.before(async (ctx) => {
  ctx.agent = await startAgent();
  ctx.token = await ctx.agent.login();
  writeFileSync(join(ctx.agent.baseDir, 'big.bin'), randomBytes(20e6));
  writeFileSync(join(ctx.agent.baseDir, 'small.txt'), 'hello\n');
});
test.after(async (ctx) => {
  await ctx.agent.cleanup();
});

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
const fdCount = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function open(port: number, data: string): Socket {
  const s = connect(port, '127.0.0.1');
  s.on('error', () => {});
  s.write(data);
  return s;
}

test('pipelined requests on one connection are all answered, in order', async ({ agent, token }) => {
  const req = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`;
  const paths = Array.from({ length: 12 }, (_, i) => (i % 2 ? '/api/v1/health' : '/api/download?filepath=small.txt'));
  const s = open(agent.port, paths.map(req).join('') + 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  let text = '';
  s.setEncoding('latin1');
  s.on('data', (d) => {
    text += d;
  });
  await new Promise((r) => s.once('close', r));
  const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);
  assert.equal(statuses, Array(13).fill('200'));
  const bodies = [...text.matchAll(/\r\n\r\n(hello\n|\{"status")/g)].map((m) => m[1]);
  assert.equal(bodies, [...paths.map((p) => (p.startsWith('/api/download') ? 'hello\n' : '{"status"')), '{"status"']);
});

test('5 connections x 500 pipelined 20 MB downloads, never read: bounded, others answered, all given back', async ({ agent, token }) => {
  const pid = agent.child.pid!;
  await sleep(500);
  const idle = { rss: rssKb(pid), fds: fdCount(pid) };
  const one = `GET /api/download?filepath=big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`;
  const socks = Array.from({ length: 5 }, () => {
    const s = open(agent.port, one.repeat(500));
    s.pause(); // never read
    return s;
  });
  let peak = { rss: 0, fds: 0 };
  const sample = () => {
    peak = { rss: Math.max(peak.rss, rssKb(pid)), fds: Math.max(peak.fds, fdCount(pid)) };
  };
  for (let i = 0; i < 20; i++) {
    sample();
    await sleep(100);
  }
  // Other clients are answered meanwhile.
  assert.is((await fetch(`${agent.url}/api/v1/health`)).status, 200);
  const status = await fetch(`${agent.url}/api/v1/devicestatus/get`, { headers: bearer(token) });
  assert.is(status.status, 200);
  const dl = await fetch(`${agent.url}/api/download?filepath=small.txt`, { headers: bearer(token) });
  assert.is(await dl.text(), 'hello\n');
  for (let i = 0; i < 10; i++) {
    sample();
    await sleep(100);
  }
  // Before requests waited for their turn: +5 GB and +2,500 descriptors (one file each).
  assert.ok(peak.fds - idle.fds <= 64, `descriptors +${peak.fds - idle.fds}`);
  assert.ok(peak.rss - idle.rss <= 64 * 1024, `RSS +${((peak.rss - idle.rss) / 1024).toFixed(1)} MB`);
  for (const s of socks) s.destroy();
  // Closed: every descriptor back (the files of the 5 downloads under way, their sockets).
  for (let i = 0; i < 100 && fdCount(pid) > idle.fds; i++) await sleep(100);
  assert.ok(fdCount(pid) <= idle.fds, `descriptors ${fdCount(pid)} after, ${idle.fds} before`);
});

test('an event-stream slot is taken only by a stream being answered', async ({ agent, token }) => {
  // 40 streams pipelined on one connection: one is answered, 39 wait (the cap is 32).
  const one = `GET /api/v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`;
  const s = open(agent.port, one.repeat(40));
  await sleep(500);
  const res = await fetch(`${agent.url}/api/v1/events`, { headers: bearer(token) });
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'text/event-stream');
  await res.body?.cancel();
  s.destroy();
});

test.run();
