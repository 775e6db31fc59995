// DeviceAgent.upload, the library call under `dagent put`: one POST on a connection of its
// own, the multipart body written straight onto the socket and the answer read by hand. It
// keeps what the node:http way promised: the bytes arrive whole, the agent's refusals are
// ApiErrors with its text (also one sent before the body is all sent), a wrong key gets no
// byte, an abort ends it; and answers framed otherwise (1xx first, chunked) are read too.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as httpServer } from 'node:http';
import { createServer as netServer } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError, ConnectionError, DeviceAgent, TrustError } from '../client/src/index.ts';
import { makeDir } from './helpers/agent.ts';
import { relay, startClientAgent, type ClientAgent, failureOf, logCaughtUp } from './helpers/dagent.ts';

function againstAgent(tls: boolean): void {
  type Ctx = { agent: ClientAgent; token: string; dir: string; file: string; data: Buffer };
  const test = suite<Ctx>(`upload against the agent, TLS ${tls ? 'on' : 'off'}`);
  test.before(async (ctx) => {
    ctx.agent = await startClientAgent(tls, { config: { maxFileBytes: 4 * 1024 * 1024 } });
    ctx.token = await ctx.agent.login();
    ctx.dir = makeDir('da-upload-');
    ctx.data = randomBytes(3 * 1024 * 1024 + 5);
    ctx.file = join(ctx.dir, 'take.bin');
    writeFileSync(ctx.file, ctx.data);
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

  test("a file and a stream in one request: the agent's answer, the bytes whole, progress to the total", async (ctx) => {
    const seen: Array<{ bytes: number; total: number | null }> = [];
    const small = Buffer.from('a stream of bytes\n');
    await client(ctx).mkdir('in');
    const result = await client(ctx).upload(
      [ctx.file, { name: 'note.txt', size: small.length, open: () => Readable.from([small]) }],
      'in/',
      { onProgress: (p) => seen.push(p) },
    );
    assert.equal(result, { message: 'Uploaded successfully' });
    assert.ok(readFileSync(join(ctx.agent.baseDir, 'in/take.bin')).equals(ctx.data));
    assert.ok(readFileSync(join(ctx.agent.baseDir, 'in/note.txt')).equals(small));
    const total = ctx.data.length + small.length;
    assert.equal(
      [seen[0], seen.at(-1)],
      [
        { bytes: 0, total },
        { bytes: total, total },
      ],
    );
  });

  if (!tls) {
    test('one request, on a connection of its own, closed after', async (ctx) => {
      const watch = await relay(ctx.agent.port);
      try {
        await client(ctx, `http://127.0.0.1:${watch.port}`).upload([ctx.file], 'watched.bin');
        assert.is(watch.heads.length, 1, watch.heads.join('\n'));
        assert.match(
          watch.heads[0]!,
          new RegExp(
            '^#1 POST /api/upload HTTP/1\\.1\\r\\nHost: 127\\.0\\.0\\.1:\\d+\\r\\nUser-Agent: dagent\\r\\n' +
              'Content-Type: multipart/form-data; boundary=dagent-[0-9a-f]{32}\\r\\nContent-Length: \\d+\\r\\nAccept: application/json\\r\\n' +
              'Authorization: Bearer \\S+\\r\\nConnection: close\\r\\n\\r\\n$',
          ),
        );
        assert.ok(readFileSync(join(ctx.agent.baseDir, 'watched.bin')).equals(ctx.data));
      } finally {
        watch.server.close();
      }
    });
  }

  if (tls) {
    test('a pin of another key: the TrustError, and no request reaches the agent', async (ctx) => {
      const wrong = `sha256//${Buffer.alloc(32, 9).toString('base64')}`;
      await caughtUp(ctx);
      const before = ctx.agent.output().split('POST /api/upload').length;
      const err = await failureOf(
        new DeviceAgent({ url: ctx.agent.clientUrl, token: ctx.token, pin: wrong }).upload([ctx.file], 'pinned.bin'),
      );
      assert.instance(err, TrustError, `${err.name}: ${err.message}`);
      assert.is((err as TrustError).presentedPin, ctx.agent.pin);
      assert.match(err.message, /^the device's key has changed: trusted sha256\/\/CQkJ/);
      await caughtUp(ctx);
      assert.is(ctx.agent.output().split('POST /api/upload').length, before);
      assert.not.ok(existsSync(join(ctx.agent.baseDir, 'pinned.bin')));
    });
  }

  test("a file over the agent's limit: refused by its declared length before the body is sent, the ApiError with the agent's text", async (ctx) => {
    const big = join(ctx.dir, 'big.bin');
    writeFileSync(big, Buffer.alloc(32 * 1024 * 1024));
    const err = await failureOf(client(ctx).upload([big], 'big.bin'));
    assert.instance(err, ApiError);
    assert.is(`${(err as ApiError).status} ${err.message}`, '400 Failed to parse form: file too large');
    assert.not.ok(existsSync(join(ctx.agent.baseDir, 'big.bin')));
  });

  test("a directory outside the token's: the agent's 4xx as the ApiError", async (ctx) => {
    const err = await failureOf(client(ctx).upload([ctx.file], '../escape.bin'));
    assert.instance(err, ApiError);
    assert.is(`${(err as ApiError).status} ${err.message}`, '403 file path is not allowed');
  });

  test('an abort while the body is sent: AbortError, and the agent keeps nothing', async (ctx) => {
    const controller = new AbortController();
    const err = await failureOf(
      client(ctx).upload([ctx.file], 'aborted.bin', {
        signal: controller.signal,
        onProgress: ({ bytes }) => {
          if (bytes > 0) controller.abort();
        },
      }),
    );
    assert.is(err.name, 'AbortError');
    assert.not.ok(existsSync(join(ctx.agent.baseDir, 'aborted.bin')));
  });

  test.run();
}

function otherServers(): void {
  const test = suite<{ dir: string; file: string }>('upload: answers framed otherwise, and no answer');
  test.before((ctx) => {
    ctx.dir = makeDir('da-upload-');
    ctx.file = join(ctx.dir, 'f.bin');
    writeFileSync(ctx.file, randomBytes(300_000));
  });
  test.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

  test('a 103 then a chunked JSON answer (a node:http server, not the agent): read whole; the body it got is the form', async (ctx) => {
    let got = Buffer.alloc(0);
    const server = httpServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        got = Buffer.concat(parts);
        res.writeEarlyHints({ link: '</x>; rel=preload' });
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"message": ');
        res.end('"Uploaded successfully"}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      assert.equal(await new DeviceAgent({ url: `http://127.0.0.1:${port}`, token: 't' }).upload([ctx.file], 'x/'), {
        message: 'Uploaded successfully',
      });
      const boundary = /^--(dagent-[0-9a-f]{32})\r\n/.exec(got.toString('latin1'))![1];
      assert.ok(got.includes(readFileSync(ctx.file)));
      assert.ok(got.toString('latin1').endsWith(`\r\n--${boundary}--\r\n`));
      assert.match(got.toString('latin1'), /Content-Disposition: form-data; name="saveToPath"\r\n\r\nx\/\r\n/);
    } finally {
      server.close();
    }
  });

  test('a server that closes without answering: the ConnectionError of any request', async (ctx) => {
    const server = netServer((s) => s.once('data', () => s.destroy()));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      const err = await failureOf(new DeviceAgent({ url: `http://127.0.0.1:${port}` }).upload([ctx.file], 'x'));
      assert.instance(err, ConnectionError);
      assert.is(err.message, `could not connect to 127.0.0.1:${port}: connection reset`);
    } finally {
      server.close();
    }
  });

  test.run();
}

againstAgent(false);
againstAgent(true);
otherServers();
