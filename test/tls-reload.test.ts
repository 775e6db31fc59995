// The certificate's life (docs/api.md#https): renewal with the same key, an operator's pair
// never rewritten, the start's refusals, reload on file change and SIGHUP while a 50 MB
// download runs, and a broken replacement kept out.
import { mkdirSync, readFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { get } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, parseConfig } from '../src/config/config.ts';
import { prepareDir, runCli, startAgent, type TestAgent } from './helpers/agent.ts';
import { bearer } from './helpers/http.ts';
import { eventually } from './helpers/proc.ts';
import { certFor, makePair, peerCert, spkiPinOf } from './helpers/tls.ts';

const DAY = 24 * 3600 * 1000;

const cfg = suite('tls config');

cfg("tls: absent or null is plain HTTP; {} fills the contract's defaults; paths resolve against the config", () => {
  assert.is(parseConfig({}, '/etc/device-agent').tls, null);
  assert.is(parseConfig({ tls: null }, '/etc/device-agent').tls, null);
  assert.equal(parseConfig({ tls: {} }, '/etc/device-agent').tls, {
    certFile: '/var/lib/device-agent/tls/cert.pem',
    keyFile: '/var/lib/device-agent/tls/key.pem',
    selfSigned: true,
    clientCaFile: null,
    plainHttp: 'allow',
  });
  assert.equal(parseConfig({ tls: { certFile: 'c.pem', keyFile: '../k.pem', selfSigned: false, plainHttp: 'redirect' } }, '/srv/a').tls, {
    certFile: '/srv/a/c.pem',
    keyFile: '/srv/k.pem',
    selfSigned: false,
    clientCaFile: null,
    plainHttp: 'redirect',
  });
});

cfg('a bad tls key is named', () => {
  for (const [tls, message] of [
    [true, /^tls: must be an object or null$/],
    [{ certfile: 'x' }, /^tls\.certfile: unknown key$/],
    [{ certFile: '' }, /^tls\.certFile: must be a non-empty string$/],
    [{ keyFile: 3 }, /^tls\.keyFile: must be a non-empty string$/],
    [{ certFile: 'a.pem', keyFile: 'a.pem' }, /^tls\.keyFile: must not be the same file as tls\.certFile$/],
    [{ selfSigned: 'yes' }, /^tls\.selfSigned: must be true or false$/],
    [{ plainHttp: 'deny' }, /^tls\.plainHttp: must be "allow" or "redirect", got "deny"$/],
  ] as const) {
    assert.throws(
      () => parseConfig({ tls }, '/etc'),
      (e: unknown) => e instanceof ConfigError && message.test(e.message),
      JSON.stringify(tls),
    );
  }
});

cfg.run();

const start = suite('tls at start');

async function serveOnce(tls: Record<string, unknown>, setup: (dir: string) => void = () => {}) {
  const { dir } = await prepareDir({ config: { tls } });
  mkdirSync(join(dir, 'tls'));
  setup(dir);
  return { dir, ...(await runCli(['serve', '--config', join(dir, 'config.json')])) };
}

