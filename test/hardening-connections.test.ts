// Idle and slow connections: legitimate requests still answered, slow ones get 408,
// and every descriptor comes back.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type Socket } from 'node:net';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { eventually, fdCount } from './helpers/proc.ts';
import { BOUNDARY, parseRaw } from './helpers/files.ts';
import { sendRaw } from './helpers/http.ts';

type Ctx = { agent: TestAgent; fds: number };
const conns = suite<Ctx>('idle and slow connections');
conns.before(async (ctx) => {
  ctx.agent = await startAgent();
  await fetch(`${ctx.agent.url}/api/v1/health`, { headers: { Connection: 'close' } });
  ctx.fds = fdCount(ctx.agent.child.pid!);
});
conns.after(async (ctx) => {
  await ctx.agent.cleanup();
});

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
}

conns('1,000 idle and 200 slowloris connections: requests still answered, the slow get 408', async ({ agent }) => {
  const idle = await Promise.all(Array.from({ length: 1000 }, () => open(agent.port)));
  const slow = await Promise.all(Array.from({ length: 200 }, () => open(agent.port)));
  const answers = slow.map(
    (s) =>
      new Promise<string>((resolve) => {
        let out = '';
        s.on('data', (d) => {
          out += d;
        });
        s.on('close', () => resolve(out));
        s.on('error', () => resolve(out));
      }),
  );
  for (const s of slow) s.write('GET /api/v1/health HTTP/1.1\r\n');
  const drip = setInterval(() => {
    for (const s of slow) if (!s.destroyed) s.write('X');
  }, 1000);
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

conns(
  'the listening socket holds a flood of 1,000 new connections: backlog 4096 (capped by net.core.somaxconn), not 511',
  async ({ agent }) => {
    // ss shows a listening socket's backlog as its Send-Q.
    const line = execFileSync('ss', ['-Hltn', `sport = :${agent.port}`], { encoding: 'utf8' }).trim();
    const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
    assert.is(Number(line.split(/\s+/)[2]), Math.min(4096, somaxconn), line);
  },
);

/** Bytes the agent holds unsent in the kernel on its side of the connection from `clientPort` (ss's notsent). */
function unsentTo(agentPort: number, clientPort: number): number {
  const out = execFileSync('ss', ['-Htni', 'state', 'established', `( sport = :${agentPort} and dport = :${clientPort} )`], {
    encoding: 'utf8',
  });
  return Number(/notsent:(\d+)/.exec(out)?.[1] ?? 0);
}

/** A connection that sends `head` and never reads; resolves once the agent's unsent bytes settle. */
async function neverRead(port: number, head: string): Promise<{ socket: Socket; unsent: number }> {
  const socket = await open(port);
  socket.pause();
  socket.write(head);
  let last = -1;
  let unsent = 0;
  await eventually(() => {
    last = unsent;
    unsent = unsentTo(port, socket.localPort!);
    return unsent > 0 && unsent === last;
  }, 5000);
  return { socket, unsent };
}

conns('a client that reads nothing holds at most 128 KiB of its answer in the kernel (slow-read floods)', async ({ agent }) => {
  // The Swagger UI bundle (~1.4 MB) needs no credential. Without the bound the kernel took
  // 1.6 MB of it at once (loopback sizes the send buffer from the congestion window), and
  // 1,000 such clients held 1.6 GB: 83 % of the agent's CPU went into copying, and a new
  // client waited up to 3.2 s (docs/performance.md, "Slow readers").
  const { socket, unsent } = await neverRead(agent.port, 'GET /docs/assets/swagger-ui-bundle.js HTTP/1.1\r\nHost: x\r\n\r\n');
  try {
    assert.ok(unsent > 0 && unsent <= 128 * 1024 + 64 * 1024, `unsent ${unsent}`);
  } finally {
    socket.destroy();
  }
});

conns("a download a credential asked for keeps the kernel's own room (sendfile would stop every 64 KiB)", async ({ agent }) => {
  const token = await agent.login();
  writeFileSync(join(agent.baseDir, 'eight.bin'), Buffer.alloc(8 * 1024 * 1024, 'd'));
  const { socket, unsent } = await neverRead(
    agent.port,
    `GET /api/download?filepath=eight.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`,
  );
  try {
    assert.ok(unsent > 512 * 1024, `unsent ${unsent}`);
  } finally {
    socket.destroy();
  }
});

conns('every descriptor comes back', async (ctx) => {
  const pid = ctx.agent.child.pid!;
  assert.ok(await eventually(() => fdCount(pid) <= ctx.fds, 5000), `descriptors: ${ctx.fds} before, ${fdCount(pid)} after`);
  assert.is((await fetch(`${ctx.agent.url}/api/v1/health`)).status, 200);
});

conns.run();

// A body refused while the client is still sending it: the answer must reach the client.
// Closing at once makes the kernel reset the connection and a client busy writing fails
// before it reads (21 of 30 here before the lingering close).
type Refused = { agent: TestAgent; token: string; fds: number };
const refused = suite<Refused>('refused bodies: the answer reaches a client still sending');
const MiB = 1024 * 1024;
refused.before(async (ctx) => {
  ctx.agent = await startAgent({ config: { maxFileBytes: MiB } });
  ctx.token = await ctx.agent.login();
  await fetch(`${ctx.agent.url}/api/v1/health`, { headers: { Connection: 'close' } });
  ctx.fds = fdCount(ctx.agent.child.pid!);
});
refused.after(async (ctx) => {
  await ctx.agent.cleanup();
});

const uploadHead = (token: string, length: number) =>
  `POST /api/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
  `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${length}\r\n\r\n`;
const partHead = Buffer.from(
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="saveToPath"\r\n\r\nx.bin\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="myFile"; filename="x.bin"\r\n\r\n`,
);

refused('16 MiB bodies refused mid-stream, before reading and by the JSON limit: every answer is read', async ({ agent, token }) => {
  const big = Buffer.concat([partHead, Buffer.alloc(16 * MiB, 'x')]);
  const cases = [
    // Declared past maxFileBytes: refused before a byte of the body is read.
    { head: uploadHead(token, big.length), body: big, status: 400, error: 'Failed to parse form: file too large' },
    // Chunked: refused mid-stream, once the file passes maxFileBytes.
    {
      head: uploadHead(token, 0).replace('Content-Length: 0', 'Transfer-Encoding: chunked'),
      body: Buffer.concat([Buffer.from(`${big.length.toString(16)}\r\n`), big]),
      status: 400,
      error: 'Failed to parse form: file too large',
    },
    // No token: refused (401) before a byte of the body is read.
    {
      head: uploadHead(token, big.length).replace(`Authorization: Bearer ${token}\r\n`, ''),
      body: big,
      status: 401,
      error: 'missing bearer token',
    },
    {
      head: `POST /api/v1/agentusers/loginusertoagent HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      body: Buffer.concat([Buffer.from(`${(16 * MiB).toString(16)}\r\n`), Buffer.alloc(16 * MiB, ' ')]),
      status: 413,
      error: 'request body too large, max 16384 bytes',
    },
  ];
  for (const c of cases) {
    for (let i = 0; i < 15; i++) {
      const res = parseRaw(await sendRaw(agent.port, c.head, c.body));
      assert.is(res.status, c.status, `round ${i}: ${c.head.split('\r\n')[0]} got no ${c.status}`);
      assert.is(res.body, JSON.stringify({ error: c.error }));
      assert.match(res.headers, /\r\nconnection: close/);
    }
  }
});

refused('a client that stops sending after a refusal and keeps its side open is cut after the lingering time', async (ctx) => {
  const pid = ctx.agent.child.pid!;
  const body = Buffer.concat([partHead, Buffer.alloc(2 * MiB, 'x')]);
  // allowHalfOpen: the client does not answer the agent's end with its own.
  const sock = connect({ port: ctx.agent.port, host: '127.0.0.1', allowHalfOpen: true });
  let probe: NodeJS.Timeout | undefined;
  try {
    let raw = '';
    sock.on('data', (d) => {
      raw += d.toString('latin1');
    });
    const ended = new Promise((resolve) => sock.once('end', resolve));
    const reset = new Promise<number>((resolve) => sock.once('error', () => resolve(Date.now())));
    sock.write(uploadHead(ctx.token, body.length + 10 * MiB));
    sock.write(body);
    await ended;
    const t = Date.now();
    assert.is(parseRaw(raw).status, 400);
    // While the agent lingers it reads and drops what comes; once it has closed, the
    // next byte is answered with a reset.
    probe = setInterval(() => sock.write('x'), 100);
    const cutAfter = (await Promise.race([reset, new Promise<number>((r) => setTimeout(() => r(0), 8000))])) - t;
    assert.ok(cutAfter >= 1000 && cutAfter < 6000, `cut ${cutAfter} ms after the answer (lingering: 2 s)`);
    assert.ok(await eventually(() => fdCount(pid) <= ctx.fds, 6000), `descriptors: ${ctx.fds} before, ${fdCount(pid)} after`);
  } finally {
    clearInterval(probe);
    sock.destroy();
  }
});

refused.run();
