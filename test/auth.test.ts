import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import jwt from 'jsonwebtoken';
import { Agent, request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN, runCli, startAgent, type TestAgent } from './helpers/agent.ts';
import { bearer, jsonPost, rawRequest } from './helpers/http.ts';

const LOGIN = '/api/v1/agentusers/loginusertoagent';
const STATUS = '/api/v1/devicestatus/get';

type Ctx = { agent: TestAgent; secret: string };

const login = suite<Ctx>('login');
login.before(async (ctx) => {
  ctx.agent = await startAgent({ users: [ADMIN, { username: 'bob', password: 'bob-password' }] });
});
login.after(async (ctx) => {
  await ctx.agent.cleanup();
});

login('answers 200 with token and user {id, username, role, scopes, directory}', async ({ agent }) => {
  const res = await jsonPost(agent.url + LOGIN, ADMIN);
  assert.is(res.status, 200);
  const body = (await res.json()) as { token: string; user: { id: string; username: string } };
  assert.equal(body.user, {
    id: agent.users[0]!.id,
    username: 'admin',
    role: 'admin',
    scopes: ['status', 'files:read', 'files:write', 'audio', 'metrics', 'admin'],
    directory: null,
  });
  assert.type(body.token, 'string');
});

login('issues an HS256 JWT with sub, username, iat and exp = iat + ttl', async ({ agent }) => {
  const token = await agent.login();
  const decoded = jwt.decode(token, { complete: true })!;
  assert.is(decoded.header.alg, 'HS256');
  const p = decoded.payload as jwt.JwtPayload;
  assert.is(p.sub, agent.users[0]!.id);
  assert.is(p.username, 'admin');
  assert.is(p.exp! - p.iat!, 3600);
  assert.ok(Math.abs(p.iat! - Date.now() / 1000) < 5);
});

login('a wrong password gives 401 invalid username or password', async ({ agent }) => {
  const res = await jsonPost(agent.url + LOGIN, { username: 'admin', password: 'wrong-password' });
  assert.is(res.status, 401);
  assert.equal(await res.json(), { error: 'invalid username or password' });
  assert.match(res.headers.get('content-type')!, /^application\/json/);
});

login('an unknown user gives the same 401 after the same hashing work', async ({ agent }) => {
  const time = async (username: string) => {
    const t = performance.now();
    const res = await jsonPost(agent.url + LOGIN, { username, password: 'wrong-password' });
    assert.is(res.status, 401);
    assert.equal(await res.json(), { error: 'invalid username or password' });
    return performance.now() - t;
  };
  const known: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < 3; i++) {
    known.push(await time('bob'));
    unknown.push(await time(`ghost${i}`));
  }
  const median = (a: number[]) => a.sort((x, y) => x - y)[1]!;
  // Not a speed assertion: it shows the unknown user pays for a full scrypt hash too.
  const ratio = median(unknown) / median(known);
  assert.ok(ratio > 0.5 && ratio < 2, `unknown/known time ratio ${ratio.toFixed(2)}`);
});

const badBodies: Array<[string, string, Record<string, string>, number, string | RegExp]> = [
  ['a body that is not JSON', '{"username": ', {}, 400, /must be a JSON object/],
  ['a JSON null', 'null', {}, 400, /must be a JSON object/],
  ['a JSON array', '[]', {}, 400, /must be a JSON object/],
  ['a JSON string', '"admin"', {}, 400, /must be a JSON object/],
  ['a missing username', '{"password":"x"}', {}, 400, 'username is required and must be a string'],
  ['a numeric username', '{"username":1,"password":"x"}', {}, 400, 'username is required and must be a string'],
  ['a missing password', '{"username":"admin"}', {}, 400, 'password is required and must be a string'],
  ['an object password', '{"username":"admin","password":{"$ne":1}}', {}, 400, 'password is required and must be a string'],
  ['broken UTF-8', '{"username":"\xff\xfe","password":"x"}', {}, 400, /must be a JSON object/],
  [
    'a form-encoded body',
    'username=admin&password=x',
    { 'Content-Type': 'application/x-www-form-urlencoded' },
    400,
    /must be a JSON object/,
  ],
];
for (const [name, body, headers, status, error] of badBodies) {
  login(`${name} gives ${status}`, async ({ agent }) => {
    const res = await fetch(agent.url + LOGIN, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: name === 'broken UTF-8' ? Buffer.from(body, 'latin1') : body,
    });
    assert.is(res.status, status);
    const got = ((await res.json()) as { error: string }).error;
    if (typeof error === 'string') assert.is(got, error);
    else assert.match(got, error);
  });
}

