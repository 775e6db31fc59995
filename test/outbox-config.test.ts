// `outbox` in the config (docs/outbox.md): off by default, validated at start (exit 78) and on
// reload (refused), naming the key; the secret file read and trimmed, never shown.
import { readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeDir, runCli, startAgent } from './helpers/agent.ts';
import { bearer } from './helpers/http.ts';
import { agentWith } from './helpers/outbox.ts';
import { until } from './helpers/proc.ts';
import { startStore } from './helpers/s3.ts';

const test = suite('outbox config');

const target = { type: 's3', endpoint: 'http://127.0.0.1:9', bucket: 'field', accessKeyId: 'AK', secretAccessKeyFile: 's3.secret' };

async function startFails(outbox: unknown, secret?: string): Promise<string> {
  const dir = makeDir();
  try {
    if (secret !== undefined) writeFileSync(join(dir, 's3.secret'), secret);
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ port: 0, baseDir: dir, usersFile: 'users.json', jwtSecretFile: 'jwt.secret', outbox }),
    );
    const r = await runCli(['serve', '--config', join(dir, 'config.json')]);
    assert.is(r.code, 78, r.stderr);
    return r.stderr
      .replace(`<3>device-agent: config error: ${join(dir, 'config.json')}: `, '')
      .trim()
      .replaceAll(dir, 'DIR');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a bad outbox stops the start with exit 78 naming the key', async () => {
  assert.is(await startFails({ target }), 'outbox.target.secretAccessKeyFile: cannot read DIR/s3.secret: ENOENT');
  assert.is(await startFails({ target }, ' \n'), 'outbox.target.secretAccessKeyFile: DIR/s3.secret is empty');
  assert.is(await startFails({ target, paths: ['../x'] }, 'k'), 'outbox.paths[0]: must lie inside baseDir (DIR), got ../x');
  assert.is(await startFails({ target, paths: ['recordings', '/etc'] }, 'k'), 'outbox.paths[1]: must be relative to baseDir, got /etc');
  assert.is(
    await startFails({ target: { ...target, type: 'ftp' } }, 'k'),
    'outbox.target.type: must be "s3", "presigned" or "http", got "ftp"',
  );
  assert.is(await startFails({ target, speed: 1 }, 'k'), 'outbox.speed: unknown key');
  assert.is(await startFails({ target, maxBackoffSeconds: 1 }, 'k'), 'outbox.maxBackoffSeconds: must be a number from 2 to 86400');
  assert.is(
    await startFails({ target: { ...target, endpoint: 'http://u:p@h' } }, 'k'),
    'outbox.target.endpoint: must not hold a user or password (the secret goes in a file)',
  );
});

test('off by default: the state says off, a retry is refused, nothing of the outbox is loaded', async () => {
  const agent = await startAgent();
  try {
    const token = await agent.login();
    const res = await fetch(`${agent.url}/api/v1/outbox`, { headers: bearer(token) });
    assert.is(res.status, 200);
    assert.equal(await res.json(), { enabled: false, state: 'off' });
    const retry = await fetch(`${agent.url}/api/v1/outbox/retry`, { method: 'POST', headers: bearer(token) });
    assert.is(retry.status, 409);
    assert.equal(await retry.json(), { error: 'the outbox is off (no outbox in the config)' });
    const list = await fetch(`${agent.url}/api/v1/files/list`, { headers: bearer(token) });
    assert.not.ok(JSON.stringify(await list.json()).includes('uploaded'));
  } finally {
    await agent.cleanup();
  }
});

test('a reload whose secret file is gone is refused naming the key; the secret never shows', async () => {
  const store = await startStore();
  const agent = await agentWith(store, {});
  try {
    const token = await agent.login();
    // config show names the secret's file, never its text.
    const shown = await runCli(['config', 'show', '--config', agent.configFile]);
    assert.is(shown.code, 0, shown.stderr);
    const target = (JSON.parse(shown.stdout) as { outbox: { target: Record<string, unknown> } }).outbox.target;
    assert.equal(Object.keys(target).sort(), [
      'accessKeyId',
      'bucket',
      'caFile',
      'endpoint',
      'pathStyle',
      'prefix',
      'region',
      'secretAccessKeyFile',
      'type',
    ]);
    assert.is(target.secretAccessKeyFile, join(agent.dir, 's3.secret'));
    unlinkSync(join(agent.dir, 's3.secret'));
    const config = JSON.parse(readFileSync(agent.configFile, 'utf8'));
    writeFileSync(agent.configFile, JSON.stringify({ ...config, outbox: { ...config.outbox, maxBackoffSeconds: 10 } }));
    agent.child.kill('SIGHUP');
    await until('the refusal', () => agent.output().includes('reload refused') || undefined, 10_000);
    assert.match(
      agent.output(),
      /reload refused, the running config stays: .*outbox\.target\.secretAccessKeyFile: cannot read .*s3\.secret: ENOENT/,
    );
    const state = await fetch(`${agent.url}/api/v1/outbox`, { headers: bearer(token) });
    assert.is(((await state.json()) as { enabled: boolean }).enabled, true);
  } finally {
    await agent.cleanup();
    await store.close();
  }
});

test.run();
