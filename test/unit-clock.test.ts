// The device id and the clock's two questions (docs/behaviour.md#the-clock): synchronized
// (the kernel's flag, timesyncd's file, or clock.syncedFile) and plausible (not before the build).
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, defaultDeviceId, parseConfig } from '../src/config/config.ts';
import { nativeAddon } from '../src/native/addon.ts';
import { BUILD_TIME, clockPlausible, clockSynchronized, monotonicMs } from '../src/util/clock.ts';
import { makeDir } from './helpers/agent.ts';

const parse = (raw: Record<string, unknown>) => parseConfig(raw, '/etc/device-agent');
const refused = (raw: Record<string, unknown>, message: string) => {
  try {
    parse(raw);
  } catch (err) {
    assert.instance(err, ConfigError);
    assert.is((err as Error).message, message);
    return;
  }
  assert.unreachable(`accepted ${JSON.stringify(raw)}`);
};

const id = suite('deviceId');

id('defaults to the short hostname, other characters made -, cut to 64', () => {
  assert.is(defaultDeviceId('pi-kitchen.example.org'), 'pi-kitchen');
  assert.is(defaultDeviceId('Pi 4+audio_2.local'), 'Pi-4-audio_2');
  assert.is(defaultDeviceId('x'.repeat(70)), 'x'.repeat(64));
  assert.is(defaultDeviceId('.local'), 'device');
  assert.is(parse({}).deviceId, defaultDeviceId());
  assert.match(parse({}).deviceId, /^[A-Za-z0-9_-]{1,64}$/);
});

id('takes 1 to 64 of [A-Za-z0-9_-] and refuses anything else, naming the key', () => {
  assert.is(parse({ deviceId: 'bench-7_B' }).deviceId, 'bench-7_B');
  assert.is(parse({ deviceId: 'a'.repeat(64) }).deviceId, 'a'.repeat(64));
  const text = 'deviceId: must be 1 to 64 of the characters A-Z a-z 0-9 _ -';
  for (const bad of ['', 'a.b', 'a/b', 'a b', 'a'.repeat(65), 7, null]) refused({ deviceId: bad }, text);
});

const config = suite('clock.syncedFile');

config('defaults to null; a relative path resolves beside the config', () => {
  assert.equal(parse({}).clock, { syncedFile: null });
  assert.equal(parse({ clock: null }).clock, { syncedFile: null });
  assert.equal(parse({ clock: { syncedFile: null } }).clock, { syncedFile: null });
  assert.equal(parse({ clock: { syncedFile: 'synced' } }).clock, { syncedFile: '/etc/device-agent/synced' });
});

config('refuses what is not a path, and unknown keys', () => {
  refused({ clock: { syncedFile: '' } }, 'clock.syncedFile: must be a non-empty string');
  refused({ clock: { syncedFile: 3 } }, 'clock.syncedFile: must be a non-empty string');
  refused({ clock: { synced: true } }, 'clock.synced: unknown key');
  refused({ clock: 'yes' }, 'clock: must be an object');
});

const synced = suite('clockSynchronized');

synced('with a syncedFile, that file alone decides', () => {
  const dir = makeDir();
  try {
    const file = join(dir, 'synced');
    assert.is(clockSynchronized(file), false);
    writeFileSync(file, '');
    assert.is(clockSynchronized(file), true);
    rmSync(file);
    assert.is(clockSynchronized(file), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** STA_UNSYNC as the kernel reports it, read through glibc by another program (python3's ctypes). */
function kernelUnsynced(): boolean {
  const status = execFileSync(
    'python3',
    [
      '-c',
      // struct timex on 64-bit Linux: modes (int, padded), offset, freq, maxerror, esterror (longs), then status.
      'import ctypes,struct;b=ctypes.create_string_buffer(512);ctypes.CDLL(None).adjtimex(b);print(struct.unpack_from("i",b,40)[0])',
    ],
    { encoding: 'utf8' },
  );
  return (Number(status) & 0x40) !== 0;
}

synced('without one, the kernel flag or timesyncd file decides', () => {
  const addon = nativeAddon();
  if (addon instanceof Error) throw addon;
  const status = addon.adjtimex();
  assert.ok(status >= 0, `adjtimex: ${status}`);
  assert.is((status & 0x40) !== 0, kernelUnsynced(), 'the addon reads the same STA_UNSYNC as glibc');
  const expected = !kernelUnsynced() || existsSync('/run/systemd/timesync/synchronized');
  assert.is(clockSynchronized(null), expected);
});

const plausible = suite('clockPlausible');

plausible('a wall clock before the build time is implausible, from it on plausible', () => {
  assert.is(clockPlausible(BUILD_TIME - 1), false);
  assert.is(clockPlausible(0), false);
  assert.is(clockPlausible(BUILD_TIME), true);
  assert.is(clockPlausible(), true, 'this machine has a set clock');
  // From source there is no build: the fixed floor (docs/behaviour.md#the-clock).
  assert.is(BUILD_TIME, Date.UTC(2026, 10, 28));
});

plausible('the monotonic clock moves forward', () => {
  const a = monotonicMs();
  const b = monotonicMs();
  assert.ok(b >= a && a > 0);
});

id.run();
config.run();
synced.run();
plausible.run();
