// Mutual TLS (tls.clientCaFile, docs/behaviour.md): the config's rules, client
// certificates required with real clients (curl --cert, openssl s_client), plain HTTP
// sent to HTTPS, the start's refusals, and the CA file reloaded on change and on SIGHUP.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, parseConfig } from '../src/config/config.ts';
import { ADMIN, makeDir, prepareDir, runCli, startAgent, type TestAgent } from './helpers/agent.ts';
import { rawRequest } from './helpers/http.ts';
import { assertDocumented, readDocument } from './helpers/openapi.ts';
import { eventually } from './helpers/proc.ts';
import { makeCa, makeClientCert, run, sClient } from './helpers/tls.ts';

interface KeyPair {
  certFile: string;
  keyFile: string;
}
interface Pki {
  ca: KeyPair;
  client: KeyPair;
  otherCa: KeyPair;
  other: KeyPair;
}

/** Two CAs, each with one client certificate, under `dir`/pki. */
function makePki(dir: string): Pki {
  mkdirSync(join(dir, 'pki'));
  const at = (name: string): KeyPair => ({ certFile: join(dir, `pki/${name}.pem`), keyFile: join(dir, `pki/${name}.key`) });
  const pki = { ca: at('ca'), client: at('client'), otherCa: at('other-ca'), other: at('other') };
  makeCa(pki.ca.certFile, pki.ca.keyFile, '/O=Fleet/CN=Fleet Client CA');
  makeClientCert(pki.client.certFile, pki.client.keyFile, pki.ca, '/CN=gateway-client');
  makeCa(pki.otherCa.certFile, pki.otherCa.keyFile, '/CN=Other CA');
  makeClientCert(pki.other.certFile, pki.other.keyFile, pki.otherCa, '/CN=other-client');
  return pki;
}

