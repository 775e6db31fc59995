// dagent login/logout and TLS trust against the built agent: a first contact from a pipe
// (the pin and fingerprint shown, nothing asked or sent without --pin, the password never
// echoed), a wrong password (3), a key that changed (4, both pins named, no request sent to
// the new key), --ca, plain HTTP to another machine (2 without --insecure-http, nothing
// sent), a dead host (4), and the profile file (0600, never a password).
import { randomBytes } from 'node:crypto';
import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, networkInterfaces } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN } from './helpers/agent.ts';
import {
  dagent,
  hasRoute,
  logCaughtUp,
  pinOfFile,
  recorder,
  startClientAgent,
  tempHome,
  tokenProfile,
  type ClientAgent,
} from './helpers/dagent.ts';
import { makeCa, makePair, peerCert, spkiPinOf } from './helpers/tls.ts';

type Ctx = { agent: ClientAgent; home: string };
const profilesFile = (home: string) => join(home, 'dagent/profiles.json');
const readProfiles = (home: string) => JSON.parse(readFileSync(profilesFile(home), 'utf8'));

const trust = suite<Ctx>('dagent login: trust and credentials (TLS on)');
trust.before(async (ctx) => {
  ctx.agent = await startClientAgent(true);
});
trust.after(async (ctx) => {
  await ctx.agent?.cleanup();
});
trust.before.each((ctx) => {
  ctx.home = tempHome();
});
trust.after.each((ctx) => rmSync(ctx.home, { recursive: true, force: true }));

trust(
  'standard input not a terminal: a first contact without --pin stops before any request (4, naming --pin), the piped password never echoed',
  async ({ agent, home }) => {
    const cert = new X509Certificate(readFileSync(join(agent.dir, 'tls/cert.pem')));
    // Whatever login or --token-stdin would ask: the login, the token, the health check.
    const requests = () =>
      agent
        .output()
        .split('\n')
        .filter((l) => /\/api\/v1\/(agentusers\/loginusertoagent|tokens|health)/.test(l)).length;
    const before = requests();
    for (const args of [['--user', ADMIN.username], ['--token-stdin']]) {
      const r = await dagent(['login', agent.clientUrl, ...args], { home, input: `${ADMIN.password}\n` });
      assert.is(r.code, 4, r.stderr);
      assert.not.ok(r.stderr.includes(ADMIN.password), `the password was echoed:\n${r.stderr}`);
      assert.not.ok(r.stderr.includes('[y/N]'), r.stderr);
      assert.ok(r.stderr.includes(`SPKI pin:     ${agent.pin}\n`), r.stderr);
      assert.ok(r.stderr.includes(`SHA-256 fingerprint: ${cert.fingerprint256}\n`), r.stderr);
      assert.ok(
        r.stderr.endsWith(
          `dagent: not trusted: ${agent.clientUrl} (standard input is not a terminal, so nobody was asked; ` +
            `once the pin is checked on the device: dagent login ${agent.clientUrl} --pin ${agent.pin}, or --ca FILE)\n`,
        ),
        r.stderr,
      );
      assert.not.ok(existsSync(profilesFile(home)));
    }
    await logCaughtUp(agent.output, () => fetch(`${agent.url}/api/v1/devicestatus/get`));
    assert.is(requests(), before, 'a request left before the key was trusted');
  },
);

trust("a wrong password (the key given by --pin): exit 3 with the API's text, nothing stored", async ({ agent, home }) => {
  const r = await dagent(['login', agent.clientUrl, '--user', ADMIN.username, '--pin', agent.pin!], { home, input: 'not the password\n' });
  assert.is(r.code, 3);
  assert.ok(r.stderr.endsWith('dagent: invalid username or password\n'), r.stderr);
  assert.not.ok(r.stderr.includes('not the password'), r.stderr);
  assert.not.ok(existsSync(profilesFile(home)));
});

