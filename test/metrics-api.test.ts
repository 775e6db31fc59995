// GET /metrics as a client sees it (docs/api.md#metrics): who may scrape, what is counted,
// and that no client can grow the set of series.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { download, upload } from './helpers/files.ts';
import { bearer, jsonPost } from './helpers/http.ts';
import { metricsToken, samples, scrape, scrapeText } from './helpers/metrics.ts';
import { fdCount } from './helpers/proc.ts';

type Ctx = { agent: TestAgent; token: string };
const api = suite<Ctx>('metrics endpoint');

api.before(async (ctx) => {
  ctx.agent = await startAgent();
  ctx.token = await ctx.agent.login();
});
api.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

const requests = (route: string, method: string, status: number) =>
  `device_agent_http_requests_total{route="${route}",method="${method}",status="${status}"}`;

async function expect401(res: Response, error: string) {
  assert.is(res.status, 401);
  assert.is(res.headers.get('www-authenticate'), 'Bearer');
  assert.equal(await res.json(), { error });
}

api('creates the token file at start: 32 random bytes as hex, mode 0600', ({ agent }) => {
  const st = statSync(join(agent.dir, 'metrics.token'));
  assert.is(st.mode & 0o777, 0o600);
  assert.match(metricsToken(agent), /^[0-9a-f]{64}$/);
});

