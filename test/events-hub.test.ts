// The event hub in-process, on a real HTTP server on port 0 with the real StatusSampler:
// one status refresh per tick whatever the number of streams, none while nobody listens,
// and a client that stops reading is cut instead of holding memory.
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordingRecord } from '../src/audio/record.ts';
import { IDLE } from '../src/audio/record.ts';
import { EVENT_LIMITS, EventHub, type EventSources } from '../src/events/hub.ts';
import { StatusSampler } from '../src/status/sampler.ts';
import { openEvents } from './helpers/sse.ts';
import { connect } from 'node:net';

type Ctx = { server: Server; port: number; hub: EventHub; refreshes: number; emit: (r: RecordingRecord) => void };
const hub = suite<Ctx>('event hub');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FAR = () => ({ user: 'one user', expiresAtMs: Date.now() + 3_600_000, valid: () => true });

hub.before(async (ctx) => {
  const sampler = new StatusSampler({ baseDir: tmpdir(), recordingState: () => 'idle', maxAgeMs: 1000 });
  ctx.refreshes = 0;
  const listeners = new Set<(r: RecordingRecord) => void>();
  const sources: EventSources = {
    // Counts every status the hub asks for: the sampler's own JSON, unchanged.
    statusJson: () => {
      ctx.refreshes++;
      return sampler.json();
    },
    recording: () => IDLE,
    onRecordingChange: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
  ctx.emit = (r) => {
    for (const l of listeners) l(r);
  };
  // The contract's numbers, a smaller buffer bound so that a stalled reader is reached quickly.
  ctx.hub = new EventHub(sources, { ...EVENT_LIMITS, maxBufferedBytes: 64 * 1024 });
  ctx.server = createServer((req, res) => ctx.hub.open(req as never, res, FAR()));
  await new Promise<void>((r) => ctx.server.listen(0, '127.0.0.1', r));
  ctx.port = (ctx.server.address() as { port: number }).port;
});
hub.after((ctx) => {
  ctx.hub.close();
  ctx.server.closeAllConnections();
  ctx.server.close();
});

hub('ten streams share one status refresh per 2 s tick; none at all once they are closed', async (ctx) => {
  const streams = await Promise.all(Array.from({ length: 10 }, () => openEvents(ctx.port, {}, '/')));
  assert.is(ctx.hub.size, 10);
  const opened = ctx.refreshes; // one each at connect
  assert.is(opened, 10);
  await sleep(4300); // two ticks
  assert.is(ctx.refreshes - opened, 2, `${ctx.refreshes - opened} refreshes for 2 ticks of 10 streams`);
  for (const s of streams) assert.is(s.events.filter((e) => e.event === 'status').length, 3);
  // The recording record goes to every stream at once.
  ctx.emit({ ...IDLE, state: 'recording' });
  await Promise.all(streams.map((s) => s.waitFor((e) => e.event === 'recording', 2)));
  for (const s of streams) s.close();
  for (let i = 0; i < 40 && ctx.hub.size > 0; i++) await sleep(25);
  assert.is(ctx.hub.size, 0);
  const idle = ctx.refreshes;
  await sleep(4300);
  assert.is(ctx.refreshes, idle, 'the status was refreshed while no stream was open');
});

hub('a client that stops reading is cut once its backlog passes the bound; the others go on', async (ctx) => {
  const reader = await openEvents(ctx.port, {}, '/');
  // A raw client that sends its request and then never reads: its socket buffers fill.
  const stalled = connect(ctx.port, '127.0.0.1');
  stalled.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  stalled.pause();
  let closed = false;
  stalled.on('close', () => {
    closed = true;
  });
  stalled.on('error', () => {});
  await sleep(200);
  assert.is(ctx.hub.size, 2);
  // Recording events of 64 KiB each: the kernel's buffers take a few, then Node's grows.
  const big = { ...IDLE, error: 'x'.repeat(64 * 1024) };
  for (let i = 0; i < 200 && ctx.hub.size > 1; i++) {
    ctx.emit(big);
    await sleep(5);
  }
  assert.is(ctx.hub.size, 1, 'the stalled stream is still open');
  // Cut on the agent's side (the paused client notices only once it reads again).
  const connections = () => new Promise<number>((r) => ctx.server.getConnections((_e, n) => r(n)));
  for (let i = 0; i < 40 && (await connections()) > 1; i++) await sleep(25);
  assert.is(await connections(), 1, 'the stalled connection was not cut');
  stalled.resume();
  for (let i = 0; i < 40 && !closed; i++) await sleep(25);
  assert.ok(closed, 'the stalled client never saw its connection end');
  assert.ok(reader.events.filter((e) => e.event === 'recording').length > 1);
  reader.close();
});

hub.run();
