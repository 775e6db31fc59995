// DeviceAgent.downloadToFile, the library call under `dagent get`: its short way (a
// connection of its own, the head read by hand, the body written from one reused buffer)
// keeps every promise of the node:http way: a cut resumes (206 appended), a 4xx is the
// API's error text, a wrong key is refused before the request leaves, an abort leaves
// DEST.dagent to resume from, an idle answer times out; and answers it does not take
// (chunked, 1xx, no Content-Length) are asked for again through node:http and saved whole.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as httpServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as netServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError, ConnectionError, DeviceAgent, TrustError } from '../client/src/index.ts';
import { makeDir } from './helpers/agent.ts';
import {
  DAGENT,
  dagent,
  relay,
  runtimes,
  startClientAgent,
  tempHome,
  tokenProfile,
  type ClientAgent,
  failureOf,
  logCaughtUp,
} from './helpers/dagent.ts';
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';

const SIZE = 16 * 1024 * 1024;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as { port: number }).port;
}

function againstAgent(tls: boolean): void {
  type Ctx = { agent: ClientAgent; token: string; dir: string; data: Buffer };
  const test = suite<Ctx>(`downloadToFile against the agent, TLS ${tls ? 'on' : 'off'}`);
  test.before(async (ctx) => {
    ctx.agent = await startClientAgent(tls);
    ctx.token = await ctx.agent.login();
    ctx.dir = makeDir('da-download-');
    ctx.data = randomBytes(SIZE);
    writeFileSync(join(ctx.agent.baseDir, 'big.bin'), ctx.data);
  });
  test.after(async (ctx) => {
    await ctx.agent?.cleanup();
    if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
  });
  const client = (ctx: Ctx, url = ctx.agent.clientUrl) => new DeviceAgent({ url, token: ctx.token, pin: ctx.agent.pin ?? undefined });
  const caughtUp = (ctx: Ctx) =>
    logCaughtUp(
      () => ctx.agent.output(),
      () => client(ctx).status(),
    );

  test('whole: the bytes, the size, progress from 0 to the size, no control file left', async (ctx) => {
    const dest = join(ctx.dir, 'whole.bin');
    const seen: Array<{ bytes: number; total: number | null }> = [];
    const saved = await client(ctx).downloadToFile('big.bin', dest, { onProgress: (p) => seen.push(p) });
    assert.equal(saved, { path: dest, size: SIZE, transferred: SIZE, resumedFrom: 0 });
    assert.ok(readFileSync(dest).equals(ctx.data));
    assert.equal(seen[0], { bytes: 0, total: SIZE });
    assert.equal(seen.at(-1), { bytes: SIZE, total: SIZE });
    assert.ok(seen.every((p, i) => i === 0 || p.bytes >= seen[i - 1]!.bytes));
    assert.not.ok(existsSync(`${dest}.dagent`));
  });

  if (!tls) {
    test("the agent's answer takes the short way: one request, on a connection of its own, closed after", async (ctx) => {
      const watch = await relay(ctx.agent.port);
      try {
        const dest = join(ctx.dir, 'short.bin');
        await client(ctx, `http://127.0.0.1:${watch.port}`).downloadToFile('big.bin', dest);
        assert.ok(readFileSync(dest).equals(ctx.data));
        assert.is(watch.heads.length, 1, watch.heads.join('\n'));
        assert.match(
          watch.heads[0]!,
          /^#1 GET \/api\/download\?filepath=big\.bin HTTP\/1\.1\r\nHost: 127\.0\.0\.1:\d+\r\nUser-Agent: dagent\r\nAuthorization: Bearer \S+\r\nConnection: close\r\n\r\n$/,
        );
      } finally {
        watch.server.close();
      }
    });
  }

  test('cut mid-body by a relay: ConnectionError with what was saved; the next call resumes (206) and the bytes match', async (ctx) => {
    const cutter = await relay(ctx.agent.port);
    const dest = join(ctx.dir, 'cut.bin');
    try {
      cutter.arm(1024 * 1024 + Math.floor(Math.random() * (SIZE - 2 * 1024 * 1024)));
      const url = `${tls ? 'https' : 'http'}://127.0.0.1:${cutter.port}`;
      const err = await failureOf(client(ctx, url).downloadToFile('big.bin', dest));
      const have = statSync(dest).size;
      assert.instance(err, ConnectionError);
      assert.is(err.message, `the download of big.bin was cut after ${have} of ${SIZE} bytes; run the same command again to resume`);
      assert.ok(have > 0 && have < SIZE, `${have} bytes saved`);
      const control = JSON.parse(readFileSync(`${dest}.dagent`, 'utf8'));
      assert.equal(Object.keys(control), ['filepath', 'etag', 'total']);
      assert.equal([control.filepath, control.total], ['big.bin', SIZE]);
      const before = ctx.agent.output().split('GET /api/download 206 ').length;
      const saved = await client(ctx, url).downloadToFile('big.bin', dest);
      assert.equal(saved, { path: dest, size: SIZE, transferred: SIZE - have, resumedFrom: have });
      assert.ok(readFileSync(dest).equals(ctx.data), `bytes differ after resuming from ${have}`);
      assert.not.ok(existsSync(`${dest}.dagent`));
      await caughtUp(ctx); // the agent's line may come through its log's pipe after the client has the last byte
      assert.is(ctx.agent.output().split('GET /api/download 206 ').length, before + 1);
    } finally {
      cutter.server.close();
    }
  });

  test('a 404 of the agent is the ApiError with its text; nothing is written', async (ctx) => {
    const dest = join(ctx.dir, 'none.bin');
    const err = await failureOf(client(ctx).downloadToFile('no/such.bin', dest));
    assert.instance(err, ApiError);
    assert.is((err as ApiError).status, 404);
    assert.is((err as ApiError).error, 'file not found at no/such.bin');
    assert.is(err.message, 'file not found at no/such.bin');
    assert.is((err as ApiError).headers['content-type'], 'application/json; charset=utf-8');
    assert.not.ok(existsSync(dest));
    assert.not.ok(existsSync(`${dest}.dagent`));
  });

  test('a 401 (a token the agent does not know) is the ApiError with its text', async (ctx) => {
    const agent = new DeviceAgent({ url: ctx.agent.clientUrl, token: 'dat_not_a_token', pin: ctx.agent.pin ?? undefined });
    const err = await failureOf(agent.downloadToFile('big.bin', join(ctx.dir, 'denied.bin')));
    assert.instance(err, ApiError);
    assert.is((err as ApiError).status, 401);
    assert.is(err.message, 'invalid token');
  });

  test("an abort mid-body: AbortError, DEST and DEST.dagent stay, and the next call resumes from DEST's end", async (ctx) => {
    const dest = join(ctx.dir, 'aborted.bin');
    const controller = new AbortController();
    const err = await failureOf(
      client(ctx).downloadToFile('big.bin', dest, {
        signal: controller.signal,
        onProgress: ({ bytes }) => {
          if (bytes >= 2 * 1024 * 1024) controller.abort();
        },
      }),
    );
    assert.is(err.name, 'AbortError');
    const have = statSync(dest).size;
    assert.ok(have >= 2 * 1024 * 1024 && have < SIZE, `${have} bytes saved`);
    assert.is(JSON.parse(readFileSync(`${dest}.dagent`, 'utf8')).total, SIZE);
    const saved = await client(ctx).downloadToFile('big.bin', dest);
    assert.is(saved.resumedFrom, have);
    assert.ok(readFileSync(dest).equals(ctx.data));
  });

  if (tls) {
    test('a pin of another key: the TrustError naming both pins, and the request never reaches the agent', async (ctx) => {
      const wrong = `sha256//${Buffer.alloc(32, 7).toString('base64')}`;
      await caughtUp(ctx);
      const before = ctx.agent.output().split('GET /api/download').length;
      const dest = join(ctx.dir, 'pinned.bin');
      const agent = new DeviceAgent({ url: ctx.agent.clientUrl, token: ctx.token, pin: wrong });
      const err = await failureOf(agent.downloadToFile('big.bin', dest));
      assert.instance(err, TrustError);
      assert.is(
        err.message,
        `the device's key has changed: trusted ${wrong}, presented ${ctx.agent.pin}. ` +
          'If the device was reinstalled or its key replaced on purpose, log in again with --pin <new pin> after checking it on the device (device-agent tls show).',
      );
      assert.is((err as TrustError).presentedPin, ctx.agent.pin);
      assert.not.ok(existsSync(dest));
      await caughtUp(ctx);
      assert.is(ctx.agent.output().split('GET /api/download').length, before);
    });

    test("no pin, no CA: the agent's self-signed certificate is a TrustError", async (ctx) => {
      const agent = new DeviceAgent({ url: ctx.agent.clientUrl, token: ctx.token });
      const err = await failureOf(agent.downloadToFile('big.bin', join(ctx.dir, 'untrusted.bin')));
      assert.instance(err, TrustError);
      assert.match(
        err.message,
        /^127\.0\.0\.1:\d+: the certificate is not trusted \([A-Z_]+: .+\)\. Log in with --pin \(a self-signed device\) or --ca FILE\.$/,
      );
    });
  }

  test.run();
}

