// docs/api.md#every-response: an unexpected failure is 500 {"error":"internal error"} with the detail in the
// log, never a stack trace to the client. The app is built from its real parts in-process;
// the failure comes from the recorder's state getter, the one part that is made to throw.
import { suite } from 'uvu';
import { ApiTokenStore } from '../src/auth/api-tokens.ts';
import { NO_AUDIT } from '../src/audit/trail.ts';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { createApp } from '../src/app.ts';
import { AgentMetrics } from '../src/metrics/agent.ts';
import { Captures } from '../src/audio/captures.ts';
import { LiveStreams } from '../src/audio/live.ts';
import { Recorder } from '../src/audio/recorder.ts';
import { LoginLimiter } from '../src/auth/limiter.ts';
import { Gate } from '../src/auth/passwords.ts';
import { loadSecret } from '../src/auth/secret.ts';
import { Tokens } from '../src/auth/tokens.ts';
import { UserStore } from '../src/auth/users.ts';
import { parseConfig } from '../src/config/config.ts';
import { listen, type RunningServer } from '../src/http/server.ts';
import { prepare } from '../src/serve.ts';
import { StatusSampler } from '../src/status/sampler.ts';
import { ADMIN, prepareDir } from './helpers/agent.ts';
import { bearer, jsonPost } from './helpers/http.ts';
import { EventHub, eventSources } from '../src/events/hub.ts';
import { collectLog } from './helpers/log.ts';
import { eventually } from './helpers/proc.ts';

type Ctx = { dir: string; server: RunningServer; url: string; logged: string[] };
const errors = suite<Ctx>('unexpected failures');

errors.before(async (ctx) => {
  ctx.dir = (await prepareDir()).dir;
  const config = parseConfig(
    { host: '127.0.0.1', port: 0, baseDir: 'files', usersFile: 'users.json', jwtSecretFile: 'jwt.secret', audio: { device: 'null' } },
    ctx.dir,
  );
  prepare(config);
  ctx.logged = [];
  const log = collectLog(ctx.logged);
  const users = new UserStore(config.usersFile, log);
  users.load();
  const tokens = new Tokens(loadSecret(config.jwtSecretFile).secret, config.tokenTtlSeconds, users);
  const captures = new Captures(config.audio.recorder);
  const recorder = new Recorder({
    ...config.audio,
    baseDir: config.baseDir,
    recordingsDir: config.recordingsDir,
    stateFile: join(ctx.dir, 'last-recording.json'),
    log,
    captures,
    maxFileBytes: config.maxFileBytes,
  });
  const sampler = new StatusSampler({
    baseDir: config.baseDir,
    recordingState: () => {
      throw new Error('recorder state exploded');
    },
  });
  const apiTokens = new ApiTokenStore(config.tokensFile, users, log);
  const app = createApp(config, {
    users,
    tokens,
    apiTokens,
    audit: NO_AUDIT,
    limiter: new LoginLimiter(),
    gate: new Gate(1, 64),
    sampler,
    recorder,
    captures,
    live: new LiveStreams(captures),
    events: new EventHub(eventSources(sampler, recorder)),
    log,
    metrics: new AgentMetrics(),
    metricsToken: undefined,
  });
  ctx.server = await listen(app.handler, '127.0.0.1', 0);
  ctx.url = `http://127.0.0.1:${ctx.server.port}`;
});
errors.after(async (ctx) => {
  await ctx.server.close(100);
  rmSync(ctx.dir, { recursive: true, force: true });
});

errors('a failure nobody expected answers 500 internal error, the detail only in the log', async ({ url, logged }) => {
  const login = await jsonPost(`${url}/api/v1/agentusers/loginusertoagent`, ADMIN);
  const { token } = (await login.json()) as { token: string };
  const res = await fetch(`${url}/api/v1/devicestatus/get`, { headers: bearer(token) });
  assert.is(res.status, 500);
  assert.match(res.headers.get('content-type')!, /^application\/json/);
  const text = await res.text();
  assert.equal(JSON.parse(text), { error: 'internal error' });
  assert.not.ok(text.includes('exploded') || text.includes(' at '), 'detail or stack leaked to the client');
  const line = logged.find((l) => l.includes('recorder state exploded'));
  assert.ok(line, 'the detail is logged');
  assert.match(line!, /^<3>GET \/api\/v1\/devicestatus\/get: Error: recorder state exploded\n\s+at /);
  // The request line of a 5xx has priority err too (docs/api.md#systemd); a 200 has info.
  const requestLine = () => logged.find((l) => / \/api\/v1\/devicestatus\/get 500 /.test(l));
  assert.ok(await eventually(() => requestLine() !== undefined, 2000), logged.join('\n'));
  assert.match(requestLine()!, /^<3>GET \/api\/v1\/devicestatus\/get 500 \d+ [\d.]+ms admin$/);
  assert.match(logged.find((l) => l.includes('/loginusertoagent 200 '))!, /^<6>POST /);
});

errors('the agent goes on serving after it', async ({ url }) => {
  const res = await fetch(`${url}/api/v1/health`);
  assert.is(res.status, 200);
});

errors.run();
