// Operations called without HTTP (src/ops/invoke.ts), as the MQTT link calls them: the
// same validation, scope check, audit of refusals and error texts as the HTTP routes.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Principal } from '../src/auth/scopes.ts';
import { loadConfig } from '../src/config/files.ts';
import { parseSchedule } from '../src/schedule/document.ts';
import { compile, previewShown } from '../src/schedule/windows.ts';
import { dayOfDate } from '../src/schedule/zone.ts';
import { type Agent, startAgent } from '../src/serve.ts';

type Ctx = { agent: Agent; dir: string };
const ops = suite<Ctx>('operations without HTTP');

const quiet = { error: () => {}, warn: () => {}, info: () => {} };

ops.before(async (ctx) => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'da-ops-'));
  mkdirSync(join(ctx.dir, 'files/sub'), { recursive: true });
  writeFileSync(join(ctx.dir, 'files/sub/a.txt'), 'a');
  writeFileSync(join(ctx.dir, 'users.json'), '{"users": []}');
  writeFileSync(
    join(ctx.dir, 'config.json'),
    JSON.stringify({
      host: '127.0.0.1',
      port: 0,
      baseDir: 'files',
      usersFile: 'users.json',
      jwtSecretFile: 'jwt.secret',
      audit: { file: 'audit.log' },
      audio: { device: 'null' },
    }),
  );
  ctx.agent = await startAgent(loadConfig(join(ctx.dir, 'config.json')), { firstRunAdmin: false, log: quiet, announce: () => {} });
});
ops.after(async (ctx) => {
  await ctx.agent?.stop(0);
  if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
});

const mqtt = (...scopes: Principal['scopes'] extends ReadonlySet<infer S> ? S[] : never): Principal => ({
  id: '',
  username: 'mqtt',
  scopes: new Set(scopes),
  directory: null,
  credential: 'mqtt',
});

ops('status, files list and the recording run by action with their HTTP answers', async ({ agent }) => {
  const who = mqtt('status', 'audio', 'files:read');
  const status = await agent.operations.command('status', who, {}, 'broker');
  assert.is(status.status, 200);
  assert.type((status.body as { hostname: string }).hostname, 'string');

  const list = await agent.operations.command('files/list', who, { path: 'sub' }, 'broker');
  assert.equal(list, {
    status: 200,
    body: { path: 'sub', entries: [{ name: 'a.txt', type: 'file', sizeBytes: 1, modifiedAt: (list.body as any).entries[0].modifiedAt }] },
  });

  const started = await agent.operations.command('recording/start', who, { duration: 30, fileExtension: 'flac' }, 'broker');
  assert.is(started.status, 202, JSON.stringify(started.body));
  assert.is((started.body as { sampleRate: number }).sampleRate, 48000);
  const again = await agent.operations.invoke('recordStart', who, { duration: 30, fileExtension: 'flac' }, 'broker');
  assert.equal(again, { status: 409, body: { error: 'a recording is already in progress' } });
  const running = await agent.operations.command('recording/status', who, {}, 'broker');
  assert.is(running.status, 200);
  assert.is((running.body as { state: string }).state, 'recording');
  const stopped = await agent.operations.command('recording/stop', who, {}, 'broker');
  assert.is(stopped.status, 200, JSON.stringify(stopped.body));
  assert.is((stopped.body as { stoppedBy: string }).stoppedBy, 'request');
});

ops('inputs are checked as over HTTP: the same texts', async ({ agent }) => {
  const who = mqtt('audio', 'files:read');
  const o = agent.operations;
  assert.equal(await o.command('recording/start', who, { duration: 1, fileExtension: 'flac', gain: 3 }, 'b'), {
    status: 400,
    body: { error: 'gain is not a field of a recording start' },
  });
  assert.equal(await o.command('recording/start', who, { fileExtension: 'flac' }, 'b'), {
    status: 400,
    body: { error: 'duration must be a number of seconds above 0 and at most 3600' },
  });
  assert.equal(await o.command('recording/start', who, [1], 'b'), {
    status: 400,
    body: { error: 'request body must be a JSON object (Content-Type: application/json)' },
  });
  assert.equal(await o.command('files/list', who, { path: 5 }, 'b'), { status: 400, body: { error: 'path must be a string' } });
  assert.equal(await o.command('audio/level', who, { seconds: 11 }, 'b'), {
    status: 400,
    body: { error: 'seconds must be a number from 0.2 to 10' },
  });
  assert.equal(await o.command('nope/never', who, {}, 'b'), { status: 404, body: { error: 'unknown command: nope/never' } });
});

ops('an operation that answers bytes (the preview) answers the same value without HTTP', async ({ agent }) => {
  const schedule = {
    location: { latitude: 51.5, longitude: -0.13 },
    timeZone: 'Europe/London',
    windows: [{ start: 'sunrise-30m', end: 'sunrise+1h', duty: { onSeconds: 600, offSeconds: 300 } }],
  };
  const got = await agent.operations.invoke('schedulePreviewProposed', mqtt('audio'), { schedule, from: '2026-03-28', days: 3 }, 'b');
  assert.equal(got, { status: 200, body: previewShown(compile(parseSchedule(schedule)), dayOfDate('2026-03-28')!, 3) });
});

/** The first `denied` event of the audit file from this client, waited for. */
async function deniedFrom(dir: string, client: string): Promise<Record<string, unknown> | undefined> {
  const deadline = Date.now() + 5000;
  let line: Record<string, unknown> | undefined;
  while (!line && Date.now() < deadline) {
    const text = (() => {
      try {
        return readFileSync(join(dir, 'audit.log'), 'utf8');
      } catch {
        return '';
      }
    })();
    line = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((e) => e.event === 'denied' && e.client === client);
    if (!line) await new Promise((r) => setTimeout(r, 50));
  }
  return line;
}

ops('a command without its scope is 403 and audited denied with the credential', async ({ agent, dir }) => {
  const got = await agent.operations.command('recording/stop', mqtt('status'), {}, 'broker.example');
  assert.equal(got, { status: 403, body: { error: 'insufficient scope: audio is required' } });
  const line = await deniedFrom(dir, 'broker.example');
  assert.ok(line, 'no denied event');
  assert.is(line!.credential, 'mqtt');
  assert.is(line!.reason, 'insufficient scope: audio is required');
  assert.is(line!.status, 403);
});

ops("a path outside the credential's directory is 403, audited with the paths as asked, not the route", async ({ agent, dir }) => {
  const confined: Principal = { ...mqtt('files:write'), directory: 'sub' };
  const got = await agent.operations.command('files/move', confined, { from: 'outside.txt', to: 'sub/b.txt' }, 'broker.confined');
  assert.equal(got, { status: 403, body: { error: 'file path is not allowed' } });
  const line = await deniedFrom(dir, 'broker.confined');
  assert.ok(line, 'no denied event');
  assert.equal(
    { path: line!.path, to: line!.to, credential: line!.credential, status: line!.status, reason: line!.reason },
    { path: 'outside.txt', to: 'sub/b.txt', credential: 'mqtt', status: 403, reason: 'file path is not allowed' },
  );
});

ops.run();