login('a body over 16 KiB gives 413, declared or streamed', async ({ agent }) => {
  const big = JSON.stringify({ username: 'admin', password: 'x'.repeat(17 * 1024) });
  const res = await jsonPost(agent.url + LOGIN, big);
  assert.is(res.status, 413);
  assert.match(((await res.json()) as { error: string }).error, /too large/);
  // Chunked, no Content-Length: exactly one 413 and the connection closes.
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(agent.url + LOGIN, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, (r) => {
      r.resume();
      resolve(r.statusCode!);
    });
    req.on('error', reject);
    for (let i = 0; i < 40; i++) req.write('x'.repeat(1024));
    req.end();
  });
  assert.is(status, 413);
});

const tokens = suite<Ctx>('tokens');
tokens.before(async (ctx) => {
  ctx.agent = await startAgent({ users: [ADMIN, { username: 'bob', password: 'bob-password' }] });
  ctx.secret = readFileSync(join(ctx.agent.dir, 'jwt.secret'), 'utf8').trim();
});
tokens.after(async (ctx) => {
  await ctx.agent.cleanup();
});

const status = (agent: TestAgent, headers: Record<string, string> = {}, path = STATUS) => fetch(agent.url + path, { headers });

async function expect401(res: Response, error: string) {
  assert.is(res.status, 401);
  assert.is(res.headers.get('www-authenticate'), 'Bearer');
  assert.equal(await res.json(), { error });
}

tokens('a valid token opens status; the scheme name is case-insensitive', async ({ agent }) => {
  const token = await agent.login();
  assert.is((await status(agent, bearer(token))).status, 200);
  assert.is((await status(agent, { Authorization: `bearer ${token}` })).status, 200);
  assert.is((await status(agent, { Authorization: `BEARER ${token}` })).status, 200);
});

tokens('no token gives 401 with WWW-Authenticate: Bearer', async ({ agent }) => {
  await expect401(await status(agent), 'missing bearer token');
});

tokens('every spelling of a protected path that reaches its handler needs the token', async ({ agent }) => {
  for (const p of ['/API/V1/DEVICESTATUS/GET', '/api/v1/devicestatus/get/', '/Api/V1/DeviceStatus/Get/']) {
    await expect401(await status(agent, {}, p), 'missing bearer token');
  }
  const token = await agent.login();
  assert.is((await status(agent, bearer(token), '/API/V1/DEVICESTATUS/GET/')).status, 200);
});

tokens('a malformed header gives 401', async ({ agent }) => {
  for (const h of ['Basic YWRtaW46eA==', 'Bearer', 'Bearer not-a-jwt', 'Token abc.def.ghi']) {
    await expect401(await status(agent, { Authorization: h }), 'malformed authorization header, expected: Bearer <token>');
  }
});

tokens('the Authorization header is found in any case of its name; of two, the first counts (as Node keeps it)', async ({ agent }) => {
  const token = await agent.login();
  const ask = (lines: string) => rawRequest(agent.port, `GET ${STATUS} HTTP/1.1\r\nHost: device\r\n${lines}Connection: close\r\n\r\n`);
  for (const name of ['authorization', 'AUTHORIZATION', 'AuThOrIzAtIoN']) {
    assert.match(await ask(`${name}: Bearer ${token}\r\n`), /^HTTP\/1\.1 200 /, name);
  }
  assert.match(await ask(`Authorization: Bearer ${token}\r\nAuthorization: Bearer x.y.z\r\n`), /^HTTP\/1\.1 200 /);
  assert.match(await ask(`Authorization: Bearer x.y.z\r\nAuthorization: Bearer ${token}\r\n`), /^HTTP\/1\.1 401 [^]*invalid token/);
  assert.match(await ask(`X-Authorization: Bearer ${token}\r\n`), /^HTTP\/1\.1 401 [^]*missing bearer token/);
});

tokens('the token in the query string is never accepted', async ({ agent }) => {
  const token = await agent.login();
  await expect401(await status(agent, {}, `${STATUS}?token=${token}`), 'missing bearer token');
  await expect401(await status(agent, {}, `${STATUS}?access_token=${token}`), 'missing bearer token');
});