const TLS = { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem', clientCaFile: 'clients.pem' };

/** An agent requiring client certificates from pki.ca (its CA file: `clients.pem`). */
async function startMutual(): Promise<{ agent: TestAgent; pki: Pki; caFile: string }> {
  const dir = makeDir();
  const pki = makePki(dir);
  const caFile = join(dir, 'clients.pem');
  writeFileSync(caFile, readFileSync(pki.ca.certFile));
  return { agent: await startAgent({ dir, config: { tls: TLS } }), pki, caFile };
}

interface Answer {
  code: number | null;
  status: string;
  body: string;
  stderr: string;
}

/** curl over HTTPS trusting the agent's certificate, with `client`'s certificate if any. */
async function curl(agent: TestAgent, client: KeyPair | undefined, path: string, args: string[] = []): Promise<Answer> {
  const r = await run('curl', [
    '-sS',
    '--cacert',
    join(agent.dir, 'tls/cert.pem'),
    '-w',
    '\n%{http_code}',
    ...(client ? ['--cert', client.certFile, '--key', client.keyFile] : []),
    ...args,
    `https://localhost:${agent.port}${path}`,
  ]);
  const end = r.stdout.lastIndexOf('\n');
  return { code: r.code, status: r.stdout.slice(end + 1), body: r.stdout.slice(0, end), stderr: r.stderr };
}

async function login(agent: TestAgent, client: KeyPair): Promise<string> {
  const r = await curl(agent, client, '/api/v1/agentusers/loginusertoagent', [
    '-H',
    'Content-Type: application/json',
    '-d',
    JSON.stringify(ADMIN),
  ]);
  assert.is(r.status, '200', r.stderr);
  return (JSON.parse(r.body) as { token: string }).token;
}

/** A refused handshake: curl fails, and no HTTP status came back. */
function assertRefused(r: Answer, what: string): void {
  assert.ok(r.code !== 0, `${what}: curl exit ${r.code}`);
  assert.is(r.status, '000', `${what}: no HTTP status`);
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

// ---------------------------------------------------------------------------------------

const cfg = suite('client certificates: config');

cfg('tls.clientCaFile resolves against the config directory, and plain HTTP is then redirected by default', () => {
  assert.equal(parseConfig({ tls: { clientCaFile: 'pki/ca.pem' } }, '/etc/device-agent').tls, {
    certFile: '/var/lib/device-agent/tls/cert.pem',
    keyFile: '/var/lib/device-agent/tls/key.pem',
    selfSigned: true,
    clientCaFile: '/etc/device-agent/pki/ca.pem',
    plainHttp: 'redirect',
  });
  assert.is(parseConfig({ tls: { clientCaFile: '/srv/ca.pem', plainHttp: 'redirect' } }, '/etc').tls?.clientCaFile, '/srv/ca.pem');
  assert.is(parseConfig({ tls: { clientCaFile: null } }, '/etc').tls?.clientCaFile, null, 'null: none, as absent');
  assert.is(parseConfig({ tls: { clientCaFile: null } }, '/etc').tls?.plainHttp, 'allow');
});

cfg('an explicit "plainHttp": "allow" beside tls.clientCaFile is refused, naming tls.plainHttp and why', () => {
  const refusal = (tls: unknown) => {
    try {
      parseConfig({ tls }, '/etc');
    } catch (err) {
      assert.instance(err, ConfigError);
      return (err as Error).message;
    }
    return 'accepted';
  };
  assert.is(
    refusal({ clientCaFile: 'ca.pem', plainHttp: 'allow' }),
    'tls.plainHttp: "allow" would let plain HTTP bypass tls.clientCaFile; use "redirect"',
  );
  assert.is(refusal({ clientCaFile: '' }), 'tls.clientCaFile: must be a non-empty string');
  assert.is(refusal({ clientCaFile: 3 }), 'tls.clientCaFile: must be a non-empty string');
});

cfg.run();

// ---------------------------------------------------------------------------------------

const start = suite('client certificates: at start');

start(
  'a missing CA file, or one with no certificate, stops the start and config check: exit 78 naming tls.clientCaFile and the file',
  async () => {
    const { dir } = await prepareDir({ config: { tls: TLS } });
    const configFile = join(dir, 'config.json');
    const caFile = join(dir, 'clients.pem');
    const missing = await runCli(['serve', '--config', configFile]);
    assert.is(missing.code, 78);
    assert.match(missing.stderr, new RegExp(`config error: tls\\.clientCaFile: ${escaped(caFile)}: cannot read: ENOENT`));
    writeFileSync(caFile, 'not a certificate\n');
    for (const args of [['serve'], ['config', 'check']]) {
      const empty = await runCli([...args, '--config', configFile]);
      assert.is(empty.code, 78, args.join(' '));
      assert.match(
        empty.stderr,
        new RegExp(`config error: tls\\.clientCaFile: ${escaped(caFile)}: holds no PEM certificate`),
        args.join(' '),
      );
    }
    writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n');
    const broken = await runCli(['serve', '--config', configFile]);
    assert.is(broken.code, 78);
    assert.match(broken.stderr, new RegExp(`config error: tls\\.clientCaFile: ${escaped(caFile)}: not a PEM certificate`));
  },
);

start('"plainHttp": "allow" with tls.clientCaFile: exit 78 with the reason', async () => {
  const { dir } = await prepareDir({ config: { tls: { ...TLS, plainHttp: 'allow' } } });
  const r = await runCli(['serve', '--config', join(dir, 'config.json')]);
  assert.is(r.code, 78);
  assert.match(
    r.stderr,
    /config error: \S+\/config\.json: tls\.plainHttp: "allow" would let plain HTTP bypass tls\.clientCaFile; use "redirect"/,
  );
});

start.run();

// ---------------------------------------------------------------------------------------

const mutual = suite<{ agent: TestAgent; pki: Pki; caFile: string; token: string }>('client certificates required');

mutual.before(async (ctx) => {
  Object.assign(ctx, await startMutual());
  ctx.token = await login(ctx.agent, ctx.pki.client);
});
mutual.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

mutual(
  'a client certificate from the CA and the token: 200; the certificate without the token: 401 as usual',
  async ({ agent, pki, token }) => {
    const ok = await curl(agent, pki.client, '/api/v1/devicestatus/get', ['-H', `Authorization: Bearer ${token}`]);
    assert.is(ok.status, '200', ok.stderr);
    assert.type(JSON.parse(ok.body).hostname, 'string');
    const noToken = await curl(agent, pki.client, '/api/v1/devicestatus/get');
    assert.is(noToken.status, '401');
    assert.equal(JSON.parse(noToken.body), { error: 'missing bearer token' });
  },
);

mutual('without a client certificate, or with one from another CA, the handshake fails: no HTTP status', async ({ agent, pki, token }) => {
  const auth = ['-H', `Authorization: Bearer ${token}`];
  for (const tls of [['--tlsv1.3'], ['--tlsv1.2', '--tls-max', '1.2']]) {
    assertRefused(await curl(agent, undefined, '/api/v1/devicestatus/get', [...auth, ...tls]), `no certificate ${tls[0]}`);
    assertRefused(await curl(agent, pki.other, '/api/v1/devicestatus/get', [...auth, ...tls]), `another CA's ${tls[0]}`);
    // Its own CA's certificate with a key that is not its own proves nothing.
    assertRefused(
      await curl(agent, { certFile: pki.client.certFile, keyFile: pki.other.keyFile }, '/api/v1/health', tls),
      `a stolen certificate ${tls[0]}`,
    );
  }
  // openssl s_client: the server asks for a certificate of the fleet's CA, and refuses the other CA's.
  const request = 'GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n';
  const sOpts = (c: KeyPair) => ['-ign_eof', '-cert', c.certFile, '-key', c.keyFile];
  const good = await run(
    'openssl',
    ['s_client', '-connect', `127.0.0.1:${agent.port}`, '-servername', 'localhost', ...sOpts(pki.client)],
    request,
  );
  assert.match(good.stdout, /Acceptable client certificate CA names\n.*CN ?= ?Fleet Client CA/);
  assert.match(good.stdout, /HTTP\/1\.1 200 OK/);
  for (const v of ['-tls1_2', '-tls1_3']) {
    const bad = await run(
      'openssl',
      ['s_client', '-connect', `127.0.0.1:${agent.port}`, '-servername', 'localhost', v, ...sOpts(pki.other)],
      request,
    );
    assert.not.match(bad.stdout, /HTTP\/1\.1/, `another CA's certificate over ${v}`);
    const none = await sClient(agent.port, [v]);
    assert.not.match(none.stdout + none.stderr, /HTTP\/1\.1/, `no certificate over ${v}`);
  }
  assert.not.match(agent.output(), /\n\s+at /, 'no stack trace in the log');
});

mutual('plain http:// gets 308 to https://, the health and login routes too', async ({ agent }) => {
  for (const path of ['/api/v1/devicestatus/get', '/api/v1/health', '/api/v1/agentusers/loginusertoagent']) {
    const res = await fetch(`${agent.url}${path}`, { redirect: 'manual' });
    assert.is(res.status, 308, path);
    assert.is(res.headers.get('location'), `https://127.0.0.1:${agent.port}${path}`);
  }
  const r = await run('curl', [
    '-sS',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code} %{redirect_url}',
    `http://localhost:${agent.port}/api/v1/files/list?path=`,
  ]);
  assert.is(r.stdout, `308 https://localhost:${agent.port}/api/v1/files/list?path=`);
  const raw = await rawRequest(agent.port, 'GET /metrics HTTP/1.1\r\nHost: device.example:5050\r\nConnection: close\r\n\r\n');
  assert.match(raw, /^HTTP\/1\.1 308 Permanent Redirect\r\n/);
});

mutual(
  'GET /api/v1/tls says client certificates are required, as documented; tls show names the CA file and subject',
  async ({ agent, pki, caFile }) => {
    const r = await curl(agent, pki.client, '/api/v1/tls');
    assert.is(r.status, '200');
    assert.is(JSON.parse(r.body).clientCertificates, 'required');
    // The document over plain HTTP is a 308 now: read it with the client certificate.
    const doc = await readDocument(JSON.parse((await curl(agent, pki.client, '/docs/openapi.json')).body));
    await assertDocumented(
      doc,
      'get',
      '/api/v1/tls',
      new Response(r.body, { status: 200, headers: { 'content-type': 'application/json' } }),
    );
    const show = await runCli(['tls', 'show', '--config', agent.configFile]);
    assert.is(show.code, 0, show.stderr);
    assert.match(
      show.stdout,
      new RegExp(`^client certificates: required, issued by a CA in ${escaped(caFile)} \\(O=Fleet, CN=Fleet Client CA\\)$`, 'm'),
    );
    assert.match(show.stdout, /^spki pin: +sha256\/\/\S+$/m, 'the lines before it unchanged');
    assert.match(
      agent.output(),
      new RegExp(`tls: client certificates required, issued by a CA in ${escaped(caFile)} \\(O=Fleet, CN=Fleet Client CA\\)`),
    );
    const check = await runCli(['config', 'check', '--config', agent.configFile]);
    assert.is(check.code, 0, check.stderr);
    assert.match(check.stdout, /tls: client certificates required, issued by a CA in \S+clients\.pem \(O=Fleet, CN=Fleet Client CA\)/);
  },
);

mutual('a refused client counts in device_agent_tls_handshake_failures_total', async ({ agent, pki, token }) => {
  const failures = async () => {
    const r = await curl(agent, pki.client, '/metrics', ['-H', `Authorization: Bearer ${token}`]);
    assert.is(r.status, '200', r.body);
    return Number(/^device_agent_tls_handshake_failures_total (\d+)$/m.exec(r.body)?.[1]);
  };
  const before = await failures();
  assertRefused(await curl(agent, undefined, '/api/v1/health'), 'no certificate');
  assertRefused(await curl(agent, pki.other, '/api/v1/health'), "another CA's");
  await new Promise((r) => setTimeout(r, 100)); // curl may be gone before the agent saw the close
  assert.is(await failures(), before + 2);
});

mutual.run();

// ---------------------------------------------------------------------------------------

const reload = suite<{ agent: TestAgent; pki: Pki; caFile: string }>('client CA reload');

reload.before(async (ctx) => {
  Object.assign(ctx, await startMutual());
});
reload.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

/** A keep-alive TLS connection with `client`'s certificate that has had one request answered. */
function openConnection(agent: TestAgent, client: KeyPair): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect(
      {
        port: agent.port,
        host: '127.0.0.1',
        servername: 'localhost',
        ca: readFileSync(join(agent.dir, 'tls/cert.pem')),
        cert: readFileSync(client.certFile),
        key: readFileSync(client.keyFile),
      },
      () => socket.write('GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n'),
    );
    socket.once('data', (d: Buffer) => (/^HTTP\/1\.1 200 /.test(d.toString()) ? resolve(socket) : reject(new Error(d.toString()))));
    socket.on('error', reject);
  });
}

