// What a new user does with the agent's document: generate types with openapi-typescript
// (default options) and call the API with openapi-fetch, each operation with only its
// required inputs. The program type-checks with tsc --strict and no casts, and every call
// succeeds against the agent (issue: a field with a default made required).
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, makeDir, ROOT, startAgent, type TestAgent } from './helpers/agent.ts';
import { documentOperations, STREAMS, tscErrors } from './helpers/operations.ts';

const run = promisify(execFile);

/** The calls, one per JSON operation, with only what each requires. */
const PROGRAM = `
import createClient from 'openapi-fetch';
import type { paths } from './api.ts';

const client = createClient<paths>({ baseUrl: process.env.DEVICE_URL });
const done: Record<string, number> = {};
const login = await client.POST('/api/v1/agentusers/loginusertoagent', {
  body: { username: process.env.DEVICE_USER ?? '', password: process.env.DEVICE_PASSWORD ?? '' },
});
done.login = login.response.status;
if (!login.data) throw new Error('login failed');
const headers = { Authorization: 'Bearer ' + login.data.token };

done.health = (await client.GET('/api/v1/health')).response.status;
done.tls = (await client.GET('/api/v1/tls')).response.status;
done.deviceStatus = (await client.GET('/api/v1/devicestatus/get', { headers })).response.status;
done.audioDevices = (await client.GET('/api/v1/audio/devices', { headers })).response.status;
done.audioLevel = (await client.GET('/api/v1/audio/level', { headers })).response.status;
done.recordStart = (await client.POST('/api/v1/audiofiles/audiorecordstart', { headers, body: { duration: 30, fileExtension: 'flac' } })).response.status;
done.recordStatus = (await client.GET('/api/v1/audiofiles/audiorecordstatus', { headers })).response.status;
done.recordStop = (await client.POST('/api/v1/audiofiles/audiorecordstop', { headers })).response.status;
done.listFiles = (await client.GET('/api/v1/files/list', { headers })).response.status;
done.makeDirectory = (await client.POST('/api/v1/files/mkdir', { headers, body: { path: 'made' } })).response.status;
done.moveFile = (await client.POST('/api/v1/files/move', { headers, body: { from: 'made', to: 'moved' } })).response.status;
done.deleteFile = (await client.DELETE('/api/v1/files', { headers, params: { query: { path: 'moved' } } })).response.status;
const made = await client.POST('/api/v1/tokens', { headers, body: { name: 'generated' } });
done.createToken = made.response.status;
done.listTokens = (await client.GET('/api/v1/tokens', { headers })).response.status;
done.revokeToken = (await client.DELETE('/api/v1/tokens/{id}', { headers, params: { path: { id: made.data ? made.data.id : '' } } })).response.status;
done.listUsers = (await client.GET('/api/v1/users', { headers })).response.status;
done.mqttStatus = (await client.GET('/api/v1/mqtt', { headers })).response.status;
done.outboxState = (await client.GET('/api/v1/outbox', { headers })).response.status;
done.outboxRetry = (await client.POST('/api/v1/outbox/retry', { headers })).response.status;
const windows = [{ start: '01:30', end: '03:00' }];
done.scheduleSet = (await client.PUT('/api/v1/schedule', { headers, body: { windows } })).response.status;
done.scheduleGet = (await client.GET('/api/v1/schedule', { headers })).response.status;
done.schedulePreview = (await client.GET('/api/v1/schedule/preview', { headers })).response.status;
done.schedulePreviewProposed = (await client.POST('/api/v1/schedule/preview', { headers, body: { schedule: { windows } } })).response.status;
done.scheduleClear = (await client.DELETE('/api/v1/schedule', { headers })).response.status;
console.log(JSON.stringify(done));
`;

type Ctx = { agent: TestAgent; dir: string };
const fetchClient = suite<Ctx>('a generated openapi-fetch client');
fetchClient.before(async (ctx) => {
  ctx.dir = makeDir('da-openapi-fetch-');
  // An outbox (to a closed port) so that outboxRetry answers 202 rather than 409.
  const tokenFile = join(ctx.dir, 'outbox-token');
  writeFileSync(tokenFile, 'token\n');
  ctx.agent = await startAgent({ config: { outbox: { target: { type: 'http', url: 'http://127.0.0.1:9/{path}', tokenFile } } } });
});
fetchClient.after(async (ctx) => {
  await ctx.agent?.cleanup();
  if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
});

fetchClient('compiles with tsc --strict and no casts, with only required inputs, and every call succeeds', async ({ agent, dir }) => {
  const doc = await (await fetch(`${agent.url}/docs/openapi.json`)).json();
  writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(doc)));
  writeFileSync(join(dir, 'calls.mts'), PROGRAM);
  assert.not.match(PROGRAM, / as [A-Za-z{]|<[A-Za-z]+>\(?[a-z]/, 'no casts');
  mkdirSync(join(dir, 'node_modules'));
  for (const m of ['openapi-fetch', 'openapi-typescript-helpers', '@types'])
    symlinkSync(join(ROOT, 'node_modules', m), join(dir, 'node_modules', m));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        outDir: 'out',
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        allowImportingTsExtensions: true,
        rewriteRelativeImportExtensions: true,
        types: ['node'],
      },
      files: ['calls.mts'],
    }),
  );
  const checked = await tscErrors(dir);
  assert.is(checked, '', `tsc --strict on the calls:\n${checked}`);
  const out = await run(process.execPath, ['out/calls.mjs'], {
    cwd: dir,
    env: { ...process.env, DEVICE_URL: agent.url, DEVICE_USER: ADMIN.username, DEVICE_PASSWORD: ADMIN.password },
  });
  const done = JSON.parse(out.stdout) as Record<string, number>;
  const failed = Object.entries(done).filter(([, status]) => status < 200 || status > 299);
  assert.equal(failed, [], out.stdout);
  // Every JSON operation of the document is called.
  const ids = documentOperations(doc)
    .map((o) => o.id)
    .filter((id) => !STREAMS.has(id))
    .sort();
  assert.equal(Object.keys(done).sort(), ids);
});

fetchClient.run();