start('both files missing with selfSigned false, or one of them missing: exit 78 naming the file', async () => {
  const files = { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' };
  const none = await serveOnce({ ...files, selfSigned: false });
  assert.is(none.code, 78);
  assert.match(none.stderr, /config error: tls\.certFile: \S+\/tls\/cert\.pem is missing \(and tls\.selfSigned is false\)/);
  const noKey = await serveOnce(files, (dir) => {
    makePair(join(dir, 'tls/cert.pem'), join(dir, 'tls/other.pem'));
  });
  assert.is(noKey.code, 78);
  assert.match(noKey.stderr, /config error: tls\.keyFile: \S+\/tls\/key\.pem is missing/);
  const noCert = await serveOnce(files, (dir) => {
    makePair(join(dir, 'tls/other.pem'), join(dir, 'tls/key.pem'));
  });
  assert.is(noCert.code, 78);
  assert.match(noCert.stderr, /config error: tls\.certFile: \S+\/tls\/cert\.pem is missing/);
  const mismatch = await serveOnce(files, (dir) => {
    makePair(join(dir, 'tls/cert.pem'), join(dir, 'tls/other.pem'));
    makePair(join(dir, 'tls/other-cert.pem'), join(dir, 'tls/key.pem'));
  });
  assert.is(mismatch.code, 78);
  assert.match(mismatch.stderr, /config error: tls\.keyFile: \S+\/tls\/key\.pem: is not the key of the certificate in \S+\/tls\/cert\.pem/);
});

start('a certificate the agent made, 10 days from its end, is renewed at start with the same key, subject and names', async () => {
  const { dir } = await prepareDir();
  mkdirSync(join(dir, 'tls'));
  const certFile = join(dir, 'tls/cert.pem');
  makePair(certFile, join(dir, 'tls/key.pem'), {
    subject: '/O=device-agent/CN=olddevice',
    days: 10,
    names: 'DNS:olddevice,DNS:localhost,IP:127.0.0.1',
  });
  const before = new (await import('node:crypto')).X509Certificate(readFileSync(certFile));
  const agent = await startAgent({ dir, config: { tls: { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' } } });
  try {
    assert.match(agent.output(), /tls: renewed with the same key: now serving/);
    const served = await peerCert(agent.port);
    assert.is(spkiPinOf(served), spkiPinOf(before), 'same key: a pinning client keeps trusting it');
    assert.is.not(served.fingerprint256, before.fingerprint256);
    assert.is(served.subject, before.subject);
    assert.is(served.subjectAltName, before.subjectAltName);
    assert.ok(Date.parse(served.validTo) - Date.now() > 300 * DAY, `valid until ${served.validTo}`);
    const onDisk = new (await import('node:crypto')).X509Certificate(readFileSync(certFile));
    assert.is(onDisk.fingerprint256, served.fingerprint256, 'written to the file');
  } finally {
    await agent.cleanup();
  }
});

start('a certificate the operator brought is never rewritten, even 10 days from its end', async () => {
  const { dir } = await prepareDir();
  mkdirSync(join(dir, 'tls'));
  const certFile = join(dir, 'tls/cert.pem');
  makePair(certFile, join(dir, 'tls/key.pem'), { subject: '/CN=operator.example', days: 10 });
  const bytes = readFileSync(certFile);
  const agent = await startAgent({ dir, config: { tls: { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' } } });
  try {
    assert.equal(readFileSync(certFile), bytes);
    assert.not.match(agent.output(), /renewed/);
    const info = (await (await fetch(`${agent.url}/api/v1/tls`)).json()) as { selfSigned: boolean };
    assert.is(info.selfSigned, false);
  } finally {
    await agent.cleanup();
  }
});

start.run();

const reload = suite<{ agent: TestAgent; token: string; certFile: string; keyFile: string }>('tls reload');

const SIZE = 50_000_000;

reload.before(async (ctx) => {
  const { dir } = await prepareDir();
  mkdirSync(join(dir, 'tls'));
  ctx.certFile = join(dir, 'tls/cert.pem');
  ctx.keyFile = join(dir, 'tls/key.pem');
  makePair(ctx.certFile, ctx.keyFile, { subject: '/CN=first' });
  writeFileSync(join(dir, 'files/big.bin'), '');
  truncateSync(join(dir, 'files/big.bin'), SIZE);
  ctx.agent = await startAgent({ dir, config: { tls: { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' } } });
  ctx.token = await ctx.agent.login();
});
reload.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

/** A new pair beside the served one, renamed over it (as an ACME client does). */
function replaceByRename(certFile: string, keyFile: string, subject: string): void {
  makePair(`${certFile}.new`, `${keyFile}.new`, { subject });
  renameSync(`${keyFile}.new`, keyFile);
  renameSync(`${certFile}.new`, certFile);
}

reload(
  'file replacement and SIGHUP while a 50 MB download runs: it completes; new connections get each new pair',
  async ({ agent, token, certFile, keyFile }) => {
    const first = await peerCert(agent.port);
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      get(
        `https://127.0.0.1:${agent.port}/api/download?filepath=big.bin`,
        { rejectUnauthorized: false, headers: bearer(token) },
        resolve,
      ).on('error', reject);
    });
    assert.is(res.statusCode, 200);
    let received = 0;
    res.on('data', (d: Buffer) => {
      received += d.length;
    });
    res.pause(); // held open while the pair changes under it
    const done = new Promise<void>((resolve, reject) => {
      res.on('end', resolve);
      res.on('error', reject);
    });

    const t0 = Date.now();
    replaceByRename(certFile, keyFile, '/CN=second');
    assert.ok(
      await eventually(() => /tls: files changed: now serving/.test(agent.output()), 5000),
      `reloaded within 5 s:\n${agent.output()}`,
    );
    const second = await peerCert(agent.port);
    assert.is(second.subject, 'CN=second', `new connection after ${Date.now() - t0} ms`);
    assert.is.not(second.fingerprint256, first.fingerprint256);

    // In place (no rename), then SIGHUP: loaded at once, before any poll sees it.
    makePair(`${certFile}.third`, `${keyFile}.third`, { subject: '/CN=third' });
    writeFileSync(keyFile, readFileSync(`${keyFile}.third`));
    writeFileSync(certFile, readFileSync(`${certFile}.third`));
    agent.child.kill('SIGHUP');
    assert.ok(await eventually(() => /tls: reload requested: now serving/.test(agent.output()), 3000), agent.output());
    assert.is((await peerCert(agent.port)).subject, 'CN=third');

    res.resume();
    await done;
    assert.is(received, SIZE, 'the download that started on the first pair completed');
    assert.ok(agent.child.exitCode === null, 'still running');
  },
);

reload(
  'a broken or mismatched replacement keeps the served pair and logs an error naming the file',
  async ({ agent, certFile, keyFile }) => {
    const served = (await peerCert(agent.port)).fingerprint256;
    writeFileSync(certFile, '-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n');
    const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    assert.ok(
      await eventually(
        () =>
          new RegExp(
            `<3>\\S+ tls: files changed: ${escaped(certFile)}: not a PEM certificate .*; keeping the certificate in service \\(${served}\\)`,
          ).test(agent.output()),
        5000,
      ),
      agent.output(),
    );
    assert.is((await peerCert(agent.port)).fingerprint256, served);

    // A valid certificate whose key is another's.
    makePair(`${certFile}.other`, `${keyFile}.other`);
    certFor(certFile, `${keyFile}.other`, { subject: '/CN=mismatch' });
    assert.ok(
      await eventually(
        () =>
          new RegExp(`<3>\\S+ tls: files changed: ${escaped(keyFile)}: is not the key of the certificate in ${escaped(certFile)}`).test(
            agent.output(),
          ),
        5000,
      ),
      agent.output(),
    );
    assert.is((await peerCert(agent.port)).fingerprint256, served);
    const health = await fetch(`${agent.url}/api/v1/health`);
    assert.is(health.status, 200);
    assert.not.match(agent.output(), /\n\s+at /, 'no stack trace');
  },
);

reload('a config reload that changes tls keeps the running TLS set-up and says a restart is needed', async ({ agent }) => {
  const config = JSON.parse(readFileSync(agent.configFile, 'utf8'));
  writeFileSync(agent.configFile, JSON.stringify({ ...config, tls: { ...config.tls, plainHttp: 'redirect' } }));
  agent.child.kill('SIGHUP');
  assert.ok(
    await eventually(
      () =>
        /<4>\S+ reload: tls \{.*"plainHttp":"allow"\} -> \{.*"plainHttp":"redirect"\} needs a restart; keeping the running value/.test(
          agent.output(),
        ),
      3000,
    ),
    agent.output(),
  );
  const res = await fetch(`${agent.url}/api/v1/health`, { redirect: 'manual' });
  assert.is(res.status, 200, 'plain HTTP still allowed until a restart');
  writeFileSync(agent.configFile, JSON.stringify(config));
});

reload.run();

const stop = suite('tls graceful stop');

stop('SIGTERM during an HTTPS download: it completes, an idle TLS connection closes at once, exit 0', async () => {
  const agent = await startAgent({ config: { tls: { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' } } });
  try {
    writeFileSync(join(agent.baseDir, 'big.bin'), '');
    truncateSync(join(agent.baseDir, 'big.bin'), SIZE);
    const token = await agent.login();
    // An idle keep-alive TLS connection: one request answered on it.
    const idle = await new Promise<import('node:tls').TLSSocket>((resolve, reject) => {
      const s = tlsConnect({ port: agent.port, host: '127.0.0.1', rejectUnauthorized: false }, () => {
        s.write('GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n');
      });
      s.once('data', () => resolve(s));
      s.on('error', reject);
    });
    const idleClosed = new Promise<number>((resolve) => idle.on('close', () => resolve(Date.now())));
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      get(
        `https://127.0.0.1:${agent.port}/api/download?filepath=big.bin`,
        { rejectUnauthorized: false, headers: bearer(token) },
        resolve,
      ).on('error', reject);
    });
    let received = 0;
    res.on('data', (d: Buffer) => {
      received += d.length;
    });
    res.pause();
    const done = new Promise<void>((resolve, reject) => {
      res.on('end', resolve);
      res.on('error', reject);
    });
    const t0 = Date.now();
    const exited = agent.stop('SIGTERM');
    assert.ok((await idleClosed) - t0 < 1000, 'the idle TLS connection closed at once');
    res.resume();
    await done;
    assert.is(received, SIZE, 'the running download finished');
    assert.equal(await exited, { code: 0, signal: null });
  } finally {
    await agent.cleanup();
  }
});

stop.run();

const check = suite('tls config check');

check('config check notes the pair to be made, checks a present one, and names the file of a bad one (78)', async () => {
  const { dir } = await prepareDir({ config: { tls: { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' } } });
  const configFile = join(dir, 'config.json');
  const before = await runCli(['config', 'check', '--config', configFile]);
  assert.is(before.code, 0, before.stderr);
  assert.match(before.stdout, /tls: \S+\/tls\/cert\.pem and \S+\/tls\/key\.pem will be created at start \(self-signed\)/);
  mkdirSync(join(dir, 'tls'));
  makePair(join(dir, 'tls/cert.pem'), join(dir, 'tls/key.pem'), { subject: '/CN=checked' });
  const fingerprint = new (await import('node:crypto')).X509Certificate(readFileSync(join(dir, 'tls/cert.pem'))).fingerprint256;
  const ok = await runCli(['config', 'check', '--config', configFile]);
  assert.is(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, new RegExp(`tls: \\S+/tls/cert\\.pem: CN=checked, fingerprint ${fingerprint}, valid until \\S+Z`));
  writeFileSync(join(dir, 'tls/key.pem'), 'not a key\n');
  const bad = await runCli(['config', 'check', '--config', configFile]);
  assert.is(bad.code, 78);
  assert.match(bad.stderr, /config error: tls\.keyFile: \S+\/tls\/key\.pem: not a PEM private key/);
});

check.run();