function askAgain(socket: TLSSocket): Promise<string> {
  return new Promise((resolve, reject) => {
    socket.once('data', (d: Buffer) => resolve(d.toString()));
    socket.once('error', reject);
    socket.write('GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n');
  });
}

reload(
  "another CA renamed over the file: within 5 s its clients are accepted and the old CA's refused; an open connection carries on",
  async ({ agent, pki, caFile }) => {
    assert.is((await curl(agent, pki.client, '/api/v1/health')).status, '200');
    assertRefused(await curl(agent, pki.other, '/api/v1/health'), 'the other CA before');
    const open = await openConnection(agent, pki.client);
    try {
      writeFileSync(`${caFile}.new`, readFileSync(pki.otherCa.certFile));
      renameSync(`${caFile}.new`, caFile);
      assert.ok(
        await eventually(
          () => /<6>\S+ tls: files changed: client certificates required, now issued by a CA in \S+ \(CN=Other CA\)/.test(agent.output()),
          5000,
        ),
        agent.output(),
      );
      assert.is((await curl(agent, pki.other, '/api/v1/health')).status, '200', "the new CA's client");
      assertRefused(await curl(agent, pki.client, '/api/v1/health'), "the old CA's client");
      assert.match(await askAgain(open), /^HTTP\/1\.1 200 /, 'the connection opened under the old CA');
    } finally {
      open.destroy();
    }
  },
);

