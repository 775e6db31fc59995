// HTTPS on the same port (docs/api.md#https) with real clients: curl (--cacert, --pinnedpubkey),
// openssl s_client (versions, suites), Node's https client, plain HTTP beside it.
import { readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, startAgent, type TestAgent } from './helpers/agent.ts';
import { bearer, rawRequest } from './helpers/http.ts';
import { assertDocumented, loadDocument } from './helpers/openapi.ts';
import { httpsGet, peerCert, run, sClient, spkiPinOf } from './helpers/tls.ts';

const https = suite<{ agent: TestAgent; cert: Buffer; certFile: string; keyFile: string; pin: string; token: string }>(
  'https, self-signed',
);

https.before(async (ctx) => {
  ctx.agent = await startAgent({ config: { tls: { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' } } });
  ctx.certFile = join(ctx.agent.dir, 'tls/cert.pem');
  ctx.keyFile = join(ctx.agent.dir, 'tls/key.pem');
  ctx.cert = readFileSync(ctx.certFile);
  ctx.pin = /^spki pin: +(\S+)$/m.exec((await runCli(['tls', 'show', '--config', ctx.agent.configFile])).stdout)![1]!;
  ctx.token = await ctx.agent.login();
});
https.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

https(
  'makes an ECDSA P-256 pair on first start: key 0600 in a 0700 directory, the names of the contract',
  async ({ agent, certFile, keyFile }) => {
    assert.is(statSync(keyFile).mode & 0o777, 0o600);
    assert.is(statSync(join(agent.dir, 'tls')).mode & 0o777, 0o700);
    const text = (await run('openssl', ['x509', '-in', certFile, '-noout', '-text'])).stdout;
    assert.match(text, /Public Key Algorithm: id-ecPublicKey/);
    assert.match(text, /NIST CURVE: P-256/);
    assert.match(text, /Signature Algorithm: ecdsa-with-SHA256/);
    const short = hostname().split('.')[0]!.toLowerCase();
    for (const name of [`DNS:${short}`, `DNS:${short}.local`, 'DNS:localhost', 'IP Address:127.0.0.1', 'IP Address:0:0:0:0:0:0:0:1']) {
      assert.ok(text.includes(name), `${name} in the SANs`);
    }
    assert.not.match(text, /IP Address:FE80/i, 'no link-local address');
    assert.match(agent.output(), /tls: created a self-signed certificate/);
  },
);

https('curl --cacert and --pinnedpubkey reach the API over HTTPS; a wrong pin is refused', async ({ agent, certFile, pin }) => {
  const url = `https://localhost:${agent.port}/api/v1/health`;
  const ok = await run('curl', ['-sS', '--cacert', certFile, url]);
  assert.is(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).status, 'ok');
  const pinned = await run('curl', ['-sS', '-k', '--pinnedpubkey', pin, `https://127.0.0.1:${agent.port}/api/v1/health`]);
  assert.is(pinned.code, 0, pinned.stderr);
  const wrong = await run('curl', ['-sS', '-k', '--pinnedpubkey', `sha256//${'A'.repeat(43)}=`, url]);
  assert.is(wrong.code, 90, 'CURLE_SSL_PINNEDPUBKEYNOTMATCH');
  const untrusted = await run('curl', ['-sS', url]);
  assert.is(untrusted.code, 60, 'not trusted without --cacert');
});

https('plain HTTP and HTTPS on the same port; the access log line ends with how the request came', async ({ agent, cert, token }) => {
  const plain = await fetch(`${agent.url}/api/v1/devicestatus/get`, { headers: bearer(token) });
  assert.is(plain.status, 200);
  const secure = await httpsGet(`https://localhost:${agent.port}/api/v1/devicestatus/get`, cert, bearer(token));
  assert.is(secure.status, 200);
  assert.type(JSON.parse(secure.body).hostname, 'string');
  await new Promise((r) => setTimeout(r, 100));
  const lines = agent
    .output()
    .split('\n')
    .filter((l) => l.includes('GET /api/v1/devicestatus/get 200'));
  assert.ok(
    lines.some((l) => / \d+ [\d.]+ms admin http$/.test(l)),
    lines.join('\n'),
  );
  assert.ok(
    lines.some((l) => / \d+ [\d.]+ms admin https$/.test(l)),
    lines.join('\n'),
  );
});

https("Node's https client logs in and is refused a wrong token the same as over HTTP", async ({ agent, cert }) => {
  const bad = await httpsGet(`https://localhost:${agent.port}/api/v1/devicestatus/get`, cert, bearer('nope'));
  const plainBad = await fetch(`${agent.url}/api/v1/devicestatus/get`, { headers: bearer('nope') });
  assert.is(bad.status, plainBad.status);
  assert.is(bad.body, await plainBad.text());
  const notFound = await httpsGet(`https://localhost:${agent.port}/nowhere`, cert);
  assert.is(notFound.status, 404);
  assert.equal(JSON.parse(notFound.body), { error: 'not found' });
});

https('TLS 1.0 and 1.1 are refused; 1.2 and 1.3 served', async ({ agent }) => {
  for (const v of ['-tls1', '-tls1_1']) {
    const r = await sClient(agent.port, [v, '-cipher', 'DEFAULT@SECLEVEL=0']);
    assert.not.match(r.stdout, /Cipher is (?!\(NONE\))/, `${v} refused`);
  }
  const t12 = await sClient(agent.port, ['-tls1_2']);
  assert.match(t12.stdout, /Protocol\s*: TLSv1\.2/);
  assert.match(t12.stdout, /Cipher\s*: ECDHE-ECDSA-(AES128-GCM-SHA256|AES256-GCM-SHA384|CHACHA20-POLY1305)/);
  const t13 = await sClient(agent.port, ['-tls1_3']);
  assert.match(t13.stdout, /TLSv1\.3/);
});

https('only forward-secret AEAD suites: CBC, SHA-1 MACs and static key exchange are refused', async ({ agent }) => {
  for (const cipher of [
    'ECDHE-ECDSA-AES128-SHA',
    'ECDHE-ECDSA-AES128-SHA256',
    'ECDHE-ECDSA-AES256-SHA384',
    'AES128-GCM-SHA256',
    'AES256-SHA',
  ]) {
    const r = await sClient(agent.port, ['-tls1_2', '-cipher', cipher]);
    assert.not.match(r.stdout, /Cipher is (?!\(NONE\))/, `${cipher} refused`);
  }
  for (const cipher of ['ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-ECDSA-CHACHA20-POLY1305']) {
    const r = await sClient(agent.port, ['-tls1_2', '-cipher', cipher]);
    assert.match(r.stdout, new RegExp(`Cipher is ${cipher}`), cipher);
  }
  for (const suite13 of ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256']) {
    const r = await sClient(agent.port, ['-tls1_3', '-ciphersuites', suite13]);
    assert.match(r.stdout, new RegExp(`Cipher is ${suite13}`), suite13);
  }
});

https('tls show prints subject, names, validity, fingerprint and pin of the served certificate', async ({ agent, certFile }) => {
  const r = await runCli(['tls', 'show', '--config', agent.configFile]);
  assert.is(r.code, 0, r.stderr);
  const served = await peerCert(agent.port);
  const short = hostname().split('.')[0]!.toLowerCase();
  assert.match(r.stdout, new RegExp(`^certificate: ${certFile}$`, 'm'));
  assert.match(r.stdout, new RegExp(`^subject: +O=device-agent, CN=${short}$`, 'm'));
  assert.match(r.stdout, new RegExp(`^names: +${short}, ${short}\\.local, localhost, 127\\.0\\.0\\.1, ::1`, 'm'));
  assert.match(r.stdout, new RegExp(`^not after: +${new Date(served.validTo).toISOString()}$`, 'm'));
  assert.match(r.stdout, /^self-signed: +yes/m);
  assert.match(r.stdout, new RegExp(`^sha256 fingerprint: ${served.fingerprint256}$`, 'm'));
  assert.match(r.stdout, new RegExp(`^spki pin: +${spkiPinOf(served).replace(/[+/]/g, '\\$&')}$`, 'm'));
  assert.match(r.stdout, /^client certificates: not requested \(tls\.clientCaFile is not set\)$/m);
  assert.ok(agent.output().includes(`certificate ${served.fingerprint256}`), 'the start line carries the fingerprint');
});

https('GET /api/v1/tls without a token, as documented; /docs/openapi.json names the fingerprint', async ({ agent, pin }) => {
  const served = await peerCert(agent.port);
  const res = await fetch(`${agent.url}/api/v1/tls`);
  const body = (await res.clone().json()) as Record<string, unknown>;
  assert.is(body.enabled, true);
  assert.is(body.fingerprint, served.fingerprint256);
  assert.is(body.spkiPin, pin);
  assert.is(body.selfSigned, true);
  assert.is(body.clientCertificates, 'none');
  assert.is(body.notAfter, new Date(served.validTo).toISOString());
  assert.ok((body.names as string[]).includes('localhost'));
  const doc = await loadDocument(agent.url);
  await assertDocumented(doc, 'get', '/api/v1/tls', res);
  const text = await (await fetch(`${agent.url}/docs/openapi.json`)).text();
  assert.ok(text.includes(served.fingerprint256), 'fingerprint in the document');
});

https('a raw HTTP/1.1 request and one without a Host still work on the TLS port', async ({ agent }) => {
  const r = await rawRequest(agent.port, 'GET /api/v1/health HTTP/1.0\r\n\r\n');
  assert.match(r, /^HTTP\/1\.1 200 OK/);
});

https.run();

const off = suite<{ agent: TestAgent }>('tls off');
off.before(async (ctx) => {
  ctx.agent = await startAgent();
});
off.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

off('without tls: plain HTTP only, GET /api/v1/tls says so, tls show says how to turn it on', async ({ agent }) => {
  const res = await fetch(`${agent.url}/api/v1/tls`);
  assert.equal(await res.clone().json(), { enabled: false });
  await assertDocumented(await loadDocument(agent.url), 'get', '/api/v1/tls', res);
  assert.not.match(agent.output(), /https:/);
  const lines = agent
    .output()
    .split('\n')
    .filter((l) => l.includes('GET /api/v1/tls 200'));
  assert.ok(lines.length > 0 && lines.every((l) => / -$/.test(l)), 'no scheme field without TLS');
  const show = await runCli(['tls', 'show', '--config', agent.configFile]);
  assert.is(show.code, 78);
  assert.match(show.stderr, /tls: not configured .*"tls": \{\}/);
});

off.run();
