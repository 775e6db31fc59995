// Set-aside files (docs/outbox.md, "Failures"): a file the agent cannot read is set aside
// (`failed` in GET /api/v1/outbox, not pending, an `outbox` event with outcome `failed`) and
// tried again daily and on POST /api/v1/outbox/retry; the minute's scan does not try it again
// while it is unchanged. The agent runs as root without CAP_DAC_OVERRIDE and
// CAP_DAC_READ_SEARCH (setpriv(1)), so a file of mode 000 is one it cannot read, and a chmod
// makes it readable again without changing what the outbox compares (size, mtime, inode).
// The day passes on the agent's clocks alone: libfaketime with the monotonic clock faked too
// (test/helpers/faketime.ts), so a jump of the clock fires the agent's timers due by then.
// The target is an HTTP collector of the test's own (it does not care about the device's clock).
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeDir, prepareDir, startAgent, type TestAgent } from './helpers/agent.ts';
import { fakeClock } from './helpers/faketime.ts';
import { bearer } from './helpers/http.ts';
import { stateWhen, writeSettled } from './helpers/outbox.ts';
import { until } from './helpers/proc.ts';
import { openEvents } from './helpers/sse.ts';

const TOKEN = 'collector-token-9e1b';
const LOCKED = 'recordings/locked.wav';
/** Root without the capabilities that let it read any file: file modes hold for it. */
const NO_DAC = ['setpriv', '--bounding-set', '-dac_override,-dac_read_search', '--inh-caps', '-dac_override,-dac_read_search', '--'];

interface Collector {
  url: string;
  stored: Map<string, Buffer>;
  server: Server;
}

async function startCollector(): Promise<Collector> {
  const c: Collector = { url: '', stored: new Map(), server: undefined as unknown as Server };
  c.server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const data = Buffer.concat(parts);
      if (req.method !== 'PUT' || req.headers.authorization !== `Bearer ${TOKEN}`) return res.writeHead(403).end();
      if (req.headers['content-md5'] !== createHash('md5').update(data).digest('base64')) return res.writeHead(400).end();
      c.stored.set(decodeURIComponent(new URL(req.url!, 'http://x').pathname), data);
      res.writeHead(201).end();
    });
  });
  await new Promise<void>((r) => c.server.listen(0, '127.0.0.1', r));
  c.url = `http://127.0.0.1:${(c.server.address() as AddressInfo).port}`;
  return c;
}

async function agentFor(c: Collector, dir: string, env?: Record<string, string>): Promise<TestAgent> {
  writeFileSync(join(dir, 'collector.token'), `${TOKEN}\n`, { mode: 0o600 });
  const target = { type: 'http', url: `${c.url}/in/{path}`, tokenFile: 'collector.token' };
  const config = { deviceId: 'dev-r', outbox: { target, maxBackoffSeconds: 2 } };
  await prepareDir({ dir, config });
  return startAgent({ dir, config, env, wrap: NO_DAC });
}

/** `locked` (mode 000) and the other files, settled, in a fresh agent directory. */
function filesDir(locked: Buffer, others: Record<string, Buffer>): string {
  const dir = makeDir();
  writeSettled(dir, { [LOCKED]: locked, ...others });
  chmodSync(join(dir, 'files', LOCKED), 0);
  return dir;
}

/**
 * A request wakes the agent's loop at its new time. The jump also fires its idle-connection
 * timers, which may close the connection a first request was sent on: a login is tried again.
 */
const wake = (agent: TestAgent) => until('a login after the jump', () => agent.login().catch(() => undefined));

const setAside = (s: Record<string, unknown>) => (s.failed as { path: string; error: string; since: string }[]) ?? [];

const test = suite('outbox: set-aside files tried again');

