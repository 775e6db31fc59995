import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, defaultDeviceId, parseConfig } from '../src/config/config.ts';
import { makeDir, prepareDir, runCli } from './helpers/agent.ts';

const parse = suite('config parsing');

parse('fills every default', () => {
  const c = parseConfig({}, '/etc/device-agent');
  assert.equal(c, {
    host: '0.0.0.0',
    port: 5050,
    baseDir: '/var/lib/device-agent/files',
    uploadDir: '/var/lib/device-agent/files',
    recordingsDir: '/var/lib/device-agent/files/recordings',
    usersFile: '/var/lib/device-agent/users.json',
    tokensFile: '/var/lib/device-agent/tokens.json',
    scheduleFile: '/var/lib/device-agent/schedule.json',
    jwtSecretFile: '/var/lib/device-agent/jwt.secret',
    tokenTtlSeconds: 3600,
    maxFileBytes: 52428800,
    audio: {
      recorder: 'sox',
      device: 'default',
      maxDurationSeconds: 3600,
      retention: { maxCount: null, maxBytes: null, maxAgeDays: null },
      minFreeBytes: 104857600,
    },
    tls: null,
    metrics: { enabled: true, tokenFile: '/var/lib/device-agent/metrics.token' },
    audit: { file: null },
    outbox: null,
    mqtt: null,
    deviceId: defaultDeviceId(),
    clock: { syncedFile: null },
  });
});

parse('puts the metrics token beside the JWT secret unless named (docs/api.md#metrics)', () => {
  assert.is(parseConfig({ jwtSecretFile: 'state/jwt.secret' }, '/srv/agent').metrics.tokenFile, '/srv/agent/state/metrics.token');
  assert.is(parseConfig({ metrics: { tokenFile: 'scrape.token' } }, '/srv/agent').metrics.tokenFile, '/srv/agent/scrape.token');
  assert.is(parseConfig({ metrics: { enabled: false } }, '/srv').metrics.enabled, false);
});

parse('puts the TLS pair in tls/ beside the JWT secret unless named, as the metrics token (docs/api.md, "HTTPS")', () => {
  const beside = parseConfig({ jwtSecretFile: 'state/jwt.secret', tls: {} }, '/srv/agent').tls!;
  assert.is(beside.certFile, '/srv/agent/state/tls/cert.pem');
  assert.is(beside.keyFile, '/srv/agent/state/tls/key.pem');
  const packaged = parseConfig({ tls: {} }, '/etc/device-agent').tls!;
  assert.is(packaged.certFile, '/var/lib/device-agent/tls/cert.pem');
  assert.is(packaged.keyFile, '/var/lib/device-agent/tls/key.pem');
  const named = parseConfig({ jwtSecretFile: 'state/jwt.secret', tls: { certFile: 'pki/c.pem' } }, '/srv/agent').tls!;
  assert.is(named.certFile, '/srv/agent/pki/c.pem');
  assert.is(named.keyFile, '/srv/agent/state/tls/key.pem');
});

parse('names the metrics key that is wrong', () => {
  assert.throws(() => parseConfig({ metrics: 1 }, '/'), /^metrics: must be an object$/);
  assert.throws(() => parseConfig({ metrics: { token: 'x' } }, '/'), /^metrics\.token: unknown key$/);
  assert.throws(() => parseConfig({ metrics: { enabled: 'yes' } }, '/'), /^metrics\.enabled: must be true or false$/);
  assert.throws(() => parseConfig({ metrics: { tokenFile: '' } }, '/'), /^metrics\.tokenFile: must be a non-empty string$/);
});

parse('resolves relative paths against the config file directory', () => {
  const c = parseConfig({ baseDir: 'files', usersFile: '../u.json' }, '/srv/agent');
  assert.is(c.baseDir, '/srv/agent/files');
  assert.is(c.uploadDir, '/srv/agent/files');
  assert.is(c.recordingsDir, '/srv/agent/files/recordings');
  assert.is(c.usersFile, '/srv/u.json');
});