api('answers the metrics token with the text format', async ({ agent }) => {
  const res = await fetch(`${agent.url}/metrics`, { headers: bearer(metricsToken(agent)) });
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  assert.match(await res.text(), /^device_agent_build_info\{version="\d+\.\d+\.\d+[^"]*"\} 1$/m);
});

api('answers a login token too', async ({ agent, token }) => {
  assert.ok(samples(await scrapeText(agent, token)).has('process_open_fds'));
});

api('refuses no token, a wrong token and a bad JWT with the texts of any route', async ({ agent }) => {
  await expect401(await fetch(`${agent.url}/metrics`), 'missing bearer token');
  await expect401(
    await fetch(`${agent.url}/metrics`, { headers: bearer(metricsToken(agent).replace(/^./, (c) => (c === 'a' ? 'b' : 'a'))) }),
    'malformed authorization header, expected: Bearer <token>',
  );
  await expect401(await fetch(`${agent.url}/metrics`, { headers: bearer('a.b.c') }), 'invalid token');
});

api('the metrics token opens no other route', async ({ agent }) => {
  const headers = bearer(metricsToken(agent));
  const malformed = 'malformed authorization header, expected: Bearer <token>';
  await expect401(await fetch(`${agent.url}/api/v1/devicestatus/get`, { headers }), malformed);
  await expect401(await fetch(`${agent.url}/api/v1/audiofiles/audiorecordstatus`, { headers }), malformed);
  await expect401(await fetch(`${agent.url}/api/download?filepath=x`, { headers }), malformed);
});

api('counts requests by route pattern, method and status', async ({ agent, token }) => {
  const before = await scrape(agent);
  for (let i = 0; i < 3; i++) await fetch(`${agent.url}/api/v1/health`);
  await fetch(`${agent.url}/API/V1/HEALTH/`); // another spelling of the same route
  await fetch(`${agent.url}/api/v1/devicestatus/get`, { headers: bearer(token) });
  await fetch(`${agent.url}/api/v1/devicestatus/get`);
  await fetch(`${agent.url}/api/v1/health`, { method: 'DELETE' });
  await fetch(`${agent.url}/docs/assets/nothing-here.js`);
  const after = await scrape(agent);
  const delta = (s: string) => (after.get(s) ?? 0) - (before.get(s) ?? 0);
  assert.is(delta(requests('/api/v1/health', 'GET', 200)), 4);
  assert.is(delta(requests('/api/v1/devicestatus/get', 'GET', 200)), 1);
  assert.is(delta(requests('/api/v1/devicestatus/get', 'GET', 401)), 1);
  assert.is(delta(requests('unmatched', 'DELETE', 405)), 1);
  assert.is(delta(requests('/docs/assets/:file', 'GET', 404)), 1);
  assert.is(delta(requests('/metrics', 'GET', 200)), 1); // the first scrape, answered before the second
  assert.is(delta('device_agent_http_request_duration_seconds_count{route="/api/v1/health"}'), 4);
});

api('200 random unknown paths and methods add no series', async ({ agent }) => {
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
  // The shared series of each method exists from here on (methods are a fixed set).
  for (const method of methods) await fetch(`${agent.url}/not-a-route`, { method });
  const before = await scrape(agent);
  for (let i = 0; i < 200; i++) {
    const path = `/${Math.random().toString(36).slice(2)}/${i}%22%0a"x`;
    await fetch(`${agent.url}${path}?q=${i}`, { method: methods[i % methods.length] });
  }
  const after = await scrape(agent);
  const names = (m: Map<string, number>) => [...m.keys()].filter((k) => !k.startsWith('device_agent_http_requests_total{route="/metrics"'));
  assert.equal(names(after), names(before));
  assert.ok((after.get(requests('unmatched', 'GET', 404)) ?? 0) - (before.get(requests('unmatched', 'GET', 404)) ?? 0) === 40);
});

api('histogram buckets never decrease and +Inf equals the count', async ({ agent }) => {
  for (let i = 0; i < 20; i++) await fetch(`${agent.url}/api/v1/health`);
  const text = await scrapeText(agent);
  const route = '/api/v1/health';
  const buckets = [
    ...text.matchAll(new RegExp(`^device_agent_http_request_duration_seconds_bucket\\{route="${route}",le="([^"]+)"\\} (\\d+)$`, 'gm')),
  ];
  assert.ok(buckets.length > 10, 'a bucket per bound');
  assert.is(buckets.at(-1)![1], '+Inf');
  const counts = buckets.map((m) => Number(m[2]));
  for (let i = 1; i < counts.length; i++) assert.ok(counts[i]! >= counts[i - 1]!, `bucket ${buckets[i]![1]} below the one before`);
  const bounds = buckets.slice(0, -1).map((m) => Number(m[1]));
  for (let i = 1; i < bounds.length; i++) assert.ok(bounds[i]! > bounds[i - 1]!);
  const s = samples(text);
  assert.is(counts.at(-1), s.get(`device_agent_http_request_duration_seconds_count{route="${route}"}`));
  assert.ok(s.get(`device_agent_http_request_duration_seconds_sum{route="${route}"}`)! > 0);
});

api('counts file content bytes: upload, download, range; not headers, framing or HEAD', async ({ agent, token }) => {
  const bytes = (m: Map<string, number>, d: string) => m.get(`device_agent_transfer_bytes_total{direction="${d}"}`)!;
  const files = (m: Map<string, number>, d: string) => m.get(`device_agent_files_total{direction="${d}"}`)!;
  const content = Buffer.alloc(300_001, 7);
  const m0 = await scrape(agent);
  const up = await upload(agent.url, token, [
    { name: 'saveToPath', value: 'm.bin' },
    { name: 'myFile', value: content, filename: 'm.bin' },
  ]);
  assert.is(up.status, 200);
  const m1 = await scrape(agent);
  assert.is(bytes(m1, 'upload') - bytes(m0, 'upload'), content.length);
  assert.is(files(m1, 'upload') - files(m0, 'upload'), 1);
  const whole = await download(agent.url, token, 'filepath=m.bin');
  assert.is((await whole.arrayBuffer()).byteLength, content.length);
  const part = await download(agent.url, token, 'filepath=m.bin', { Range: 'bytes=100-1099' });
  assert.is(part.status, 206);
  await part.arrayBuffer();
  assert.is((await download(agent.url, token, 'filepath=m.bin', {}, 'HEAD')).status, 200);
  const m2 = await scrape(agent);
  assert.is(bytes(m2, 'download') - bytes(m1, 'download'), content.length + 1000);
  assert.is(files(m2, 'download') - files(m1, 'download'), 2);
  assert.is(bytes(m2, 'upload'), bytes(m1, 'upload'));
});

api('counts failed logins and logins refused with 429', async ({ agent }) => {
  const login = (password: string) => jsonPost(`${agent.url}/api/v1/agentusers/loginusertoagent`, { username: 'metrics-probe', password });
  const m0 = await scrape(agent);
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) statuses.push((await login('wrong')).status);
  assert.equal(statuses, [...Array(10).fill(401), 429]);
  const m1 = await scrape(agent);
  assert.is(m1.get('device_agent_login_failures_total')! - m0.get('device_agent_login_failures_total')!, 10);
  assert.is(m1.get('device_agent_login_throttled_total')! - m0.get('device_agent_login_throttled_total')!, 1);
});

api('counts recordings by result', async ({ agent, token }) => {
  const start = await jsonPost(`${agent.url}/api/v1/audiofiles/audiorecordstart`, { duration: 1, fileExtension: 'wav' }, bearer(token));
  assert.is(start.status, 202);
  let m = await scrape(agent);
  for (let i = 0; i < 60 && m.get('device_agent_recordings_total{result="finished"}') === 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    m = await scrape(agent);
  }
  assert.is(m.get('device_agent_recordings_total{result="finished"}'), 1);
  assert.is(m.get('device_agent_recordings_total{result="failed"}'), 0);
});

api('process figures come from the kernel', async ({ agent }) => {
  const m = await scrape(agent);
  const fds = fdCount(agent.child.pid!);
  assert.ok(Math.abs(m.get('process_open_fds')! - fds) <= 2, `open fds ${m.get('process_open_fds')} vs /proc ${fds}`);
  assert.ok(m.get('process_resident_memory_bytes')! > 10e6);
  assert.ok(m.get('process_cpu_seconds_total')! > 0);
});

api.run();
