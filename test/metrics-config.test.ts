// The metrics config as an operator meets it (docs/api.md#metrics): an own token file, reloads
// that rotate it, metrics turned off, token files refused at start.
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { prepareDir, runCli, startAgent } from './helpers/agent.ts';
import { bearer } from './helpers/http.ts';
import { metricsToken, scrape } from './helpers/metrics.ts';
import { eventually } from './helpers/proc.ts';

const requests = (route: string, method: string, status: number) =>
  `device_agent_http_requests_total{route="${route}",method="${method}",status="${status}"}`;

const config = suite('metrics config');

config('a token file the operator wrote is used, surrounding whitespace trimmed', async () => {
  const token = 'fleet-scrape-token-0123456789abcdef0123456789';
  const agent = await startAgent({ config: { metrics: { tokenFile: 'scrape.token' } } });
  try {
    // The agent created it at start; the operator replaces it and restarts.
    await agent.stop();
    writeFileSync(join(agent.dir, 'scrape.token'), `  ${token}\n\n`, { mode: 0o600 });
    const again = await startAgent({ dir: agent.dir, config: { metrics: { tokenFile: 'scrape.token' } } });
    try {
      const res = await fetch(`${again.url}/metrics`, { headers: bearer(token) });
      assert.is(res.status, 200);
    } finally {
      await again.cleanup();
    }
  } finally {
    await agent.cleanup();
  }
});

config('a reload (SIGHUP) reads the token file again and applies metrics.enabled', async () => {
  const agent = await startAgent();
  const reloaded = async (n: number) => {
    agent.child.kill('SIGHUP');
    assert.ok(await eventually(() => (agent.output().match(/config reloaded/g) ?? []).length >= n, 5000), agent.output());
  };
  try {
    const old = metricsToken(agent);
    // A token file that does not load refuses the reload whole: the running token stays.
    writeFileSync(join(agent.dir, 'metrics.token'), 'short\n', { mode: 0o600 });
    agent.child.kill('SIGHUP');
    assert.ok(
      await eventually(
        () => /reload refused.*metrics\.tokenFile: metrics token file \S+ is shorter than 32 bytes/.test(agent.output()),
        5000,
      ),
      agent.output(),
    );
    assert.is((await fetch(`${agent.url}/metrics`, { headers: bearer(old) })).status, 200);
    const next = 'rotated-scrape-token-0123456789abcdef0123456789';
    writeFileSync(join(agent.dir, 'metrics.token'), `${next}\n`, { mode: 0o600 });
    await reloaded(1);
    assert.match(agent.output(), /config reloaded: no change/);
    assert.is((await fetch(`${agent.url}/metrics`, { headers: bearer(next) })).status, 200);
    assert.is((await fetch(`${agent.url}/metrics`, { headers: bearer(old) })).status, 401);
    // Counts survive the reload: the new app counts into the same series.
    assert.ok((await scrape(agent)).get(requests('/metrics', 'GET', 200))! >= 1);
    writeFileSync(agent.configFile, JSON.stringify({ ...JSON.parse(readFileSync(agent.configFile, 'utf8')), metrics: { enabled: false } }));
    await reloaded(2);
    assert.is((await fetch(`${agent.url}/metrics`, { headers: bearer(next) })).status, 404);
  } finally {
    await agent.cleanup();
  }
});

config('metrics.enabled false: no /metrics and no token file', async () => {
  const agent = await startAgent({ config: { metrics: { enabled: false } } });
  try {
    const token = await agent.login();
    const res = await fetch(`${agent.url}/metrics`, { headers: bearer(token) });
    assert.is(res.status, 404);
    assert.equal(await res.json(), { error: 'not found' });
    assert.throws(() => statSync(join(agent.dir, 'metrics.token')));
  } finally {
    await agent.cleanup();
  }
});

config('a token file readable by others or too short stops the start and fails config check (exit 78)', async () => {
  const cases: Array<[string, number, RegExp]> = [
    ['a'.repeat(64), 0o604, /metrics\.tokenFile: metrics token file \S+ is accessible by others \(mode 604\): chmod 600 it$/m],
    ['short', 0o600, /metrics\.tokenFile: metrics token file \S+ is shorter than 32 bytes$/m],
  ];
  for (const [text, mode, message] of cases) {
    const { dir } = await prepareDir();
    try {
      writeFileSync(join(dir, 'metrics.token'), text, { mode });
      for (const args of [['serve'], ['config', 'check']]) {
        const r = await runCli([...args, '--config', join(dir, 'config.json')]);
        assert.is(r.code, 78, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
        assert.match(r.stderr, message);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

config("with TLS on: the certificate's notAfter and handshake failures", async () => {
  const agent = await startAgent({ config: { tls: { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' } } });
  try {
    const before = await scrape(agent);
    const notAfter = ((await (await fetch(`${agent.url}/api/v1/tls`)).json()) as { notAfter: string }).notAfter;
    assert.is(before.get('device_agent_tls_certificate_expiry_timestamp_seconds'), Date.parse(notAfter) / 1000);
    assert.is(before.get('device_agent_tls_handshake_failures_total'), 0);
  } finally {
    await agent.cleanup();
  }
});

config('with TLS off the TLS series are left out, not 0', async () => {
  const agent = await startAgent();
  try {
    const names = [...(await scrape(agent)).keys()];
    assert.not.ok(
      names.some((n) => n.startsWith('device_agent_tls_')),
      names.join('\n'),
    );
  } finally {
    await agent.cleanup();
  }
});

config.run();
