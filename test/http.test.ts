import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { truncateSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { ADMIN, startAgent, type TestAgent } from './helpers/agent.ts';
import { bearer, jsonPost, rawRequest } from './helpers/http.ts';
import { logLines, unprefixed } from './helpers/log.ts';

const LOGIN = '/api/v1/agentusers/loginusertoagent';

const routing = suite<{ agent: TestAgent }>('routing and errors');
routing.before(async (ctx) => {
  ctx.agent = await startAgent();
});
routing.after(async (ctx) => {
  await ctx.agent.cleanup();
});

routing('an unknown route gives 404 JSON', async ({ agent }) => {
  const res = await fetch(`${agent.url}/nope`);
  assert.is(res.status, 404);
  assert.match(res.headers.get('content-type')!, /^application\/json/);
  assert.equal(await res.json(), { error: 'not found' });
});

routing('a wrong method on a known route gives 405 with Allow', async ({ agent }) => {
  let res = await fetch(`${agent.url}/api/v1/health`, { method: 'DELETE' });
  assert.is(res.status, 405);
  assert.is(res.headers.get('allow'), 'GET, HEAD');
  assert.equal(await res.json(), { error: 'method not allowed' });
  res = await fetch(`${agent.url}${LOGIN}`);
  assert.is(res.status, 405);
  assert.is(res.headers.get('allow'), 'POST');
  res = await fetch(`${agent.url}/api/v1/devicestatus/get`, { method: 'POST' });
  assert.is(res.status, 405);
  assert.is(res.headers.get('allow'), 'GET, HEAD');
});

routing('HEAD on a GET route answers headers only', async ({ agent }) => {
  const res = await fetch(`${agent.url}/api/v1/health`, { method: 'HEAD' });
  assert.is(res.status, 200);
  assert.is(await res.text(), '');
});

routing('a request with broken framing gets a 400 and the agent stays up', async ({ agent }) => {
  const out = await rawRequest(agent.port, 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
  assert.match(out, /^HTTP\/1\.1 400/);
  assert.is((await fetch(`${agent.url}/api/v1/health`)).status, 200);
});

routing("the logged milliseconds are the request's own duration", async ({ agent }) => {
  // A failed login hashes with scrypt (N=2^17, 128 MiB): well over 20 ms on any machine,
  // and the line cannot say more than the client waited. A clock in seconds or
  // microseconds, or one started late, fails one bound or the other.
  const from = agent.output().length;
  const t0 = performance.now();
  assert.is((await jsonPost(agent.url + LOGIN, { username: 'timed-user', password: 'wrong' })).status, 401);
  const waited = performance.now() - t0;
  let m: RegExpExecArray | null = null;
  for (let i = 0; i < 20 && !m; i++, await new Promise((r) => setTimeout(r, 50))) {
    m = /POST \/api\/v1\/agentusers\/loginusertoagent 401 \d+ ([\d.]+)ms -\n/.exec(agent.output().slice(from));
  }
  assert.ok(m, agent.output().slice(from));
  const ms = Number(m[1]);
  assert.ok(ms >= 20 && ms <= waited + 0.1, `logged ${ms} ms, the client waited ${waited.toFixed(1)} ms`);
});

routing('writes one log line per request: method, path without query, status, bytes, ms, user', async ({ agent }) => {
  const token = await agent.login();
  await fetch(`${agent.url}/api/v1/devicestatus/get?secret=QUERYSECRET`, { headers: bearer(token) });
  await jsonPost(agent.url + LOGIN, { username: 'admin', password: 'PASSWORD-IN-BODY' });
  await new Promise((r) => setTimeout(r, 100));
  const out = agent.output();
  assert.match(out, /GET \/api\/v1\/devicestatus\/get 200 \d+ [\d.]+ms admin\n/);
  assert.match(out, /POST \/api\/v1\/agentusers\/loginusertoagent 401 \d+ [\d.]+ms -\n/);
  assert.not.ok(out.includes('QUERYSECRET'), 'query string logged');
  assert.not.ok(out.includes(token), 'token logged');
  assert.not.ok(out.includes(token.split('.')[2]!), 'token signature logged');
  assert.not.ok(out.includes('PASSWORD-IN-BODY'), 'password logged');
  assert.not.ok(out.includes(ADMIN.password), 'password logged');
  const lines = out.split('\n').filter((l) => l.includes('GET /api/v1/devicestatus/get'));
  assert.is(lines.length, 1);
});

routing('the logged bytes are the bytes the client received, headers included; the line starts with its UTC time', async ({ agent }) => {
  const before = Date.now();
  const raw = await rawRequest(agent.port, 'GET /api/v1/health?bytes-check HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.match(raw, /^HTTP\/1\.1 200/);
  await new Promise((r) => setTimeout(r, 100));
  const line = agent
    .output()
    .split('\n')
    .filter((l) => / GET \/api\/v1\/health 200 /.test(l))
    .pop()!;
  const m = /^<6>(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z) GET \/api\/v1\/health 200 (\d+) [\d.]+ms -$/.exec(line);
  assert.ok(m, line);
  assert.is(Number(m![2]), Buffer.byteLength(raw, 'latin1'));
  const at = Date.parse(m![1]!);
  assert.ok(at >= before - 1 && at <= Date.now(), `${m![1]} is not the time of the request`);
});

routing('two requests pipelined on one connection each log the bytes of their own answer', async ({ agent }) => {
  const raw = await rawRequest(
    agent.port,
    'GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\nGET /pipelined-second HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  );
  const second = raw.indexOf('HTTP/1.1 404');
  assert.ok(raw.startsWith('HTTP/1.1 200') && second > 0, raw);
  await new Promise((r) => setTimeout(r, 100));
  const logged = (pattern: RegExp) => {
    const m = agent
      .output()
      .split('\n')
      .map((l) => pattern.exec(l))
      .filter(Boolean)
      .pop();
    assert.ok(m, `no line ${pattern}`);
    return Number(m![1]);
  };
  assert.is(logged(/ GET \/api\/v1\/health 200 (\d+) /), Buffer.byteLength(raw.slice(0, second), 'latin1'));
  assert.is(logged(/ GET \/pipelined-second 404 (\d+) /), Buffer.byteLength(raw.slice(second), 'latin1'));
});

routing(
  'a pipelined request whose client leaves while the answer before it is still going out gets its line: never answered, aborted, 0 bytes',
  async ({ agent }) => {
    writeFileSync(join(agent.baseDir, 'pipelined-big.bin'), '');
    truncateSync(join(agent.baseDir, 'pipelined-big.bin'), 40 * 1024 * 1024); // sparse, under the download limit; more than the socket buffers hold
    const token = await agent.login();
    const sock = connect(agent.port, '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    sock.pause(); // reads nothing: the download stalls with the second request queued behind it
    sock.write(
      `GET /api/download?filepath=pipelined-big.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n` +
        'GET /queued-behind-download HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    await new Promise((r) => setTimeout(r, 500));
    sock.destroy();
    let out = '';
    for (let i = 0; i < 50 && !/GET \/queued-behind-download /.test(out); i++) {
      await new Promise((r) => setTimeout(r, 50));
      out = agent.output();
    }
    assert.match(out, /GET \/api\/download 200-aborted \d+ [\d.]+ms admin\n/);
    // Its handler never ran (it waits for its turn: src/http/pipeline.ts), so no status was chosen.
    assert.match(out, /GET \/queued-behind-download 000-aborted 0 [\d.]+ms -\n/);
    assert.is(out.split('\n').filter((l) => l.includes('GET /queued-behind-download')).length, 1);
  },
);

routing('every line the agent writes carries its journald priority: request lines below 500 are info', async ({ agent }) => {
  await fetch(`${agent.url}/priority-probe`);
  await jsonPost(agent.url + LOGIN, { username: 'nobody', password: 'wrong' });
  await new Promise((r) => setTimeout(r, 100));
  const out = agent.output();
  assert.equal(unprefixed(out), [], 'lines without a priority');
  const lines = logLines(out);
  assert.ok(lines.length >= 3, out);
  const priorityOf = (re: RegExp) => lines.filter((l) => re.test(l.text)).map((l) => l.priority);
  assert.equal(priorityOf(/^device-agent listening on /), [6]);
  assert.equal(priorityOf(/^GET \/priority-probe 404 /), [6]);
  assert.ok(priorityOf(/^POST \/api\/v1\/agentusers\/loginusertoagent 401 /).every((p) => p === 6));
});

routing('control characters in a path cannot forge log lines', async ({ agent }) => {
  await rawRequest(agent.port, 'GET /x%0a2026-01-01T00:00:00.000Z\x7fFAKE HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 500);
  assert.not.ok(agent.output().includes('\x7fFAKE'));
});

const shutdown = suite('shutdown');

shutdown('SIGTERM exits 0 at once though a keep-alive connection is idle', async () => {
  const agent = await startAgent();
  try {
    const keepAlive = new Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) => {
      request(`${agent.url}/api/v1/health`, { agent: keepAlive }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
        .on('error', reject)
        .end();
    });
    const t = Date.now();
    const { code } = await agent.stop('SIGTERM');
    assert.is(code, 0);
    assert.ok(Date.now() - t < 2000, `took ${Date.now() - t} ms`);
    keepAlive.destroy();
  } finally {
    await agent.cleanup();
  }
});

shutdown('SIGINT lets a running request finish, then exits 0', async () => {
  const agent = await startAgent();
  try {
    const pending = jsonPost(agent.url + LOGIN, ADMIN); // a login takes a scrypt hash
    await new Promise((r) => setTimeout(r, 50));
    const stopped = agent.stop('SIGINT');
    const res = await pending;
    assert.is(res.status, 200);
    assert.type(((await res.json()) as { token: string }).token, 'string');
    assert.is((await stopped).code, 0);
    assert.match(agent.output(), /SIGINT: stopping/);
  } finally {
    await agent.cleanup();
  }
});

routing.run();
shutdown.run();