/** A node:http server (not the agent) whose answers the short way does not take. */
function fallbacks(): void {
  type Ctx = { server: ReturnType<typeof httpServer>; port: number; dir: string; data: Buffer; seen: IncomingHttpHeaders[] };
  const test = suite<Ctx>('downloadToFile: answers left to node:http');
  test.before(async (ctx) => {
    ctx.dir = makeDir('da-download-');
    ctx.data = randomBytes(3 * 1024 * 1024 + 17);
    ctx.seen = [];
    ctx.server = httpServer((req, res) => {
      ctx.seen.push(req.headers);
      const how = new URL(req.url!, 'http://x').searchParams.get('filepath');
      if (how === 'early-hints') {
        res.writeEarlyHints({ link: '</x.css>; rel=preload' });
        res.setHeader('Content-Length', ctx.data.length);
      }
      // Else no Content-Length: node:http sends the body chunked.
      res.setHeader('ETag', '"e1"');
      for (let at = 0; at < ctx.data.length; at += 100_000) res.write(ctx.data.subarray(at, at + 100_000));
      res.end();
    });
    ctx.port = await listen(ctx.server);
  });
  test.after((ctx) => {
    ctx.server?.close();
    if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
  });

  test('a chunked answer: the GET is sent again through node:http and the file saved whole', async (ctx) => {
    ctx.seen.length = 0;
    const dest = join(ctx.dir, 'chunked.bin');
    const seen: Array<number | null> = [];
    const agent = new DeviceAgent({ url: `http://127.0.0.1:${ctx.port}`, token: 't' });
    const saved = await agent.downloadToFile('chunked', dest, { onProgress: (p) => seen.push(p.total) });
    agent.close();
    assert.equal(saved, { path: dest, size: ctx.data.length, transferred: ctx.data.length, resumedFrom: 0 });
    assert.ok(readFileSync(dest).equals(ctx.data));
    assert.ok(
      seen.every((t) => t === null),
      'no length announced: progress without a total',
    );
    assert.not.ok(existsSync(`${dest}.dagent`), 'nothing to resume against without a length');
    // The short way's request (its own connection, closed after), then node:http's (kept alive).
    assert.equal(
      ctx.seen.map((h) => [h.connection, h.authorization, h['user-agent']]),
      [
        ['close', 'Bearer t', 'dagent'],
        ['keep-alive', 'Bearer t', 'dagent'],
      ],
    );
  });

  test('a 103 before the answer: sent again through node:http, saved whole, the length checked', async (ctx) => {
    ctx.seen.length = 0;
    const dest = join(ctx.dir, 'hints.bin');
    const agent = new DeviceAgent({ url: `http://127.0.0.1:${ctx.port}`, token: 't' });
    const saved = await agent.downloadToFile('early-hints', dest);
    agent.close();
    assert.is(saved.size, ctx.data.length);
    assert.ok(readFileSync(dest).equals(ctx.data));
    assert.is(ctx.seen.length, 2);
  });

  test.run();
}

