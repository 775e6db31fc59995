// docs/api.md#systemd: config.d/*.json drop-ins beside the config file, merged in byte order of their
// names, nested objects key by key; `config show` prints the merge, `config check` names the
// file of a bad key; the service runs on the merge.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, readConfigFiles } from '../src/config/files.ts';
import { ConfigError, defaultDeviceId } from '../src/config/config.ts';
import { makeDir, prepareDir, runCli, startAgent } from './helpers/agent.ts';

type Ctx = { dir: string; main: string; d: string };
const dropins = suite<Ctx>('config.d drop-ins');
dropins.before.each((ctx) => {
  ctx.dir = makeDir('da-dropins-');
  ctx.main = join(ctx.dir, 'config.json');
  ctx.d = join(ctx.dir, 'config.d');
  mkdirSync(ctx.d);
});
dropins.after.each((ctx) => {
  rmSync(ctx.dir, { recursive: true, force: true });
});

const put = (file: string, value: unknown) => writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));

dropins('are merged over the main file in byte order of their names, the last one winning', ({ main, d }) => {
  put(main, { port: 1000, host: '127.0.0.1' });
  // Byte order: 'B' (0x42) < 'a' (0x61); U+FF21 (EF BC A1) < U+1F600 (F0 9F 98 80), the
  // reverse of JavaScript's default UTF-16 order.
  put(join(d, 'a.json'), { port: 1002 });
  put(join(d, 'B.json'), { port: 1001, tokenTtlSeconds: 60 });
  put(join(d, '\u{1F600}.json'), { port: 1004 });
  put(join(d, '\uFF21.json'), { port: 1003 });
  const cf = readConfigFiles(main);
  assert.equal(
    cf.files.map((f) => f.slice(d.length + 1)),
    [main.slice(d.length + 1), 'B.json', 'a.json', '\uFF21.json', '\u{1F600}.json'],
  );
  const c = loadConfig(main);
  assert.is(c.port, 1004);
  assert.is(c.tokenTtlSeconds, 60);
  assert.is(c.host, '127.0.0.1');
});

dropins('merge nested objects key by key; a non-object replaces', ({ main, d }) => {
  put(main, { audio: { recorder: 'arecord', device: 'hw:1' } });
  put(join(d, '10-device.json'), { audio: { device: 'hw:2' } });
  put(join(d, '20-length.json'), { audio: { maxDurationSeconds: 60 } });
  assert.equal(loadConfig(main).audio, {
    recorder: 'arecord',
    device: 'hw:2',
    maxDurationSeconds: 60,
    retention: { maxCount: null, maxBytes: null, maxAgeDays: null },
    minFreeBytes: 104857600,
  });
});

dropins('other files, hidden files and directories there are ignored', ({ main, d }) => {
  put(main, { port: 1000 });
  for (const name of ['README', '50-port.json.bak', '50-port.json~', '.50-port.json', 'x.conf', '50-port.json.dpkg-dist'])
    put(join(d, name), 'not json at all');
  mkdirSync(join(d, 'dir.json'));
  assert.is(loadConfig(main).port, 1000);
  assert.equal(readConfigFiles(main).files, [main]);
});

dropins('a symlinked drop-in is read (config management links them); a dangling one names its file', ({ dir, main, d }) => {
  put(main, { port: 1000 });
  put(join(dir, 'site.json'), { port: 1001 });
  symlinkSync(join(dir, 'site.json'), join(d, '50-site.json'));
  assert.is(loadConfig(main).port, 1001);
  symlinkSync(join(dir, 'gone.json'), join(d, '60-gone.json'));
  assert.throws(
    () => loadConfig(main),
    (err: Error) => err instanceof ConfigError && err.message === `config: cannot read ${join(d, '60-gone.json')}: ENOENT`,
  );
});

dropins("relative paths in a drop-in resolve against the main file's directory", ({ dir, main, d }) => {
  put(main, { baseDir: 'files' });
  put(join(d, '50-paths.json'), { usersFile: 'state/users.json', baseDir: 'data' });
  const c = loadConfig(main);
  assert.is(c.baseDir, join(dir, 'data'));
  assert.is(c.usersFile, join(dir, 'state/users.json'));
});

dropins('no config.d directory is no drop-in', ({ main, d }) => {
  rmSync(d, { recursive: true });
  put(main, { port: 1000 });
  assert.is(loadConfig(main).port, 1000);
});

