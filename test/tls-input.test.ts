// The TLS side against bad clients, and redirect mode: a half-sent ClientHello blocks
// nobody, a byte stream that is not TLS and an oversized record are closed without a
// trace in the log, silence is closed after the header timeout; plainHttp "redirect"
// answers 308 before reading a body or checking a token.
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../src/config/files.ts';
import { startAgent as startInProcess } from '../src/serve.ts';
import { tlsMetrics } from '../src/tls/metrics.ts';
import { prepareDir, startAgent, type TestAgent } from './helpers/agent.ts';
import { silentLog } from './helpers/log.ts';
import { bearer, rawRequest } from './helpers/http.ts';
import { eventually, fdCount } from './helpers/proc.ts';
import { httpsGet } from './helpers/tls.ts';

const TLS = { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' };

/** Opens a connection, writes `bytes`, and resolves with when (ms) and whether the server closed it. */
function hold(port: number, bytes: Buffer): { socket: Socket; closed: Promise<number> } {
  const t0 = Date.now();
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.on('data', () => {});
  socket.write(bytes);
  return { socket, closed: new Promise((resolve) => socket.on('close', () => resolve(Date.now() - t0))) };
}

const bad = suite<{ agent: TestAgent; cert: Buffer }>('tls bad input');
bad.before(async (ctx) => {
  ctx.agent = await startAgent({ config: { tls: TLS } });
  ctx.cert = readFileSync(join(ctx.agent.dir, 'tls/cert.pem'));
});
bad.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

bad(
  'a half-sent ClientHello blocks nobody; it and a silent connection are closed after the 15 s header timeout',
  async ({ agent, cert }) => {
    const fds = fdCount(agent.child.pid!);
    // A handshake record announcing 512 bytes, of which 5 come.
    const half = hold(agent.port, Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03]));
    const silent = hold(agent.port, Buffer.alloc(0));
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    for (let i = 0; i < 10; i++) {
      assert.is((await httpsGet(`https://localhost:${agent.port}/api/v1/health`, cert)).status, 200);
      assert.is((await fetch(`${agent.url}/api/v1/health`)).status, 200);
    }
    assert.ok(Date.now() - t0 < 5000, `20 requests took ${Date.now() - t0} ms beside the stalled ones`);
    const [halfMs, silentMs] = await Promise.all([half.closed, silent.closed]);
    assert.ok(halfMs >= 14_000 && halfMs < 17_500, `stalled handshake closed after ${halfMs} ms`);
    assert.ok(silentMs >= 14_000 && silentMs < 17_500, `silent connection closed after ${silentMs} ms`);
    assert.ok(await eventually(() => fdCount(agent.child.pid!) <= fds), 'no descriptor left behind');
  },
);

bad('a byte stream that is not TLS after 0x16, and an oversized record, are closed at once; no stack trace', async ({ agent, cert }) => {
  const notTls = hold(agent.port, Buffer.concat([Buffer.from([0x16]), Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(40))]));
  // A record longer than TLS allows (2^14 + 2048): 65535 bytes announced and sent.
  const oversized = hold(agent.port, Buffer.concat([Buffer.from([0x16, 0x03, 0x03, 0xff, 0xff]), Buffer.alloc(65535, 0x41)]));
  const random = hold(
    agent.port,
    Buffer.concat([Buffer.from([0x16]), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) & 0xff))]),
  );
  for (const [what, c] of [
    ['not TLS', notTls],
    ['oversized record', oversized],
    ['noise', random],
  ] as const) {
    const ms = await Promise.race([c.closed, new Promise<number>((r) => setTimeout(() => r(-1), 3000))]);
    assert.ok(ms >= 0, `${what}: closed by the agent`);
  }
  assert.is((await httpsGet(`https://localhost:${agent.port}/api/v1/health`, cert)).status, 200);
  assert.not.match(agent.output(), /\n\s+at |Error:/, "a client's mistake leaves no trace in the log");
});

bad(
  'TLS records after the handshake carry HTTP only: a plain request inside TLS is still one request, a bad one 400',
  async ({ agent, cert }) => {
    const res = await httpsGet(`https://localhost:${agent.port}/api/v1/health?x=1`, cert, { 'X-Long': 'a'.repeat(8000) });
    assert.is(res.status, 200);
    const tooBig = await httpsGet(`https://localhost:${agent.port}/api/v1/health`, cert, { 'X-Long': 'a'.repeat(20_000) });
    assert.is(tooBig.status, 431, 'headers over 16 KiB refused as over HTTP');
  },
);