/** A server that writes `head` and `body`, then does `then` (close the connection, or nothing). */
function rawServer(head: string, body: Buffer, then: 'close' | 'stall'): Server {
  const sockets = new Set<Socket>();
  const server = netServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('data', () => {
      socket.write(head);
      socket.write(body, () => {
        if (then === 'close') socket.destroy();
      });
    });
  });
  server.on('close', () => {
    for (const s of sockets) s.destroy();
  });
  return server;
}

function cuts(): void {
  const test = suite<{ dir: string }>('downloadToFile: a connection that fails mid-body');
  test.before((ctx) => {
    ctx.dir = makeDir('da-download-');
  });
  test.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));
  const head = 'HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nETag: "abc"\r\nContent-Length: 5000\r\n\r\n';

  test('closed after 1000 of 5000 bytes: the ConnectionError to resume, DEST.dagent names the ETag', async (ctx) => {
    const server = rawServer(head, Buffer.alloc(1000, 1), 'close');
    const port = await listen(server);
    const dest = join(ctx.dir, 'closed.bin');
    try {
      const err = await failureOf(new DeviceAgent({ url: `http://127.0.0.1:${port}` }).downloadToFile('a.bin', dest));
      assert.instance(err, ConnectionError);
      assert.is(err.message, 'the download of a.bin was cut after 1000 of 5000 bytes; run the same command again to resume');
      assert.is((err as ConnectionError).code, 'ECONNRESET');
      assert.equal(JSON.parse(readFileSync(`${dest}.dagent`, 'utf8')), { filepath: 'a.bin', etag: '"abc"', total: 5000 });
    } finally {
      server.close();
    }
  });

  test('silent after 1000 of 5000 bytes: the idle timeout ends it the same way (ETIMEDOUT)', async (ctx) => {
    const server = rawServer(head, Buffer.alloc(1000, 1), 'stall');
    const port = await listen(server);
    try {
      const err = await failureOf(
        new DeviceAgent({ url: `http://127.0.0.1:${port}`, timeoutMs: 300 }).downloadToFile('a.bin', join(ctx.dir, 'stalled.bin')),
      );
      assert.instance(err, ConnectionError);
      assert.is(err.message, 'the download of a.bin was cut after 1000 of 5000 bytes; run the same command again to resume');
      assert.is((err as ConnectionError).code, 'ETIMEDOUT');
    } finally {
      server.close();
    }
  });

  test('a 500 with a body of 5 MB: the status line, the body read only so far', async (ctx) => {
    const server = rawServer('HTTP/1.1 500 Internal Server Error\r\nContent-Length: 5000000\r\n\r\n', Buffer.alloc(100_000, 0x7b), 'stall');
    const port = await listen(server);
    try {
      const err = await failureOf(new DeviceAgent({ url: `http://127.0.0.1:${port}` }).downloadToFile('a.bin', join(ctx.dir, 'e.bin')));
      assert.instance(err, ApiError);
      assert.is((err as ApiError).status, 500);
      assert.is(err.message, '500 Internal Server Error');
    } finally {
      server.close();
    }
  });

  test('nobody listening: the ConnectionError of any request', async (ctx) => {
    const server = netServer();
    const port = await listen(server);
    await new Promise((r) => server.close(r));
    const err = await failureOf(new DeviceAgent({ url: `http://127.0.0.1:${port}` }).downloadToFile('a.bin', join(ctx.dir, 'r.bin')));
    assert.instance(err, ConnectionError);
    assert.is(err.message, `could not connect to 127.0.0.1:${port}: connection refused`);
  });

  test.run();
}