const badCases: Array<[string, unknown, (file: string) => string]> = [
  ['a bad value', { port: 'x' }, (f) => `${f}: port: must be an integer`],
  ['a bad nested value', { audio: { recorder: 'ffmpeg' } }, (f) => `${f}: audio.recorder: must be "sox" or "arecord", got "ffmpeg"`],
  ['an unknown key', { prot: 1 }, (f) => `${f}: prot: unknown key`],
  ['an array', [1], (f) => `config: ${f} must hold a JSON object`],
  ['broken JSON', '{"port": ', (f) => `config: ${f} is not valid JSON: `],
];
for (const [what, content, message] of badCases) {
  dropins(`${what} in a drop-in is an error naming that file`, ({ main, d }) => {
    put(main, { port: 1000, audio: { recorder: 'sox' } });
    put(join(d, '10-good.json'), { host: '127.0.0.1' });
    const bad = join(d, '50-bad.json');
    put(bad, content);
    assert.throws(
      () => loadConfig(main),
      (err: Error) => err instanceof ConfigError && err.message.startsWith(message(bad)),
    );
  });
}

dropins('a bad key in the main file names the main file', ({ main, d }) => {
  put(main, { port: 'x' });
  put(join(d, '10-good.json'), { host: '127.0.0.1' });
  assert.throws(
    () => loadConfig(main),
    (err: Error) => err.message === `${main}: port: must be an integer`,
  );
});

const cli = suite('config show and config check');

cli('config show prints the merged config, defaults filled in and paths resolved, as JSON', async () => {
  const { dir } = await prepareDir();
  try {
    mkdirSync(join(dir, 'config.d'));
    put(join(dir, 'config.d/50-site.json'), {
      port: 8443,
      audio: { device: 'hw:3' },
      maxFileBytes: 1024,
      metrics: { tokenFile: 'scrape.token' },
    });
    const r = await runCli(['config', 'show', '--config', join(dir, 'config.json')]);
    assert.is(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout), {
      host: '127.0.0.1',
      port: 8443,
      baseDir: join(dir, 'files'),
      uploadDir: join(dir, 'files'),
      recordingsDir: join(dir, 'files/recordings'),
      usersFile: join(dir, 'users.json'),
      tokensFile: join(dir, 'tokens.json'),
      scheduleFile: join(dir, 'schedule.json'),
      jwtSecretFile: join(dir, 'jwt.secret'),
      tokenTtlSeconds: 3600,
      maxFileBytes: 1024,
      audio: {
        recorder: 'sox',
        device: 'hw:3',
        maxDurationSeconds: 3600,
        retention: { maxCount: null, maxBytes: null, maxAgeDays: null },
        minFreeBytes: 104857600,
      },
      tls: null,
      metrics: { enabled: true, tokenFile: join(dir, 'scrape.token') },
      audit: { file: null },
      outbox: null,
      mqtt: null,
      deviceId: defaultDeviceId(),
      clock: { syncedFile: null },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

cli('config check and serve refuse a bad drop-in with exit 78, naming the file and the key', async () => {
  const { dir } = await prepareDir();
  try {
    mkdirSync(join(dir, 'config.d'));
    const bad = join(dir, 'config.d/50-site.json');
    put(bad, { audio: { maxDurationSeconds: 'long' } });
    const checked = await runCli(['config', 'check', '--config', join(dir, 'config.json')]);
    assert.is(checked.code, 78);
    assert.is(checked.stderr, `device-agent: config error: ${bad}: audio.maxDurationSeconds: must be a number above 0 and at most 86400\n`);
    const served = await runCli(['serve', '--config', join(dir, 'config.json')]);
    assert.is(served.code, 78);
    assert.is(
      served.stderr,
      `<3>device-agent: config error: ${bad}: audio.maxDurationSeconds: must be a number above 0 and at most 86400\n`,
    );
    const shown = await runCli(['config', 'show', '--config', join(dir, 'config.json')]);
    assert.is(shown.code, 78);
    assert.is(shown.stdout, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

cli("the service runs on the merge: a drop-in's tokenTtlSeconds is the tokens' lifetime", async () => {
  const { dir } = await prepareDir();
  mkdirSync(join(dir, 'config.d'));
  put(join(dir, 'config.d/50-ttl.json'), { tokenTtlSeconds: 120 });
  const agent = await startAgent({ dir });
  try {
    const token = await agent.login();
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iat: number; exp: number };
    assert.is(claims.exp - claims.iat, 120);
  } finally {
    await agent.cleanup();
  }
});

dropins.run();
cli.run();