test('a file it cannot read is set aside (failed, not pending, event failed); POST retry ships it once readable', async () => {
  const c = await startCollector();
  const locked = randomBytes(12_000);
  const other = randomBytes(8_000);
  const dir = filesDir(locked, { 'recordings/other.wav': other });
  const agent = await agentFor(c, dir);
  try {
    const token = await agent.login();
    const events = await openEvents(agent.port, bearer(token));
    try {
      const s = await stateWhen(
        agent,
        token,
        'one uploaded, one set aside',
        (x) => x.uploaded.files === 1 && setAside(x).length === 1,
        30_000,
      );
      assert.ok(c.stored.get('/in/recordings/other.wav')?.equals(other));
      assert.equal(
        setAside(s).map((f) => [f.path, f.error]),
        [[LOCKED, 'cannot read the file: EACCES']],
      );
      assert.ok(!Number.isNaN(Date.parse(setAside(s)[0]!.since)), setAside(s)[0]!.since);
      assert.equal([s.state, s.pending], ['idle', { files: 0, bytes: 0 }], 'a set-aside file is not pending');
      const before = statSync(join(agent.baseDir, LOCKED));
      chmodSync(join(agent.baseDir, LOCKED), 0o644);
      const after = statSync(join(agent.baseDir, LOCKED));
      assert.equal([after.size, after.mtimeMs, after.ino], [before.size, before.mtimeMs, before.ino], 'the same file for the outbox');
      const res = await fetch(`${agent.url}/api/v1/outbox/retry`, { method: 'POST', headers: bearer(token) });
      assert.is(res.status, 202, await res.text());
      const done = await stateWhen(agent, token, 'the retry shipped it', (x) => x.uploaded.files === 2, 30_000);
      assert.equal(setAside(done), []);
      assert.ok(c.stored.get(`/in/${LOCKED}`)?.equals(locked));
      // Its set-aside was told on the stream (it may precede the stream's opening: then the start's
      // scan found it before; the retry's upload comes after).
      const [uploaded] = await events.waitFor(
        (e) => e.event === 'outbox' && e.data.includes('"uploaded"') && e.data.includes('locked'),
        1,
        20_000,
      );
      assert.equal(JSON.parse(uploaded!.data), { path: LOCKED, outcome: 'uploaded', bytes: 12_000 });
    } finally {
      events.close();
    }
  } finally {
    await agent.cleanup();
    c.server.close();
  }
});

test('tried again daily: not by the scans of the next hours, once the agent has run a day', async () => {
  const c = await startCollector();
  const clock = fakeClock('+0');
  // Both clocks jump: the agent's timers (the minute's scan, the daily retry) fire at the jump.
  const { FAKETIME_DONT_FAKE_MONOTONIC: _, ...env } = clock.env;
  const locked = randomBytes(9_000);
  const dir = filesDir(locked, {});
  const agent = await agentFor(c, dir, env);
  try {
    let token = await agent.login();
    await stateWhen(agent, token, 'set aside', (x) => setAside(x).length === 1, 30_000);
    chmodSync(join(agent.baseDir, LOCKED), 0o644);
    // A file written by another program: shipped only by a scan, which shows one has run.
    writeSettled(dir, { 'recordings/late.wav': randomBytes(5_000) });
    clock.set('+2h');
    token = await wake(agent);
    const later = await stateWhen(agent, token, 'the scan shipped late.wav', (x) => x.uploaded.files === 1, 30_000);
    assert.ok(c.stored.has('/in/recordings/late.wav'));
    assert.equal(
      setAside(later).map((f) => f.path),
      [LOCKED],
      'an unchanged set-aside file waits for its day',
    );
    clock.set('+25h');
    token = await wake(agent);
    const day = await stateWhen(agent, token, 'the daily retry shipped it', (x) => x.uploaded.files === 2, 30_000);
    assert.equal(setAside(day), []);
    assert.ok(c.stored.get(`/in/${LOCKED}`)?.equals(locked));
  } finally {
    await agent.cleanup();
    clock.cleanup();
    c.server.close();
  }
});

test.run();
