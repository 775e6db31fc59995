import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../src/config/config.ts';
import { readUsers } from '../src/auth/users.ts';
import { startAgent as startInProcess } from '../src/serve.ts';
import { makeDir, prepareDir, runCli, startAgent } from './helpers/agent.ts';
import { jsonPost } from './helpers/http.ts';
import { silentLog } from './helpers/log.ts';

const secret = suite('secret and users file at start');

secret('creates the secret as 64 hex characters with mode 0600 when absent', async () => {
  const agent = await startAgent();
  try {
    const file = join(agent.dir, 'jwt.secret');
    assert.match(readFileSync(file, 'utf8'), /^[0-9a-f]{64}\n$/);
    assert.is(statSync(file).mode & 0o777, 0o600);
  } finally {
    await agent.cleanup();
  }
});

secret('creates recordingsDir at start when it is missing, parents included', async () => {
  const agent = await startAgent({ config: { recordingsDir: 'files/audio/recordings' } });
  try {
    assert.ok(statSync(join(agent.baseDir, 'audio/recordings')).isDirectory());
  } finally {
    await agent.cleanup();
  }
});

const refusals: Array<[string, string, number, RegExp]> = [
  ['an empty secret', '  \n', 0o600, /jwtSecretFile: .* is empty/],
  ['a secret shorter than 32 bytes', 'a'.repeat(31), 0o600, /jwtSecretFile: .* shorter than 32 bytes/],
  ['a secret readable by others', 'a'.repeat(64), 0o604, /jwtSecretFile: .* accessible by others/],
];
for (const [name, text, mode, message] of refusals) {
  secret(`refuses to start with ${name} (exit 78)`, async () => {
    const { dir } = await prepareDir();
    try {
      writeFileSync(join(dir, 'jwt.secret'), text, { mode });
      const r = await runCli(['serve', '--config', join(dir, 'config.json')]);
      assert.is(r.code, 78);
      assert.match(r.stderr, message);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

secret('refuses to start with a corrupt users file (exit 78)', async () => {
  const { dir } = await prepareDir();
  try {
    writeFileSync(join(dir, 'users.json'), 'not json');
    const r = await runCli(['serve', '--config', join(dir, 'config.json')]);
    assert.is(r.code, 78);
    assert.match(r.stderr, /usersFile: users file .* is not valid JSON/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

secret('a users file corrupted at runtime keeps the last good users and says so', async () => {
  const agent = await startAgent();
  try {
    writeFileSync(join(agent.dir, 'users.json'), '{"users": 5}');
    await new Promise((r) => setTimeout(r, 1600));
    assert.match(agent.output(), /expected \{"users": \[\.\.\.\]\}; keeping the last good users \(1\)/);
    const token = await agent.login();
    assert.type(token, 'string');
  } finally {
    await agent.cleanup();
  }
});

const firstRun = suite('first start in development mode');

firstRun('creates user admin with a random password, printed once', async () => {
  const dir = makeDir();
  const lines: string[] = [];
  const config = parseConfig({ host: '127.0.0.1', port: 0, baseDir: 'files', usersFile: 'users.json', jwtSecretFile: 'jwt.secret' }, dir);
  const agent = await startInProcess(config, { firstRunAdmin: true, log: silentLog, announce: (t) => lines.push(t) });
  try {
    assert.is(lines.length, 1);
    const password = /password (\S+)/.exec(lines[0]!)![1]!;
    assert.ok(password.length >= 12);
    assert.equal(
      readUsers(config.usersFile).map((u) => u.username),
      ['admin'],
    );
    const res = await jsonPost(`http://127.0.0.1:${agent.port}/api/v1/agentusers/loginusertoagent`, { username: 'admin', password });
    assert.is(res.status, 200);
  } finally {
    await agent.stop(100);
  }
  // a second start finds the user and prints nothing
  const again = await startInProcess(config, { firstRunAdmin: true, log: silentLog, announce: (t) => lines.push(t) });
  await again.stop(100);
  assert.is(lines.length, 1);
  rmSync(dir, { recursive: true, force: true });
});

secret.run();
firstRun.run();
