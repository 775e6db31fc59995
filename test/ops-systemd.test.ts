// Type=notify for real, without systemd as PID 1: test/helpers/fake-systemd.c binds the
// notification socket (a path, or an abstract name), starts a real agent, prints every
// datagram, and keeps the file-descriptor store as systemd does (src/systemd/).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { prepareDir } from './helpers/agent.ts';
import { underFakeSystemd, type FakeSystemd, type Message } from './helpers/fake-systemd.ts';
import { bearer, freePort, jsonPost } from './helpers/http.ts';
import { logLines } from './helpers/log.ts';
import { eventually } from './helpers/proc.ts';

const LOGIN = '/api/v1/agentusers/loginusertoagent';
const STATUS = /^READY=1\nSTATUS=serving http:\/\/127\.0\.0\.1:(\d+); recording: idle$/;

type Ctx = { dir: string; sd: FakeSystemd };
const notify = suite<Ctx>('sd_notify');
notify.before.each(async (ctx) => {
  ctx.dir = (await prepareDir()).dir;
});
notify.after.each(async (ctx) => {
  await ctx.sd?.quit();
  rmSync(ctx.dir, { recursive: true, force: true });
});

const portOf = (m: Message) => Number(STATUS.exec(m.text)![1]);

for (const kind of ['path', 'abstract'] as const) {
  notify(`READY=1 with the address once the port listens, from the agent's own pid (${kind} socket)`, async (ctx) => {
    const socket = kind === 'path' ? join(ctx.dir, 'notify.sock') : `@da-test-notify-${process.pid}-${Date.now()}`;
    ctx.sd = underFakeSystemd(socket, join(ctx.dir, 'config.json'));
    const ready = await ctx.sd.waitFor((m) => m.text.startsWith('READY=1'));
    assert.match(ready.text, STATUS);
    assert.is(ready.pid, readyPid(ctx.sd), 'sent by the main process (NotifyAccess=main)');
    // READY means serving: the port answers, and the users file was loaded before.
    const res = await jsonPost(`http://127.0.0.1:${portOf(ready)}${LOGIN}`, { username: 'admin', password: 'correct horse battery' });
    assert.is(res.status, 200);
  });
}

