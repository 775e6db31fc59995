// A real Prometheus (Debian package `prometheus`) scrapes the agent every second with the
// metrics token file, as a fleet's would (authorization.credentials_file); its HTTP API
// must show the agent up and the counts of the requests this test made. promtool checks
// the exposition.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT, startAgent, type TestAgent } from './helpers/agent.ts';
import { freePort } from './helpers/http.ts';
import { scrapeText } from './helpers/metrics.ts';

const PROMETHEUS = '/usr/bin/prometheus';
const PROMTOOL = '/usr/bin/promtool';

type Ctx = { agent: TestAgent; dir: string; prom: ChildProcess; promUrl: string; promLog: () => string };
const prom = suite<Ctx>('prometheus scrapes the agent');

/** Polls a PromQL query until `ok` holds for its result; returns the last result. */
async function until(ctx: Ctx, query: string, ok: (result: any[]) => boolean, ms = 40_000): Promise<any[]> {
  const deadline = Date.now() + ms;
  let result: any[] = [];
  for (;;) {
    try {
      const res = await fetch(`${ctx.promUrl}/api/v1/query?query=${encodeURIComponent(query)}`);
      if (res.ok) result = ((await res.json()) as any).data.result;
    } catch {
      /* not listening yet: poll again */
    }
    if (ok(result) || Date.now() > deadline) return result;
    await new Promise((r) => setTimeout(r, 250));
  }
}

const value = (result: any[]) => (result.length === 1 ? Number(result[0].value[1]) : NaN);

prom.before(async (ctx) => {
  ctx.agent = await startAgent();
  ctx.dir = mkdtempSync(join(tmpdir(), 'da-prometheus-'));
  writeFileSync(join(ctx.dir, 'wrong.token'), 'not-the-token\n', { mode: 0o600 });
  const target = `['127.0.0.1:${ctx.agent.port}']`;
  writeFileSync(
    join(ctx.dir, 'prometheus.yml'),
    [
      'global: { scrape_interval: 1s, evaluation_interval: 1s }',
      'scrape_configs:',
      '  - job_name: device-agent',
      `    authorization: { type: Bearer, credentials_file: ${join(ctx.agent.dir, 'metrics.token')} }`,
      `    static_configs: [{ targets: ${target} }]`,
      '  - job_name: wrong-token',
      `    authorization: { type: Bearer, credentials_file: ${join(ctx.dir, 'wrong.token')} }`,
      `    static_configs: [{ targets: ${target} }]`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  ctx.promUrl = `http://127.0.0.1:${port}`;
  ctx.prom = spawn(
    PROMETHEUS,
    [
      `--config.file=${join(ctx.dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(ctx.dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  ctx.prom.stdout!.on('data', (d) => {
    log += d;
  });
  ctx.prom.stderr!.on('data', (d) => {
    log += d;
  });
  ctx.promLog = () => log;
});

prom.after(async (ctx) => {
  if (ctx.prom && ctx.prom.exitCode === null) {
    const exited = new Promise((r) => ctx.prom.once('exit', r));
    ctx.prom.kill('SIGTERM');
    await exited;
  }
  await ctx.agent?.cleanup();
  if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
});

prom('up is 1 for the metrics token and 0 for a wrong one', async (ctx) => {
  const up = await until(ctx, 'up{job="device-agent"} == 1', (r) => r.length === 1);
  assert.is(value(up), 1, `prometheus log:\n${ctx.promLog()}`);
  const wrong = await until(ctx, 'up{job="wrong-token"}', (r) => r.length === 1);
  assert.is(value(wrong), 0);
  // Each refused scrape is a 401 the agent counted: the token opened nothing.
  const refused = await until(
    ctx,
    'device_agent_http_requests_total{job="device-agent",route="/metrics",status="401"}',
    (r) => value(r) > 0,
  );
  assert.ok(value(refused) > 0);
});

prom('the counters Prometheus stores match the requests made', async (ctx) => {
  const token = await ctx.agent.login();
  for (let i = 0; i < 7; i++) await fetch(`${ctx.agent.url}/api/v1/health`);
  for (let i = 0; i < 3; i++) await fetch(`${ctx.agent.url}/api/v1/devicestatus/get`, { headers: { Authorization: `Bearer ${token}` } });
  for (let i = 0; i < 5; i++) await fetch(`${ctx.agent.url}/no/such/${i}`);
  const q = (route: string, method: string, status: number) =>
    `device_agent_http_requests_total{job="device-agent",route="${route}",method="${method}",status="${status}"}`;
  const checks: Array<[string, number]> = [
    [q('/api/v1/health', 'GET', 200), 7],
    [q('/api/v1/devicestatus/get', 'GET', 200), 3],
    [q('unmatched', 'GET', 404), 5],
    [q('/api/v1/agentusers/loginusertoagent', 'POST', 200), 1],
  ];
  for (const [query, expected] of checks) {
    const got = await until(ctx, query, (r) => value(r) === expected);
    assert.is(value(got), expected, query);
  }
  const latency = await until(
    ctx,
    'histogram_quantile(0.5, device_agent_http_request_duration_seconds_bucket{job="device-agent",route="/api/v1/health"})',
    (r) => r.length === 1,
  );
  assert.ok(value(latency) > 0 && value(latency) < 1, `median health latency ${value(latency)} s`);
  const rss = await until(ctx, 'process_resident_memory_bytes{job="device-agent"}', (r) => r.length === 1);
  assert.ok(value(rss) > 10e6);
});

prom('promtool check metrics passes on a scrape', async ({ agent }) => {
  const text = await scrapeText(agent);
  const r = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
  assert.is(r.status, 0, `promtool: ${r.stdout}${r.stderr}`);
});

prom('every query of the Grafana dashboard (docs/) is valid PromQL on series the agent exports', async (ctx) => {
  const dashboard = JSON.parse(readFileSync(join(ROOT, 'docs/grafana-dashboard.json'), 'utf8'));
  const exported = new Set([...(await scrapeText(ctx.agent)).matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]!));
  // TLS series appear once a TLS listener reports them; the plain agent here has none.
  const later = new Set(['device_agent_tls_handshake_failures_total', 'device_agent_tls_certificate_expiry_timestamp_seconds']);
  const exprs: string[] = dashboard.panels.flatMap((p: any) => p.targets.map((t: any) => t.expr));
  assert.ok(exprs.length >= 10);
  for (const expr of exprs) {
    for (const [name] of expr.matchAll(/\b(?:device_agent|process)_\w+/g)) {
      const family = name.replace(/_(bucket|sum|count)$/, '');
      assert.ok(exported.has(family) || later.has(family) || name === 'up', `${expr}: ${name} is not exported`);
    }
    const query = expr.replaceAll('$instance', '.*').replaceAll('$job', '.*').replaceAll('$__rate_interval', '1m');
    const res = await fetch(`${ctx.promUrl}/api/v1/query?query=${encodeURIComponent(query)}`);
    const body = (await res.json()) as any;
    assert.is(body.status, 'success', `${query}: ${JSON.stringify(body)}`);
  }
});

prom.run();