/** dagent as built: one file, and a start that loads only what the command needs. */
function start(): void {
  type Ctx = { agent: ClientAgent; home: string };
  const test = suite<Ctx>('dagent: one bundle, built-in modules on first use');
  test.before(async (ctx) => {
    ctx.agent = await startClientAgent(false);
    ctx.home = tempHome();
    await tokenProfile(ctx.agent, ctx.home);
    writeFileSync(join(ctx.agent.baseDir, 'small.bin'), randomBytes(100_000));
  });
  test.after(async (ctx) => {
    await ctx.agent?.cleanup();
    if (ctx.home) rmSync(ctx.home, { recursive: true, force: true });
  });

  test('the command is dagent.js and the bundle beside it, nothing else', () => {
    assert.equal(readdirSync(dirname(DAGENT)).sort(), ['dagent.js', 'main.cjs']);
  });

  // Which of Node's own modules a run loaded, written by a preloaded module at exit.
  const loaded = async (ctx: Ctx, args: string[], node: string) => {
    const out = join(ctx.home, 'modules.txt');
    const hook = join(ctx.home, 'hook.mjs');
    writeFileSync(
      hook,
      `import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`,
    );
    const r = await dagent(args, { home: ctx.home, node, env: { NODE_OPTIONS: `--import=${hook}` } });
    assert.is(r.code, 0, r.stderr);
    return readFileSync(out, 'utf8').split('\n');
  };

  test('get over plain HTTP loads neither node:http nor TLS nor fs/promises; status loads node:http but no TLS', async (ctx) => {
    for (const node of runtimes()) {
      const get = await loaded(ctx, ['get', 'small.bin', 'small.bin'], node);
      assert.ok(readFileSync(join(ctx.home, 'small.bin')).equals(readFileSync(join(ctx.agent.baseDir, 'small.bin'))));
      for (const m of ['NativeModule http', 'NativeModule https', 'NativeModule tls', 'NativeModule fs/promises', 'NativeModule crypto']) {
        assert.not.ok(get.includes(m), `${node}: dagent get loaded ${m}`);
      }
      const status = await loaded(ctx, ['status', '--json'], node);
      assert.ok(status.includes('NativeModule http'), `${node}: status without node:http?`);
      assert.not.ok(status.includes('NativeModule tls'), `${node}: dagent status over HTTP loaded node:tls`);
    }
  });

  test.run();
}

againstAgent(false);
againstAgent(true);
fallbacks();
cuts();
start();
