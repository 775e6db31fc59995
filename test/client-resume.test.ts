// A download cut at a random offset (a TCP relay closes both sides mid-answer) resumes where
// the partial file ends (Range + If-Range, 206) and ends byte-identical; a file changed on
// the device meanwhile comes whole (If-Range fails, 200). TLS off and on.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConnectionError, DeviceAgent } from '../client/src/index.ts';
import { dagent, relay, startClientAgent, tempHome, type ClientAgent } from './helpers/dagent.ts';

const SIZE = 8 * 1024 * 1024;

function define(tls: boolean): void {
  type Ctx = { agent: ClientAgent; home: string; relay: Awaited<ReturnType<typeof relay>> };
  const test = suite<Ctx>(`dagent get resumes a cut download, TLS ${tls ? 'on' : 'off'}`);
  test.before(async (ctx) => {
    ctx.agent = await startClientAgent(tls);
    ctx.home = tempHome();
    ctx.relay = await relay(ctx.agent.port);
    const url = `${tls ? 'https' : 'http'}://127.0.0.1:${ctx.relay.port}`;
    const r = await dagent(['login', url, '--token-stdin', ...(ctx.agent.pin ? ['--pin', ctx.agent.pin] : [])], {
      home: ctx.home,
      input: `${await ctx.agent.login()}\n`,
    });
    assert.is(r.code, 0, r.stderr);
  });
  test.after(async (ctx) => {
    ctx.relay?.server.close();
    await ctx.agent?.cleanup();
    if (ctx.home) rmSync(ctx.home, { recursive: true, force: true });
  });

  const cutGet = async (ctx: Ctx) => {
    const cutAt = 64 * 1024 + Math.floor(Math.random() * (SIZE - 128 * 1024));
    ctx.relay.arm(cutAt);
    const r = await dagent(['get', 'big.bin', 'out.bin'], { home: ctx.home });
    const out = join(ctx.home, 'out.bin');
    const have = statSync(out).size;
    assert.is(r.code, 4, `cut at ${cutAt}: ${r.stderr}`);
    assert.is(r.stderr, `dagent: the download of big.bin was cut after ${have} of ${SIZE} bytes; run the same command again to resume\n`);
    assert.ok(have < SIZE, `cut at ${cutAt}, ${have} bytes saved`);
    assert.ok(existsSync(`${out}.dagent`));
    return have;
  };

  test("cut at a random offset, run again: resumed from the partial file's end, byte-identical", async (ctx) => {
    const data = randomBytes(SIZE);
    writeFileSync(join(ctx.agent.baseDir, 'big.bin'), data);
    const have = await cutGet(ctx);
    const r = await dagent(['get', 'big.bin', 'out.bin', '--json'], { home: ctx.home });
    assert.is(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout), { path: 'big.bin', savedTo: 'out.bin', sizeBytes: SIZE, resumedFrom: have });
    assert.ok(readFileSync(join(ctx.home, 'out.bin')).equals(data), `bytes differ after resuming from ${have}`);
    assert.not.ok(existsSync(join(ctx.home, 'out.bin.dagent')));
    assert.match(ctx.agent.output(), /GET \/api\/download 206 /);
  });

  test('the file changed on the device after the cut: If-Range fails and the whole new file comes', async (ctx) => {
    writeFileSync(join(ctx.agent.baseDir, 'big.bin'), randomBytes(SIZE));
    await cutGet(ctx);
    await new Promise((r) => setTimeout(r, 20)); // a new mtime, so a new ETag even at the same size
    const fresh = randomBytes(SIZE);
    writeFileSync(join(ctx.agent.baseDir, 'big.bin'), fresh);
    const r = await dagent(['get', 'big.bin', 'out.bin', '--json'], { home: ctx.home });
    assert.is(r.code, 0, r.stderr);
    assert.is(JSON.parse(r.stdout).resumedFrom, 0);
    assert.ok(readFileSync(join(ctx.home, 'out.bin')).equals(fresh));
  });

  if (!tls) {
    test('library: a GET on a kept-alive connection closed unanswered is sent again once, on a new one', async (ctx) => {
      const agent = new DeviceAgent({ url: `http://127.0.0.1:${ctx.relay.port}`, token: await ctx.agent.login() });
      ctx.relay.dropSecond = true;
      try {
        const first = await agent.status();
        const second = await agent.status(); // its connection is closed at its request: sent again
        assert.is(second.hostname, first.hostname);
        // The same for a POST, on the connection the retry made: it fails, never sent twice.
        let failure: unknown;
        try {
          await agent.startRecording({ duration: 1, fileExtension: 'wav' });
        } catch (err) {
          failure = err;
        }
        assert.instance(failure, ConnectionError);
        assert.is((await agent.recording()).state, 'idle');
      } finally {
        ctx.relay.dropSecond = false;
        agent.close();
      }
    });
  }

  test.run();
}

define(false);
define(true);
