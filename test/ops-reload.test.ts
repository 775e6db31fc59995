// docs/api.md#systemd: SIGHUP (`systemctl reload`) re-reads the config and its drop-ins. Restart
// keys keep their running value with a warning; the others apply to new requests; a bad
// config is refused whole with an error naming file and key, and the agent keeps serving.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newUser, writeUsers } from '../src/auth/users.ts';
import { ADMIN, hashOnce, startAgent, type TestAgent } from './helpers/agent.ts';
import { bearer, jsonPost } from './helpers/http.ts';
import { logLines } from './helpers/log.ts';
import { eventually } from './helpers/proc.ts';

const LOGIN = '/api/v1/agentusers/loginusertoagent';

type Ctx = { agent: TestAgent; dropIn: string };
const reload = suite<Ctx>('SIGHUP reload');
reload.before.each(async (ctx) => {
  ctx.agent = await startAgent();
  mkdirSync(join(ctx.agent.dir, 'config.d'));
  ctx.dropIn = join(ctx.agent.dir, 'config.d/50-site.json');
});
reload.after.each(async (ctx) => {
  await ctx.agent.cleanup();
});

/** Sends SIGHUP and waits for the reload's outcome line (applied or refused); returns it. */
async function hup(agent: TestAgent): Promise<{ priority: number; text: string }> {
  const outcome = () => logLines(agent.output()).filter((l) => /^(config reloaded|reload refused)/.test(l.text));
  const before = outcome().length;
  agent.child.kill('SIGHUP');
  assert.ok(await eventually(() => outcome().length > before, 5000), agent.output());
  const { priority, text } = outcome().at(-1)!;
  return { priority, text };
}

const ttlOf = (token: string) => {
  const c = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iat: number; exp: number };
  return c.exp - c.iat;
};

reload(
  "a drop-in's tokenTtlSeconds and maxFileBytes apply to new requests; tokens issued before keep theirs",
  async ({ agent, dropIn }) => {
    const old = await agent.login();
    assert.is(ttlOf(old), 3600);
    writeFileSync(join(agent.baseDir, 'six.bin'), 'x'.repeat(6));
    writeFileSync(dropIn, JSON.stringify({ tokenTtlSeconds: 90, maxFileBytes: 5 }));
    assert.equal(await hup(agent), { priority: 6, text: 'config reloaded: tokenTtlSeconds, maxFileBytes changed' });
    assert.is(ttlOf(await agent.login()), 90);
    const res = await fetch(`${agent.url}/api/download?filepath=six.bin`, { headers: bearer(old) });
    assert.is(res.status, 413, 'the old token still works, and the new limit holds');
    assert.equal(await res.json(), { error: 'file too large, max size is 5 bytes' });
  },
);

reload('audio.maxDurationSeconds applies to the next start', async ({ agent, dropIn }) => {
  const token = await agent.login();
  writeFileSync(dropIn, JSON.stringify({ audio: { maxDurationSeconds: 2 } }));
  assert.is((await hup(agent)).text, 'config reloaded: audio.maxDurationSeconds changed');
  const res = await jsonPost(`${agent.url}/api/v1/audiofiles/audiorecordstart`, { duration: 3, fileExtension: 'wav' }, bearer(token));
  assert.is(res.status, 400);
  assert.equal(await res.json(), { error: 'duration must be a number of seconds above 0 and at most 2' });
});

reload('host, port and directories keep their running value, each with a warning; the rest applies', async ({ agent, dropIn }) => {
  mkdirSync(join(agent.dir, 'other'));
  writeFileSync(dropIn, JSON.stringify({ port: 1, host: '127.0.0.2', baseDir: 'other', tokenTtlSeconds: 60 }));
  assert.equal(await hup(agent), { priority: 6, text: 'config reloaded: tokenTtlSeconds changed' });
  const warnings = logLines(agent.output())
    .filter((l) => l.priority === 4)
    .map((l) => l.text);
  assert.equal(warnings, [
    'reload: host 127.0.0.1 -> 127.0.0.2 needs a restart; keeping the running value',
    'reload: port 0 -> 1 needs a restart; keeping the running value',
    `reload: baseDir ${agent.baseDir} -> ${join(agent.dir, 'other')} needs a restart; keeping the running value`,
    // uploadDir and recordingsDir follow baseDir by default: they change with it.
    `reload: uploadDir ${agent.baseDir} -> ${join(agent.dir, 'other')} needs a restart; keeping the running value`,
    `reload: recordingsDir ${agent.baseDir}/recordings -> ${join(agent.dir, 'other')}/recordings needs a restart; keeping the running value`,
  ]);
  assert.is(ttlOf(await agent.login()), 60, 'served on the running port');
});

reload('a bad drop-in is refused whole, naming file and key; the agent serves on; a fixed one then applies', async ({ agent, dropIn }) => {
  writeFileSync(dropIn, JSON.stringify({ tokenTtlSeconds: 60, audio: { recorder: 'ffmpeg' } }));
  assert.equal(await hup(agent), {
    priority: 3,
    text: `reload refused, the running config stays: ${dropIn}: audio.recorder: must be "sox" or "arecord", got "ffmpeg"`,
  });
  assert.is(ttlOf(await agent.login()), 3600, 'nothing of the refused config applied');
  writeFileSync(dropIn, '{"tokenTtlSeconds": ');
  assert.match((await hup(agent)).text, `reload refused, the running config stays: config: ${dropIn} is not valid JSON`);
  writeFileSync(dropIn, JSON.stringify({ tokenTtlSeconds: 60 }));
  assert.equal(await hup(agent), { priority: 6, text: 'config reloaded: tokenTtlSeconds changed' });
  assert.is(ttlOf(await agent.login()), 60);
});

reload(
  'a new usersFile applies (read per use); one that does not load is refused naming the file that set it',
  async ({ agent, dropIn }) => {
    const other = join(agent.dir, 'other-users.json');
    writeUsers(other, [newUser('carol', await hashOnce('carol-password'))]);
    writeFileSync(dropIn, JSON.stringify({ usersFile: 'other-users.json' }));
    assert.is((await hup(agent)).text, 'config reloaded: usersFile changed');
    assert.is((await agent.login('carol', 'carol-password')).split('.').length, 3);
    assert.is((await jsonPost(agent.url + LOGIN, ADMIN)).status, 401, "the old file's users are gone");

    writeFileSync(join(agent.dir, 'broken.json'), '{"users": [');
    writeFileSync(dropIn, JSON.stringify({ usersFile: 'broken.json' }));
    const refused = await hup(agent);
    assert.is(refused.priority, 3);
    assert.match(refused.text, `reload refused, the running config stays: ${dropIn}: usersFile: `);
    assert.match(refused.text, join(agent.dir, 'broken.json'));
    assert.is((await agent.login('carol', 'carol-password')).split('.').length, 3, 'the running users stay');
  },
);

reload('SIGHUP with nothing changed says so and serves on', async ({ agent }) => {
  assert.equal(await hup(agent), { priority: 6, text: 'config reloaded: no change' });
  assert.is((await fetch(`${agent.url}/api/v1/health`)).status, 200);
  assert.is(agent.child.exitCode, null);
});

reload.run();