tokens('forged, re-signed and claim-less tokens give 401 invalid token', async ({ agent, secret }) => {
  const sub = agent.users[0]!.id;
  const sv = agent.users[0]!.sessionVersion;
  const claims = { sub, username: 'admin', sv };
  const forged = [
    jwt.sign(claims, 'another-secret-of-sufficient-length-123456', { algorithm: 'HS256', expiresIn: 60 }),
    jwt.sign(claims, secret, { algorithm: 'HS512', expiresIn: 60 }),
    jwt.sign(claims, secret, { algorithm: 'HS384', expiresIn: 60 }),
    jwt.sign(claims, secret, { algorithm: 'HS256' }), // no exp
    jwt.sign({ ...claims, iat: Math.floor(Date.now() / 1000) + 3600 }, secret, { algorithm: 'HS256', expiresIn: 7200 }),
    jwt.sign({ username: 'admin', sv }, secret, { algorithm: 'HS256', expiresIn: 60 }), // no sub
    // alg none: header {"alg":"none"}, no signature
    `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ ...claims, exp: 9999999999 })).toString('base64url')}.`,
  ];
  for (const token of forged) await expect401(await status(agent, bearer(token)), 'invalid token');
  // a tampered payload with the original signature
  const good = await agent.login();
  const [h, , s] = good.split('.');
  const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, username: 'root', exp: 9999999999 })).toString('base64url')}.${s}`;
  await expect401(await status(agent, bearer(tampered)), 'invalid token');
  // a huge token
  await expect401(await status(agent, bearer(`${'a'.repeat(5000)}.${'b'.repeat(5000)}.c`)), 'invalid token');
});

tokens('a token for another user id or session version is revoked', async ({ agent, secret }) => {
  const mk = (sub: string, sv: string) => jwt.sign({ sub, username: 'admin', sv }, secret, { algorithm: 'HS256', expiresIn: 60 });
  await expect401(await status(agent, bearer(mk('no-such-id', agent.users[0]!.sessionVersion))), 'token revoked');
  await expect401(await status(agent, bearer(mk(agent.users[0]!.id, 'old'))), 'token revoked');
});

/** A status request over `keepAlive` (one socket); the answer and the local port it came on. */
function statusOver(agent: TestAgent, keepAlive: Agent, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string; port: number }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: agent.port, path: STATUS, headers, agent: keepAlive }, (res) => {
      const port = res.socket.localPort!;
      let body = '';
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode!, body, port }));
    });
    req.on('error', reject);
    req.end();
  });
}

tokens('on one keep-alive connection every request is judged by its own Authorization header', async ({ agent }) => {
  const admin = await agent.login();
  const bob = await agent.login('bob', 'bob-password');
  // From an address of its own: the 401s of the tests above, from 127.0.0.1, may have used
  // up that address's log lines of refusals in full for this 10 s (docs/behaviour.md, "Refusals in a flood").
  const keepAlive = new Agent({ keepAlive: true, maxSockets: 1, localAddress: '127.0.0.2' });
  const get = (headers: Record<string, string>) => statusOver(agent, keepAlive, headers);
  const [h, p, sig] = admin.split('.');
  const tampered = `${h}.${p}.${sig!.slice(0, -2)}${sig!.endsWith('AA') ? 'BB' : 'AA'}`;
  const logFrom = agent.output().length;
  const steps: [Record<string, string>, number, string?][] = [
    [bearer(admin), 200],
    [bearer(admin), 200],
    [bearer(tampered), 401, 'invalid token'],
    [bearer(bob), 200],
    [{ Authorization: 'Bearer not-a-jwt' }, 401, 'malformed authorization header, expected: Bearer <token>'],
    [{}, 401, 'missing bearer token'],
    [{ Authorization: `bearer ${admin}` }, 200],
  ];
  const ports = new Set<number>();
  for (const [headers, code, error] of steps) {
    const r = await get(headers);
    ports.add(r.port);
    assert.is(r.status, code, JSON.stringify(headers));
    if (error) assert.equal(JSON.parse(r.body), { error });
  }
  keepAlive.destroy();
  assert.is(ports.size, 1, 'all requests went over one connection');
  await new Promise((r) => setTimeout(r, 100)); // the log is written once per event-loop turn
  const users = agent
    .output()
    .slice(logFrom)
    .split('\n')
    .filter((l) => l.includes(`GET ${STATUS} `))
    .map((l) => l.split(' ').at(-1));
  assert.equal(users, ['admin', 'admin', '-', 'bob', '-', '-', 'admin']);
});

tokens('a token revoked while its keep-alive connection stays open is refused on that connection', async ({ agent }) => {
  const bob = await agent.login('bob', 'bob-password');
  const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = () => statusOver(agent, keepAlive, bearer(bob));
  const first = await get();
  assert.is(first.status, 200);
  assert.is((await get()).status, 200, 'the same header again: its claims are reused');
  // A new password hash (the same password) gives bob a new session version.
  const r = await runCli(['user', 'passwd', 'bob', '--config', join(agent.dir, 'config.json')], { input: 'bob-password\n' });
  assert.is(r.code, 0, r.stderr);
  const changed = Date.now();
  let res = await get();
  while (res.status === 200 && Date.now() - changed < 2000) {
    await new Promise((x) => setTimeout(x, 100));
    res = await get();
  }
  keepAlive.destroy();
  assert.is(res.port, first.port, 'still the first connection');
  assert.is(res.status, 401);
  assert.equal(JSON.parse(res.body), { error: 'token revoked' });
});

tokens('removing a user or changing its password revokes its tokens within 2 s', async ({ agent }) => {
  const cfg = join(agent.dir, 'config.json');
  const adminToken = await agent.login();
  const bobToken = await agent.login('bob', 'bob-password');
  assert.is((await status(agent, bearer(adminToken))).status, 200);

  let r = await runCli(['user', 'passwd', 'admin', '--config', cfg], { input: 'fresh-password\n' });
  assert.is(r.code, 0, r.stderr);
  const changed = Date.now();
  let res: Response;
  while ((res = await status(agent, bearer(adminToken))).status === 200 && Date.now() - changed < 2000) {
    await new Promise((x) => setTimeout(x, 100));
  }
  await expect401(res, 'token revoked');
  assert.ok(Date.now() - changed <= 2000, `took ${Date.now() - changed} ms`);
  // the new password works, the old one does not
  await agent.login('admin', 'fresh-password');
  assert.is((await jsonPost(agent.url + LOGIN, ADMIN)).status, 401);

  r = await runCli(['user', 'remove', 'bob', '--config', cfg]);
  assert.is(r.code, 0, r.stderr);
  const removed = Date.now();
  while ((res = await status(agent, bearer(bobToken))).status === 200 && Date.now() - removed < 2000) {
    await new Promise((x) => setTimeout(x, 100));
  }
  await expect401(res, 'token revoked');
  assert.ok(Date.now() - removed <= 2000, `took ${Date.now() - removed} ms`);
});

const expiry = suite<Ctx>('token expiry');
// 2 s, not 1: iat and exp are whole seconds (exp - iat = tokenTtlSeconds), so a token
// lives between ttl - 1 and ttl seconds; with 1 s, one issued late in a second could expire
// before a loaded machine used it once.
expiry.before(async (ctx) => {
  ctx.agent = await startAgent({ config: { tokenTtlSeconds: 2 } });
});
expiry.after(async (ctx) => {
  await ctx.agent.cleanup();
});

expiry('a token stops working when it expires', async ({ agent }) => {
  const token = await agent.login();
  const { iat, exp } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
  assert.is(exp - iat, 2);
  assert.is((await status(agent, bearer(token))).status, 200);
  // Until its exp has passed (whole seconds), then a little.
  await new Promise((r) => setTimeout(r, Math.max(0, exp * 1000 - Date.now()) + 200));
  await expect401(await status(agent, bearer(token)), 'token expired');
});

const limiter = suite<Ctx>('failed-login limit');
limiter.before(async (ctx) => {
  ctx.agent = await startAgent({ users: [ADMIN, { username: 'bob', password: 'bob-password' }] });
});
limiter.after(async (ctx) => {
  await ctx.agent.cleanup();
});

/** Login from a chosen loopback source address (127.0.0.x all reach the agent). */
function loginFrom(
  agent: TestAgent,
  localAddress: string,
  body: unknown,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port: agent.port,
        path: LOGIN,
        method: 'POST',
        localAddress,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

limiter('the 11th failure within the window gets 429 with Retry-After, even with the right password', async ({ agent }) => {
  for (let i = 0; i < 10; i++) {
    const r = await loginFrom(agent, '127.0.0.1', { username: 'admin', password: `wrong-${i}` });
    assert.is(r.status, 401, `attempt ${i + 1}`);
  }
  const blocked = await loginFrom(agent, '127.0.0.1', ADMIN);
  assert.is(blocked.status, 429);
  const retry = Number(blocked.headers['retry-after']);
  assert.ok(retry > 800 && retry <= 900, `Retry-After ${retry}`);
  assert.equal(JSON.parse(blocked.body), { error: 'too many failed logins, try again later' });
});

limiter('other users and other addresses are unaffected', async ({ agent }) => {
  assert.is((await loginFrom(agent, '127.0.0.1', { username: 'bob', password: 'bob-password' })).status, 200);
  assert.is((await loginFrom(agent, '127.0.0.2', ADMIN)).status, 200);
});

login.run();
tokens.run();
expiry.run();
limiter.run();