/** The agent's pid, from its /proc entry under the helper. */
function readyPid(sd: FakeSystemd): number {
  const children = readFileSync(`/proc/${sd.child.pid}/task/${sd.child.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
  assert.is(children.length, 1);
  return children[0]!;
}

notify('the listening socket goes into the store (FDSTORE=1, FDNAME=http) before READY=1', async (ctx) => {
  ctx.sd = underFakeSystemd(join(ctx.dir, 'notify.sock'), join(ctx.dir, 'config.json'));
  const ready = await ctx.sd.waitFor((m) => m.text.startsWith('READY=1'));
  const [stored, ...rest] = ctx.sd.messages();
  assert.equal({ text: stored!.text, fd: stored!.fd }, { text: 'FDSTORE=1\nFDNAME=http', fd: `127.0.0.1 ${portOf(ready)}` });
  assert.is(rest[0]!.text, ready.text);
});

notify('WATCHDOG=1 every half WATCHDOG_USEC from the event loop: none while it is stopped', async (ctx) => {
  ctx.sd = underFakeSystemd(join(ctx.dir, 'notify.sock'), join(ctx.dir, 'config.json'), { WATCHDOG_USEC: '200000' });
  await ctx.sd.waitFor((m) => m.text.startsWith('READY=1'));
  const pings = () => ctx.sd.messages().filter((m) => m.text === 'WATCHDOG=1').length;
  const t0 = pings();
  await new Promise((r) => setTimeout(r, 1000));
  const perSecond = pings() - t0;
  assert.ok(perSecond >= 7 && perSecond <= 12, `${perSecond} pings in 1 s at WATCHDOG_USEC=200000 (every 100 ms)`);
  const pid = readyPid(ctx.sd);
  process.kill(pid, 'SIGSTOP');
  await new Promise((r) => setTimeout(r, 100)); // a datagram already on its way
  const stopped = pings();
  await new Promise((r) => setTimeout(r, 600));
  assert.is(pings(), stopped, 'a stopped agent pinged');
  process.kill(pid, 'SIGCONT');
  assert.ok(await eventually(() => pings() > stopped, 2000), 'no pings after SIGCONT');
});

notify('no watchdog pings without WATCHDOG_USEC, nor when WATCHDOG_PID names another process', async (ctx) => {
  ctx.sd = underFakeSystemd(join(ctx.dir, 'notify.sock'), join(ctx.dir, 'config.json'), { WATCHDOG_USEC: '100000', WATCHDOG_PID: '1' });
  await ctx.sd.waitFor((m) => m.text.startsWith('READY=1'));
  await new Promise((r) => setTimeout(r, 400));
  assert.is(ctx.sd.messages().filter((m) => m.text === 'WATCHDOG=1').length, 0);
});

notify('SIGHUP: RELOADING=1 with MONOTONIC_USEC= (CLOCK_MONOTONIC), then READY=1 again', async (ctx) => {
  ctx.sd = underFakeSystemd(join(ctx.dir, 'notify.sock'), join(ctx.dir, 'config.json'));
  await ctx.sd.waitFor((m) => m.text.startsWith('READY=1'));
  const from = ctx.sd.messages().length;
  const before = monotonicUsec();
  ctx.sd.command('signal 1');
  const reloading = await ctx.sd.waitFor((m) => m.text.startsWith('RELOADING=1'), from);
  const after = monotonicUsec();
  const m = /^RELOADING=1\nMONOTONIC_USEC=(\d+)$/.exec(reloading.text);
  assert.ok(m, reloading.text);
  assert.ok(Number(m![1]) >= before && Number(m![1]) <= after, `${m![1]} not within [${before}, ${after}]`);
  await ctx.sd.waitFor((msg) => msg.text.startsWith('READY=1'), from);
  const texts = ctx.sd
    .messages()
    .slice(from)
    .map((msg) => msg.text)
    .filter((t) => t !== 'WATCHDOG=1');
  assert.is(texts.length, 2, texts.join(' | '));
  assert.is(texts[0], reloading.text);
  assert.match(texts[1]!, STATUS);
});

/** CLOCK_MONOTONIC in µs, as the kernel's boot-based clock: /proc/uptime is CLOCK_BOOTTIME, so read it through Node's hrtime (the same clock). */
const monotonicUsec = () => Number(process.hrtime.bigint() / 1000n);

notify('STATUS= follows the recording state; STOPPING=1 on SIGTERM, exit 0', async (ctx) => {
  writeFileSync(
    join(ctx.dir, 'config.json'),
    JSON.stringify({
      ...JSON.parse(readFileSync(join(ctx.dir, 'config.json'), 'utf8')),
      audio: { device: 'null' },
    }),
  );
  ctx.sd = underFakeSystemd(join(ctx.dir, 'notify.sock'), join(ctx.dir, 'config.json'));
  const ready = await ctx.sd.waitFor((m) => m.text.startsWith('READY=1'));
  const url = `http://127.0.0.1:${portOf(ready)}`;
  const { token } = (await (await jsonPost(url + LOGIN, { username: 'admin', password: 'correct horse battery' })).json()) as {
    token: string;
  };
  const res = await jsonPost(`${url}/api/v1/audiofiles/audiorecordstart`, { duration: 1, fileExtension: 'wav' }, bearer(token));
  assert.is(res.status, 202, await res.text());
  await ctx.sd.waitFor((m) => m.text === `STATUS=serving ${url}; recording: recording`);
  await ctx.sd.waitFor((m) => m.text === `STATUS=serving ${url}; recording: finished`, 0, 10_000);
  ctx.sd.command('signal 15');
  await ctx.sd.waitFor((m) => m.text === 'STOPPING=1');
  assert.ok(await eventually(() => ctx.sd.ends().length === 1, 10_000), ctx.sd.output());
  assert.equal(ctx.sd.ends(), [{ exit: 0 }]);
});