trust('--token-stdin with --pin: the profile holds URL, token and pin, mode 0600 in a 0700 directory', async ({ agent, home }) => {
  await tokenProfile(agent, home);
  assert.is(statSync(profilesFile(home)).mode & 0o777, 0o600);
  assert.is(statSync(join(home, 'dagent')).mode & 0o777, 0o700);
  const p = readProfiles(home).profiles.default;
  assert.is(p.url, agent.clientUrl);
  assert.is(p.pin, agent.pin);
  assert.match(p.token, /^eyJ/);
  const s = await dagent(['status', '--json'], { home });
  assert.is(s.code, 0, s.stderr);
});

trust('--pin of another key is refused before any login (4), naming both pins', async ({ agent, home }) => {
  const other = `sha256//${randomBytes(32).toString('base64')}`;
  const logins = () =>
    agent
      .output()
      .split('\n')
      .filter((l) => l.includes('/api/v1/agentusers/loginusertoagent')).length;
  const before = logins();
  const r = await dagent(['login', agent.clientUrl, '--user', ADMIN.username, '--pin', other], { home, input: `${ADMIN.password}\n` });
  assert.is(r.code, 4);
  assert.ok(r.stderr.startsWith(`dagent: the device's key has changed: trusted ${other}, presented ${agent.pin}.`), r.stderr);
  await new Promise((r) => setTimeout(r, 300));
  assert.is(logins(), before, 'the login request reached a key that is not the pinned one');
});