bad('a TLS client that shuts its sending side after the request still gets the whole answer', async ({ agent }) => {
  const body = JSON.stringify({ username: 'admin', password: 'correct horse battery' });
  const out = await new Promise<string>((resolve, reject) => {
    const s = tlsConnect(
      { port: agent.port, host: '127.0.0.1', rejectUnauthorized: false, allowHalfOpen: true } as ConnectionOptions,
      () => {
        s.write(
          `POST /api/v1/agentusers/loginusertoagent HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${body.length}\r\n\r\n${body}`,
        );
        s.end(); // close_notify and FIN before the (scrypt-slow) answer
      },
    );
    let text = '';
    s.on('data', (d) => {
      text += d;
    });
    s.on('close', () => resolve(text));
    s.on('error', reject);
  });
  assert.match(out, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(out, /"token":"[^"]+"/);
});

bad.run();

const redirect = suite<{ agent: TestAgent; cert: Buffer }>('tls redirect mode');
redirect.before(async (ctx) => {
  ctx.agent = await startAgent({ config: { tls: { ...TLS, plainHttp: 'redirect' } } });
  ctx.cert = readFileSync(join(ctx.agent.dir, 'tls/cert.pem'));
});
redirect.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

redirect('plain HTTP gets 308 to the same URL with https://, unauthenticated', async ({ agent }) => {
  const res = await fetch(`${agent.url}/api/v1/devicestatus/get?a=1&b=%20`, { redirect: 'manual' });
  assert.is(res.status, 308);
  assert.is(res.headers.get('location'), `https://127.0.0.1:${agent.port}/api/v1/devicestatus/get?a=1&b=%20`);
  const raw = await rawRequest(agent.port, 'GET /docs HTTP/1.1\r\nHost: device.example:5050\r\nConnection: close\r\n\r\n');
  assert.match(raw, /^HTTP\/1\.1 308 Permanent Redirect\r\n/);
  assert.match(raw, /\r\nLocation: https:\/\/device\.example:5050\/docs\r\n/);
  await new Promise((r) => setTimeout(r, 100));
  assert.match(agent.output(), /GET \/api\/v1\/devicestatus\/get 308 \d+ [\d.]+ms - http\n/);
});

redirect('the body is not read: a 10 MB upload announced gets its 308 after the head alone', async ({ agent }) => {
  const head =
    'POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\n' +
    'Content-Length: 10000000\r\n\r\n';
  const t0 = Date.now();
  const raw = await rawRequest(agent.port, head, 4000);
  assert.match(raw, /^HTTP\/1\.1 308 /);
  assert.match(raw, /\r\nConnection: close\r\n/i);
  assert.match(raw, /\r\nLocation: https:\/\/127\.0\.0\.1\/api\/upload\r\n/);
  assert.ok(Date.now() - t0 < 3500, 'answered without the body and the connection ended');
});

redirect('over HTTPS the same request is served: auth is checked there', async ({ agent, cert }) => {
  const res = await httpsGet(`https://localhost:${agent.port}/api/v1/devicestatus/get`, cert);
  assert.is(res.status, 401);
  const token = await (async () => {
    const r = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpsRequest(
        `https://localhost:${agent.port}/api/v1/agentusers/loginusertoagent`,
        { method: 'POST', ca: cert, headers: { 'Content-Type': 'application/json' } },
        (res) => {
          let body = '';
          res.on('data', (d) => {
            body += d;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ username: 'admin', password: 'correct horse battery' }));
    });
    assert.is(r.status, 200);
    return (JSON.parse(r.body) as { token: string }).token;
  })();
  assert.is((await httpsGet(`https://localhost:${agent.port}/api/v1/devicestatus/get`, cert, bearer(token))).status, 200);
});

redirect.run();

const metrics = suite('tls metrics');

metrics("failed handshakes are counted and the certificate's notAfter kept, in one exported object", async () => {
  const { dir } = await prepareDir({ config: { tls: TLS } });
  const agent = await startInProcess(loadConfig(join(dir, 'config.json')), { firstRunAdmin: false, log: silentLog, announce: () => {} });
  try {
    const info = (await (await fetch(`http://127.0.0.1:${agent.port}/api/v1/tls`)).json()) as { notAfter: string };
    assert.is(tlsMetrics.certNotAfterSeconds, Date.parse(info.notAfter) / 1000);
    const before = tlsMetrics.failedHandshakes;
    const c = hold(agent.port, Buffer.from([0x16, 0x03, 0x03, 0x00, 0x05, 1, 2, 3, 4, 5, 6, 7]));
    await c.closed;
    assert.ok(await eventually(() => tlsMetrics.failedHandshakes === before + 1), `${tlsMetrics.failedHandshakes}`);
    await new Promise<void>((resolve, reject) => {
      const req = httpsRequest(
        `https://127.0.0.1:${agent.port}/api/v1/health`,
        { rejectUnauthorized: false, minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-SHA' },
        () => reject(new Error('served a CBC suite')),
      );
      req.on('error', () => resolve());
      req.end();
    });
    assert.ok(await eventually(() => tlsMetrics.failedHandshakes === before + 2), 'a refused suite counts too');
  } finally {
    await agent.stop(0);
  }
});

metrics.run();