const store = suite<Ctx>('the listening socket across restarts (file-descriptor store)');
store.before.each(async (ctx) => {
  ctx.dir = (await prepareDir()).dir;
});
store.after.each(async (ctx) => {
  await ctx.sd?.quit();
  rmSync(ctx.dir, { recursive: true, force: true });
});

/** Requests on fresh connections, back to back from `clients` loops, until stop(); counts failures. */
function hammer(port: number, clients = 4) {
  let running = true;
  const tally = { ok: 0, failed: [] as string[] };
  const one = () =>
    new Promise<void>((resolve) => {
      const req = get({ host: '127.0.0.1', port, path: '/api/v1/health', agent: false, headers: { Connection: 'close' } }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) tally.ok++;
          else tally.failed.push(String(res.statusCode));
          resolve();
        });
      });
      req.on('error', (err) => {
        tally.failed.push((err as NodeJS.ErrnoException).code ?? err.message);
        resolve();
      });
    });
  const loops = Array.from({ length: clients }, async () => {
    while (running) await one();
  });
  return {
    tally,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return tally;
    },
  };
}

store('a restart hands the socket to the next agent: zero refused connections, zero failed requests', async (ctx) => {
  // A fixed port, as on a device: the one the first start got.
  ctx.sd = underFakeSystemd(join(ctx.dir, 'notify.sock'), join(ctx.dir, 'config.json'));
  const port = portOf(await ctx.sd.waitFor((m) => m.text.startsWith('READY=1')));
  const load = hammer(port);
  await new Promise((r) => setTimeout(r, 300));
  const from = ctx.sd.messages().length;
  ctx.sd.command('restart');
  const second = await ctx.sd.waitFor((m) => m.text.startsWith('READY=1'), from);
  await new Promise((r) => setTimeout(r, 300));
  const tally = await load.stop();
  assert.is(portOf(second), port);
  assert.equal(ctx.sd.ends(), [{ exit: 0 }]);
  assert.equal(tally.failed, [], `${tally.failed.length} failed of ${tally.ok + tally.failed.length}`);
  assert.ok(tally.ok > 50, `only ${tally.ok} requests`);
  // The second agent took the socket over and stored nothing new.
  assert.ok(
    logLines(ctx.sd.output()).some((l) => l.text === `listening socket 127.0.0.1:${port} taken over from systemd`),
    ctx.sd.output(),
  );
  assert.equal(
    ctx.sd
      .messages()
      .slice(from)
      .filter((m) => m.text.startsWith('FDSTORE')),
    [],
  );
});

store('a stored socket for another port is closed and dropped from the store; the configured port is bound and stored', async (ctx) => {
  const file = join(ctx.dir, 'config.json');
  ctx.sd = underFakeSystemd(join(ctx.dir, 'notify.sock'), file);
  const first = portOf(await ctx.sd.waitFor((m) => m.text.startsWith('READY=1')));
  // The operator moves the port (a drop-in), then restarts: the config decides.
  const free = await freePort();
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), port: free }));
  const from = ctx.sd.messages().length;
  ctx.sd.command('restart');
  const ready = await ctx.sd.waitFor((m) => m.text.startsWith('READY=1'), from);
  assert.is(portOf(ready), free);
  assert.equal(
    ctx.sd
      .messages()
      .slice(from)
      .filter((m) => m.text.startsWith('FDSTORE'))
      .map((m) => [m.text, m.fd]),
    [
      ['FDSTOREREMOVE=1\nFDNAME=http', undefined],
      ['FDSTORE=1\nFDNAME=http', `127.0.0.1 ${free}`],
    ],
  );
  const refused = await new Promise<string>((resolve) => {
    get({ host: '127.0.0.1', port: first, path: '/', agent: false }, () => resolve('answered')).on('error', (err) =>
      resolve((err as NodeJS.ErrnoException).code!),
    );
  });
  assert.is(refused, 'ECONNREFUSED', 'the old port is closed, not held');
});

notify.run();
store.run();