trust("--ca FILE: the device's certificate as CA is trusted; another CA is refused (4)", async ({ agent, home }) => {
  const ok = await dagent(['login', agent.clientUrl, '--token-stdin', '--ca', join(agent.dir, 'tls/cert.pem')], {
    home,
    input: `${await agent.login()}\n`,
  });
  assert.is(ok.code, 0, ok.stderr);
  assert.is(readProfiles(home).profiles.default.ca, readFileSync(join(agent.dir, 'tls/cert.pem'), 'utf8'));
  assert.is((await dagent(['status', '--json'], { home })).code, 0);
  makeCa(join(home, 'ca.pem'), join(home, 'ca.key'));
  const bad = await dagent(['login', agent.clientUrl, '--token-stdin', '--ca', join(home, 'ca.pem'), '--profile', 'other'], {
    home,
    input: 'x\n',
  });
  assert.is(bad.code, 4);
  assert.match(bad.stderr, /^dagent: 127\.0\.0\.1:\d+: the certificate is not trusted \(/);
});

when('/api/v1/tokens')('login makes the token dagent@<host> (a second login replaces it); logout revokes it', async ({ agent, home }) => {
  const input = `${ADMIN.password}\n`;
  const r = await dagent(['login', agent.clientUrl, '--user', ADMIN.username, '--pin', agent.pin!, '--json'], { home, input });
  assert.is(r.code, 0, r.stderr);
  const text = readFileSync(profilesFile(home), 'utf8');
  assert.not.ok(text.includes(ADMIN.password), 'the password is stored');
  const p = readProfiles(home).profiles.default;
  assert.match(p.token, /^dat_/);
  assert.is(p.tokenName, `dagent@${hostname()}`.replace(/[^A-Za-z0-9._@-]/g, '-').slice(0, 64));
  assert.is(p.pin, agent.pin);
  const again = await dagent(['login', agent.clientUrl, '--user', ADMIN.username], { home, input: `${ADMIN.password}\n` });
  assert.is(again.code, 0, again.stderr);
  const jwt = await agent.login();
  const list = async () =>
    ((await (await fetch(`${agent.url}/api/v1/tokens`, { headers: { Authorization: `Bearer ${jwt}` } })).json()) as any).tokens;
  assert.is((await list()).filter((t: any) => t.name === p.tokenName).length, 1);
  const out = await dagent(['logout'], { home });
  assert.is(out.code, 0, out.stderr);
  assert.is((await list()).filter((t: any) => t.name === p.tokenName).length, 0);
  assert.equal(readProfiles(home).profiles, {});
});

trust('a replaced key is refused (4) naming both pins, and the new key never sees a request', async ({ agent, home }) => {
  await tokenProfile(agent, home);
  const tls = join(agent.dir, 'tls');
  makePair(join(tls, 'new-cert.pem'), join(tls, 'new-key.pem'), { names: 'DNS:localhost,IP:127.0.0.1' });
  renameSync(join(tls, 'new-key.pem'), join(tls, 'key.pem'));
  renameSync(join(tls, 'new-cert.pem'), join(tls, 'cert.pem'));
  agent.child.kill('SIGHUP');
  const fresh = pinOfFile(join(tls, 'cert.pem'));
  const end = Date.now() + 15_000;
  while (spkiPinOf(await peerCert(agent.port)) !== fresh) {
    if (Date.now() > end) throw new Error('the agent did not take the new pair');
    await new Promise((r) => setTimeout(r, 200));
  }
  const before = agent
    .output()
    .split('\n')
    .filter((l) => l.includes('/api/v1/devicestatus/get')).length;
  const r = await dagent(['status'], { home });
  assert.is(r.code, 4);
  assert.ok(r.stderr.startsWith(`dagent: the device's key has changed: trusted ${agent.pin}, presented ${fresh}.`), r.stderr);
  const relogin = await dagent(['login', agent.clientUrl, '--token-stdin'], { home, input: 'x\n' });
  assert.is(relogin.code, 4, 'a new login over the profile keeps the stored pin');
  await new Promise((r) => setTimeout(r, 300));
  assert.is(
    agent
      .output()
      .split('\n')
      .filter((l) => l.includes('/api/v1/devicestatus/get')).length,
    before,
    'a request reached the new key',
  );
  // Checked on the device, the new pin is accepted when given.
  const ok = await dagent(['login', agent.clientUrl, '--token-stdin', '--pin', fresh], { home, input: `${await agent.login()}\n` });
  assert.is(ok.code, 0, ok.stderr);
  assert.is((await dagent(['status', '--json'], { home })).code, 0);
  agent.pin = fresh;
});

function when(route: string) {
  return hasRoute(route) ? trust : trust.skip;
}

trust.run();

const roles = suite<Ctx>("dagent login as a viewer: the token has the role's scopes; a missing scope is exit 3");
roles.before(async (ctx) => {
  ctx.agent = await startClientAgent(false, { users: [ADMIN, { username: 'vera', password: 'viewer password', role: 'viewer' }] });
  ctx.home = tempHome();
});
roles.after(async (ctx) => {
  await ctx.agent?.cleanup();
  if (ctx.home) rmSync(ctx.home, { recursive: true, force: true });
});

(hasRoute('/api/v1/tokens') ? roles : roles.skip)(
  "login; put, users and the token commands are refused with the API's texts (3); logout asks the password",
  async ({ agent, home }) => {
    const login = await dagent(['login', agent.clientUrl, '--user', 'vera'], { home, input: 'viewer password\n' });
    assert.is(login.code, 0, login.stderr);
    const jwt = await agent.login();
    const tokens = async () =>
      ((await (await fetch(`${agent.url}/api/v1/tokens`, { headers: { Authorization: `Bearer ${jwt}` } })).json()) as any).tokens;
    assert.equal(
      (await tokens()).map((t: any) => [t.username, t.scopes]),
      [['vera', ['status', 'files:read', 'metrics']]],
    );
    writeFileSync(join(home, 'f.txt'), 'f');
    const cases: Array<[string[], string]> = [
      [['put', 'f.txt', 'f.txt'], 'insufficient scope: files:write is required'],
      [['users'], 'insufficient scope: admin is required'],
      [['token', 'list'], 'insufficient scope: admin is required'],
      [['token', 'create', 'ci', '--scopes', 'status'], 'insufficient scope: admin is required'],
    ];
    for (const [args, text] of cases) {
      const r = await dagent(args, { home });
      assert.is(r.code, 3, args.join(' '));
      assert.is(r.stderr, `dagent: ${text}\n`);
    }
    assert.is((await dagent(['status', '--json'], { home })).code, 0);
    // Its own API token may not revoke itself: logout asks the password (here on standard input).
    const out = await dagent(['logout'], { home, input: 'viewer password\n' });
    assert.is(out.code, 0, out.stderr);
    assert.equal(await tokens(), []);
  },
);

roles.run();

const dead = suite<{ home: string }>('dagent: a host that does not answer');
dead.before((ctx) => {
  ctx.home = tempHome();
});
dead.after((ctx) => rmSync(ctx.home, { recursive: true, force: true }));

dead('login and a command against a closed port: exit 4, "could not connect"', async ({ home }) => {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  const r = await dagent(['login', `http://127.0.0.1:${port}`, '--token-stdin'], { home, input: 'token\n' });
  assert.is(r.code, 4);
  assert.is(r.stderr, `dagent: could not connect to 127.0.0.1:${port}: connection refused\n`);

  const agent = await startClientAgent(false);
  try {
    await tokenProfile(agent, home);
    await agent.stop();
    const s = await dagent(['status'], { home });
    assert.is(s.code, 4);
    assert.is(s.stderr, `dagent: could not connect to 127.0.0.1:${agent.port}: connection refused\n`);
  } finally {
    await agent.cleanup();
  }
});

dead.run();

const plain = suite<{ home: string }>('dagent login over plain HTTP');
plain.before.each((ctx) => {
  ctx.home = tempHome();
});
plain.after.each((ctx) => rmSync(ctx.home, { recursive: true, force: true }));

/** An IPv4 address of this machine that is not loopback: another machine, as far as dagent can tell. */
const other = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

(other ? plain : plain.skip)(
  'to another machine: refused before connecting (2, naming --insecure-http); with --insecure-http the login is sent',
  async ({ home }) => {
    const rec = await recorder();
    try {
      const url = `http://${other}:${rec.port}`;
      for (const [args, what] of [
        [['--user', ADMIN.username], 'password'],
        [['--token-stdin'], 'token'],
      ] as const) {
        const r = await dagent(['login', url, ...args], { home, input: `${ADMIN.password}\n` });
        assert.is(r.code, 2, r.stderr);
        assert.is(
          r.stderr,
          `dagent: refusing to log in over plain HTTP to ${url}, which is not this machine: the ${what} would cross the network ` +
            'unencrypted; use https://, or --insecure-http to send it anyway\n',
        );
      }
      assert.is(rec.connections, 0, 'dagent connected');
      const sent = await dagent(['login', url, '--user', ADMIN.username, '--insecure-http'], { home, input: `${ADMIN.password}\n` });
      assert.is(sent.code, 3, sent.stderr);
      assert.is(sent.stderr, 'dagent: invalid username or password\n');
      assert.match(rec.heads[0] ?? '', /^POST \/api\/v1\/agentusers\/loginusertoagent HTTP\/1\.1\r\n/);
      assert.not.ok(existsSync(profilesFile(home)));
    } finally {
      await rec.close();
    }
  },
);

plain('to this machine (127.0.0.0/8, ::1, localhost): no --insecure-http needed', async ({ home }) => {
  const rec = await recorder();
  try {
    for (const host of ['127.0.0.1', '127.0.0.2', '[::1]', 'localhost']) {
      const r = await dagent(['login', `http://${host}:${rec.port}`, '--user', ADMIN.username], { home, input: `${ADMIN.password}\n` });
      assert.is(r.stderr, 'dagent: invalid username or password\n', host);
    }
    assert.is(rec.heads.length, 4);
  } finally {
    await rec.close();
  }
});

plain(
  'from a pipe, the secret is its first line: no --user, or an empty pipe, is a usage error (2) before any connection',
  async ({ home }) => {
    const rec = await recorder('127.0.0.1');
    try {
      const url = `http://127.0.0.1:${rec.port}`;
      for (const [args, input, error] of [
        [[], `${ADMIN.password}\n`, '--user NAME is required when standard input is not a terminal'],
        [['--user', ADMIN.username], '', 'no password on standard input'],
        [['--user', ADMIN.username], '\nlater line\n', 'no password on standard input'],
        [['--token-stdin'], '', 'no token on standard input'],
      ] as const) {
        const r = await dagent(['login', url, ...args], { home, input });
        assert.is(r.code, 2, r.stderr);
        assert.is(r.stderr, `dagent: ${error}\n`);
      }
      assert.is(rec.connections, 0, 'dagent connected');
      assert.not.ok(existsSync(profilesFile(home)));
    } finally {
      await rec.close();
    }
  },
);

plain.run();