reload('SIGHUP reloads the CA file at once; two CAs in one file both serve', async ({ agent, pki, caFile }) => {
  writeFileSync(caFile, Buffer.concat([readFileSync(pki.ca.certFile), readFileSync(pki.otherCa.certFile)]));
  agent.child.kill('SIGHUP');
  assert.ok(
    await eventually(
      () =>
        /tls: reload requested: client certificates required, now issued by a CA in \S+ \(O=Fleet, CN=Fleet Client CA; CN=Other CA\)/.test(
          agent.output(),
        ),
      3000,
    ),
    agent.output(),
  );
  assert.is((await curl(agent, pki.client, '/api/v1/health')).status, '200');
  assert.is((await curl(agent, pki.other, '/api/v1/health')).status, '200');
});

reload('a broken CA file keeps the CAs in service, with an error naming the file', async ({ agent, pki, caFile }) => {
  writeFileSync(caFile, readFileSync(pki.ca.certFile));
  agent.child.kill('SIGHUP');
  assert.ok(
    await eventually(
      () =>
        /tls: reload requested: client certificates required, now issued by a CA in \S+ \(O=Fleet, CN=Fleet Client CA\)$/m.test(
          agent.output(),
        ),
      3000,
    ),
    agent.output(),
  );
  writeFileSync(caFile, 'garbage\n');
  assert.ok(
    await eventually(
      () =>
        new RegExp(
          `<3>\\S+ tls: files changed: ${escaped(caFile)}: holds no PEM certificate; keeping the client CAs in service \\(O=Fleet, CN=Fleet Client CA\\)`,
        ).test(agent.output()),
      5000,
    ),
    agent.output(),
  );
  assert.is((await curl(agent, pki.client, '/api/v1/health')).status, '200', 'the old CA still serves');
  assertRefused(await curl(agent, pki.other, '/api/v1/health'), 'the other CA still refused');
  assert.not.match(agent.output(), /\n\s+at /, 'no stack trace');
  assert.ok(agent.child.exitCode === null, 'still running');
});

reload.run();