const bad: Array<[string, unknown, RegExp]> = [
  ['an unknown key', { prot: 1 }, /^prot: unknown key/],
  ['an unknown audio key', { audio: { volume: 3 } }, /^audio\.volume: unknown key/],
  ['a port that is a string', { port: '5050' }, /^port: must be an integer/],
  ['a port out of range', { port: 70000 }, /^port: must be between 0 and 65535/],
  ['a fractional ttl', { tokenTtlSeconds: 1.5 }, /^tokenTtlSeconds: must be an integer/],
  ['a zero maxFileBytes', { maxFileBytes: 0 }, /^maxFileBytes: must be between/],
  ['an empty host', { host: '' }, /^host: must be a non-empty string/],
  ['a recorder that is not sox or arecord', { audio: { recorder: 'ffmpeg' } }, /^audio\.recorder: must be "sox" or "arecord"/],
  ['a negative max duration', { audio: { maxDurationSeconds: -1 } }, /^audio\.maxDurationSeconds:/],
  ['audio that is not an object', { audio: 'sox' }, /^audio: must be an object/],
  ['recordingsDir outside baseDir', { baseDir: '/a', recordingsDir: '/b' }, /^recordingsDir: must lie inside baseDir/],
  ['a sibling that shares the prefix', { baseDir: '/data/base', recordingsDir: '/data/base2' }, /^recordingsDir:/],
  ['an array instead of an object', [], /^config: must be a JSON object/],
];
for (const [name, raw, message] of bad) {
  parse(`refuses ${name}, naming the key`, () => {
    try {
      parseConfig(raw, '/etc');
      assert.unreachable('accepted');
    } catch (err) {
      assert.instance(err, ConfigError);
      assert.match((err as Error).message, message);
    }
  });
}

const start = suite('config at start (exit 78)');

start('a bad config stops the start with exit 78 and names the key', async () => {
  const dir = makeDir();
  try {
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ port: 'x' }));
    const r = await runCli(['serve', '--config', join(dir, 'config.json')]);
    assert.is(r.code, 78);
    // The service's last line is an error for journald (`journalctl -p err` shows it).
    assert.is(r.stderr, `<3>device-agent: config error: ${join(dir, 'config.json')}: port: must be an integer\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

start('a config that is not JSON gives exit 78', async () => {
  const dir = makeDir();
  try {
    writeFileSync(join(dir, 'config.json'), '{ "port": ');
    const r = await runCli(['serve', '--config', join(dir, 'config.json')]);
    assert.is(r.code, 78);
    assert.match(r.stderr, /not valid JSON/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

start('a missing config file gives exit 78 naming the file', async () => {
  const r = await runCli(['serve', '--config', '/nonexistent/device-agent.json']);
  assert.is(r.code, 78);
  assert.match(r.stderr, /\/nonexistent\/device-agent\.json/);
});

start('DEVICE_AGENT_CONFIG is used when --config is absent', async () => {
  const r = await runCli(['config', 'check'], { env: { DEVICE_AGENT_CONFIG: '/nonexistent/env.json' } });
  assert.is(r.code, 78);
  assert.match(r.stderr, /\/nonexistent\/env\.json/);
  assert.match(r.stderr, /^device-agent: config error: /, "a command's message for a person carries no priority");
});

const check = suite('config check');

check('passes on a good config and names what start will create', async () => {
  const { dir } = await prepareDir();
  try {
    const r = await runCli(['config', 'check', '--config', join(dir, 'config.json')]);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /config OK/);
    assert.match(r.stdout, /jwtSecretFile .* will be created at start/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

check('fails with 78 when baseDir does not exist', async () => {
  const { dir } = await prepareDir({ config: { baseDir: 'missing' } });
  try {
    const r = await runCli(['config', 'check', '--config', join(dir, 'config.json')]);
    assert.is(r.code, 78);
    assert.match(r.stderr, /baseDir: .*missing: ENOENT/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

check('fails with 78 when uploadDir is a file', async () => {
  const { dir } = await prepareDir({ config: { uploadDir: 'users.json' } });
  try {
    const r = await runCli(['config', 'check', '--config', join(dir, 'config.json')]);
    assert.is(r.code, 78);
    assert.match(r.stderr, /uploadDir: .*users\.json is not a directory/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

check('fails with 78 when the users file is corrupt', async () => {
  const { dir } = await prepareDir();
  try {
    writeFileSync(join(dir, 'users.json'), '{"users": [{"id": 1}]}');
    const r = await runCli(['config', 'check', '--config', join(dir, 'config.json')]);
    assert.is(r.code, 78);
    assert.match(r.stderr, /usersFile: .*entry 0 is not a valid user/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

check('fails with 78 when the secret file is readable by others', async () => {
  const { dir } = await prepareDir();
  try {
    writeFileSync(join(dir, 'jwt.secret'), 'x'.repeat(64), { mode: 0o644 });
    const r = await runCli(['config', 'check', '--config', join(dir, 'config.json')]);
    assert.is(r.code, 78);
    assert.match(r.stderr, /jwtSecretFile: .*accessible by others/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

check('creates nothing', async () => {
  const { dir } = await prepareDir({ config: { recordingsDir: 'files/rec' } });
  try {
    mkdirSync(join(dir, 'other'));
    const r = await runCli(['config', 'check', '--config', join(dir, 'config.json')]);
    assert.is(r.code, 0, r.stderr);
    const { existsSync } = await import('node:fs');
    assert.not.ok(existsSync(join(dir, 'jwt.secret')));
    assert.not.ok(existsSync(join(dir, 'files/rec')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

parse.run();
start.run();
check.run();
