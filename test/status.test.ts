import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadPercent, parseCpuModel, parseMeminfo, parseOsRelease, parseProcStat } from '../src/status/probes.ts';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { bearer } from './helpers/http.ts';
import { PKG_VERSION } from './helpers/version.ts';

const probes = suite('status probes');

probes('parses /proc/stat and computes load between two readings', () => {
  const a = parseProcStat('cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 1 2 3 4\n')!;
  const b = parseProcStat('cpu  150 0 150 900 0 0 0 0 0 0\n')!;
  assert.equal(a, { idle: 800, total: 1000 });
  assert.is(loadPercent(a, b), 50);
  assert.is(loadPercent(a, a), null);
  assert.is(parseProcStat('garbage'), undefined);
});

probes('parses /proc/meminfo: used = total - available', () => {
  const m = parseMeminfo('MemTotal:        1000 kB\nMemFree:          100 kB\nMemAvailable:     400 kB\n');
  assert.equal(m, { totalBytes: 1024000, usedBytes: 614400, availableBytes: 409600 });
  assert.is(parseMeminfo('nothing'), undefined);
});

probes('reads distro and release from os-release', () => {
  assert.equal(parseOsRelease('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\n'), {
    distro: 'Debian GNU/Linux',
    release: '12',
  });
  assert.equal(parseOsRelease('NAME=Arch\nBUILD_ID=rolling\n'), { distro: 'Arch', release: 'rolling' });
  assert.equal(parseOsRelease(''), { distro: 'unknown', release: 'unknown' });
});

probes('reads the CPU model from x86 and Raspberry Pi cpuinfo', () => {
  assert.is(parseCpuModel('processor\t: 0\nmodel name\t: AMD EPYC 7B13\n'), 'AMD EPYC 7B13');
  assert.is(
    parseCpuModel('processor\t: 0\nBogoMIPS\t: 108.00\nHardware\t: BCM2835\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n'),
    'BCM2835',
  );
  assert.is(parseCpuModel('processor\t: 0\nModel\t\t: Raspberry Pi 5 Model B Rev 1.0\n'), 'Raspberry Pi 5 Model B Rev 1.0');
  assert.is(parseCpuModel('nothing'), undefined);
});

const status = suite<{ agent: TestAgent; token: string }>('device status');
status.before(async (ctx) => {
  ctx.agent = await startAgent();
  ctx.token = await ctx.agent.login();
});
status.after(async (ctx) => {
  await ctx.agent.cleanup();
});

type Rec = Record<string, any>;
const get = async (ctx: { agent: TestAgent; token: string }): Promise<Rec> => {
  const res = await fetch(`${ctx.agent.url}/api/v1/devicestatus/get`, { headers: bearer(ctx.token) });
  assert.is(res.status, 200);
  return res.json() as Promise<Rec>;
};

const num = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
const numOrNull = (v: unknown) => v === null || num(v);

status('answers every field of the contract with the right types', async (ctx) => {
  const s = await get(ctx);
  assert.equal(
    Object.keys(s).sort(),
    [
      'agent',
      'arch',
      'clock',
      'cpu',
      'deviceId',
      'disk',
      'distro',
      'hostname',
      'kernel',
      'memory',
      'network',
      'platform',
      'recording',
      'release',
      'time',
      'uptimeSeconds',
    ].sort(),
  );
  for (const k of ['hostname', 'platform', 'distro', 'release', 'kernel', 'arch']) assert.type(s[k], 'string', k);
  assert.is(s.platform, 'linux');
  assert.ok(num(s.uptimeSeconds) && s.uptimeSeconds > 0);
  assert.ok(Math.abs(Date.parse(s.time) - Date.now()) < 5000, 'time is ISO 8601 and current');
  assert.equal(Object.keys(s.cpu).sort(), ['cores', 'loadPercent', 'model', 'temperatureCelsius']);
  assert.type(s.cpu.model, 'string');
  assert.ok(Number.isInteger(s.cpu.cores) && s.cpu.cores >= 1);
  assert.ok(numOrNull(s.cpu.loadPercent) && numOrNull(s.cpu.temperatureCelsius));
  assert.equal(Object.keys(s.memory).sort(), ['availableBytes', 'totalBytes', 'usedBytes']);
  assert.ok(s.memory.totalBytes > 0 && s.memory.usedBytes + s.memory.availableBytes === s.memory.totalBytes);
  assert.is(s.disk.path, ctx.agent.baseDir);
  assert.ok(s.disk.totalBytes > 0 && s.disk.availableBytes >= 0 && s.disk.usedBytes >= 0);
  assert.ok(Array.isArray(s.network));
  for (const n of s.network) {
    assert.equal(Object.keys(n).sort(), ['iface', 'ipv4', 'ipv6', 'mac']);
    assert.ok(Array.isArray(n.ipv4) && Array.isArray(n.ipv6));
  }
  assert.is(s.agent.version, PKG_VERSION);
  assert.ok(num(s.agent.uptimeSeconds));
  assert.equal(s.recording, { state: 'idle' });
});

status('figures are at most 2 seconds old', async (ctx) => {
  const a = await get(ctx);
  await new Promise((r) => setTimeout(r, 2100));
  const b = await get(ctx);
  assert.ok(Date.parse(b.time) - Date.parse(a.time) >= 1000, `${a.time} then ${b.time}`);
  assert.ok(Date.now() - Date.parse(b.time) <= 2000);
});

status('concurrent requests share one refresh', async (ctx) => {
  await new Promise((r) => setTimeout(r, 1100)); // let the cached sample go stale
  const all = await Promise.all(Array.from({ length: 20 }, () => get(ctx)));
  assert.is(new Set(all.map((s) => s.time)).size, 1);
});

const identity = suite<{ agent: TestAgent; token: string }>('device id and clock in the status');
identity.before(async (ctx) => {
  ctx.agent = await startAgent({ config: { deviceId: 'bench-7', clock: { syncedFile: 'synced' } } });
  ctx.token = await ctx.agent.login();
});
identity.after(async (ctx) => {
  await ctx.agent.cleanup();
});

identity('answers the configured deviceId and clock.synchronized as clock.syncedFile says', async (ctx) => {
  const first = await get(ctx);
  assert.is(first.deviceId, 'bench-7');
  assert.equal(first.clock, { synchronized: false });
  writeFileSync(join(ctx.agent.dir, 'synced'), '');
  const deadline = Date.now() + 10_000;
  let s = first;
  while (!s.clock.synchronized && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    s = await get(ctx);
  }
  assert.equal(s.clock, { synchronized: true });
});

probes.run();
status.run();
identity.run();
