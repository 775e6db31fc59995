// API tokens against a real agent and the real CLI (docs/api.md, "API tokens"): the text's
// format, a file holding only hashes (0600), expiry and revocation within 2 s (API and CLI),
// rights that shrink with the user's role, the CLI and the agent writing the file at once
// (no token lost or brought back), a token used from two addresses, and the API's answers:
// admin sees everyone's, 404 for another's, 409 for a name taken, 403 for more rights, 400
// naming the field.
import { request as httpRequest } from 'node:http';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, startAgent, type TestAgent } from './helpers/agent.ts';

const PASSWORD = 'a password for tokens';
const TOKEN = /^dat_[A-Za-z0-9_-]{43}$/;

interface Record {
  id: string;
  name: string;
  username: string;
  scopes: string[];
  directory: string | null;
  expiresAt: string | null;
  lastUsedAt: string | null;
  lastUsedFrom: string | null;
}
interface Ctx {
  agent: TestAgent;
  logins: { [name: string]: string };
  secrets: string[];
}

const tokens = suite<Ctx>('API tokens');

tokens.before(async (ctx) => {
  ctx.secrets = [];
  ctx.agent = await startAgent({
    // On every address, so that 127.0.0.2 reaches it too (a token used from two places).
    config: { host: '0.0.0.0' },
    users: [
      { username: 'vera', password: PASSWORD, role: 'viewer' },
      { username: 'otto', password: PASSWORD, role: 'operator' },
      { username: 'ada', password: PASSWORD, role: 'admin' },
    ],
  });
  mkdirSync(join(ctx.agent.baseDir, 'incoming'));
  ctx.logins = {};
  for (const u of ['vera', 'otto', 'ada']) ctx.logins[u] = await ctx.agent.login(u, PASSWORD);
});

tokens.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

async function api(agent: TestAgent, method: string, path: string, bearer: string, body?: unknown) {
  const res = await fetch(`${agent.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  const json = res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined;
  return { status: res.status, json, headers: res.headers };
}

async function create(ctx: Ctx, login: string, body: unknown): Promise<Record & { token: string }> {
  const r = await api(ctx.agent, 'POST', '/api/v1/tokens', login, body);
  assert.is(r.status, 201, JSON.stringify(r.json));
  ctx.secrets.push(r.json.token);
  return r.json;
}

/** Polls until `ok` holds; false after `ms` (2 s is the bound the agent promises, plus a margin for this busy host's request). */
async function within(ms: number, ok: () => Promise<boolean>): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await ok()) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const statusOf = (agent: TestAgent, token: string, path = '/api/v1/devicestatus/get') =>
  api(agent, 'GET', path, token).then((r) => r.status);

const cli = (agent: TestAgent, ...args: string[]) => runCli([...args, '--config', agent.configFile]);

tokens('the text is dat_ and 43 base64url characters; the file (0600) holds its SHA-256 and never the text', async (ctx) => {
  const made = await create(ctx, ctx.logins.otto!, { name: 'ci' });
  assert.match(made.token, TOKEN);
  assert.equal(made.scopes, ['status', 'files:read', 'files:write', 'audio', 'metrics']);
  assert.is(made.directory, null);
  assert.is(made.username, 'otto');
  // 365 days by default.
  assert.is(Math.round((Date.parse(made.expiresAt!) - Date.now()) / 86_400_000), 365);
  const file = join(ctx.agent.dir, 'tokens.json');
  assert.is(statSync(file).mode & 0o777, 0o600);
  const text = readFileSync(file, 'utf8');
  assert.not.ok(text.includes(made.token), 'the text is not in the file');
  assert.not.ok(text.includes(made.token.slice(4)), 'nor its random part');
  const { createHash } = await import('node:crypto');
  assert.ok(text.includes(createHash('sha256').update(made.token).digest('hex')), 'its hash is');
  // The list never shows the text or the hash.
  const list = await api(ctx.agent, 'GET', '/api/v1/tokens', ctx.logins.otto!);
  assert.equal(Object.keys(list.json.tokens[0]).sort(), [
    'createdAt',
    'directory',
    'expiresAt',
    'id',
    'lastUsedAt',
    'lastUsedFrom',
    'name',
    'scopes',
    'username',
  ]);
  assert.is(await statusOf(ctx.agent, made.token), 200);
});

tokens("the API refuses: 400 naming the field, 409 for a name taken, 403 for more rights, 404 for another user's", async (ctx) => {
  const { agent, logins } = ctx;
  const bad = async (body: unknown, status: number, error: string) => {
    const r = await api(agent, 'POST', '/api/v1/tokens', logins.vera!, body);
    assert.is(r.status, status, JSON.stringify(body));
    assert.equal(r.json, { error }, JSON.stringify(body));
  };
  await bad('not json', 400, 'request body must be a JSON object (Content-Type: application/json)');
  await bad({}, 400, 'name must be 1-64 of A-Z a-z 0-9 . _ @ -');
  await bad({ name: 'a b' }, 400, 'name must be 1-64 of A-Z a-z 0-9 . _ @ -');
  await bad({ name: 'x'.repeat(65) }, 400, 'name must be 1-64 of A-Z a-z 0-9 . _ @ -');
  await bad({ name: 'ok', scopes: [] }, 400, 'scopes must be a non-empty array of: status, files:read, files:write, audio, metrics, admin');
  await bad(
    { name: 'ok', scopes: ['root'] },
    400,
    'scopes must be a non-empty array of: status, files:read, files:write, audio, metrics, admin',
  );
  await bad({ name: 'ok', expiresInDays: 0 }, 400, 'expiresInDays must be an integer from 1 to 3650, or null for no expiry');
  await bad({ name: 'ok', expiresInDays: 3651 }, 400, 'expiresInDays must be an integer from 1 to 3650, or null for no expiry');
  await bad({ name: 'ok', expiresInDays: 1.5 }, 400, 'expiresInDays must be an integer from 1 to 3650, or null for no expiry');
  await bad({ name: 'ok', directory: '../up' }, 400, 'directory must be a path relative to the base directory, or null');
  await bad({ name: 'ok', directory: 'nowhere' }, 400, 'directory nowhere is not a directory inside the base directory');
  await bad({ name: 'ok', username: 7 }, 400, 'username must be a string');
  await bad({ name: 'ok', owner: 'x' }, 400, 'owner is not a field of a token');
  // More than the viewer has, or a token for someone else.
  await bad({ name: 'ok', scopes: ['files:write'] }, 403, 'a token cannot have more rights than its user');
  await bad({ name: 'ok', username: 'otto' }, 403, 'a token cannot have more rights than its user');
  await create(ctx, logins.vera!, { name: 'wall', scopes: ['status'], expiresInDays: null });
  await bad({ name: 'wall' }, 409, 'a token named wall already exists');
  // The same name for another user is fine.
  const ottos = await create(ctx, logins.otto!, { name: 'wall', scopes: ['status'] });
  // Another user's token: 404, as an unknown one.
  const del = await api(agent, 'DELETE', `/api/v1/tokens/${ottos.id}`, logins.vera!);
  assert.is(del.status, 404);
  assert.equal(del.json, { error: 'token not found' });
  assert.is((await api(agent, 'DELETE', '/api/v1/tokens/no-such-id', logins.vera!)).status, 404);
  // Each sees their own; the admin everyone's.
  const names = async (who: string) =>
    ((await api(agent, 'GET', '/api/v1/tokens', logins[who]!)).json.tokens as Record[]).map((t) => `${t.username}/${t.name}`).sort();
  assert.equal(await names('vera'), ['vera/wall']);
  assert.equal(await names('otto'), ['otto/ci', 'otto/wall']);
  assert.equal(await names('ada'), ['otto/ci', 'otto/wall', 'vera/wall']);
  // The admin makes one for vera, within vera's rights; and revokes another's.
  const forVera = await api(agent, 'POST', '/api/v1/tokens', logins.ada!, { name: 'by-admin', username: 'vera', scopes: ['files:write'] });
  assert.equal([forVera.status, forVera.json], [403, { error: 'a token cannot have more rights than its user' }]);
  const made = await create(ctx, logins.ada!, { name: 'by-admin', username: 'vera' });
  assert.equal([made.username, made.scopes], ['vera', ['status', 'files:read', 'metrics']]);
  assert.is((await api(agent, 'DELETE', `/api/v1/tokens/${made.id}`, logins.ada!)).status, 204);
  // A token without `admin` cannot manage tokens; one with it can.
  const scripted = await api(agent, 'GET', '/api/v1/tokens', made.token);
  assert.is(scripted.status, 401, 'a revoked token');
});

tokens('a token directory narrower than its user, and never wider', async (ctx) => {
  const { agent, logins } = ctx;
  const scoped = await create(ctx, logins.otto!, { name: 'incoming', scopes: ['files:read', 'files:write'], directory: 'incoming' });
  writeFileSync(join(agent.baseDir, 'incoming', 'a.txt'), 'in');
  writeFileSync(join(agent.baseDir, 'b.txt'), 'out');
  assert.is(await statusOf(agent, scoped.token, '/api/download?filepath=incoming/a.txt'), 200);
  const out = await api(agent, 'GET', '/api/download?filepath=b.txt', scoped.token);
  assert.equal([out.status, out.json], [403, { error: 'file path is not allowed' }]);
});

tokens('revocation through the API and through the CLI is refused within 2 s', async (ctx) => {
  const { agent, logins } = ctx;
  const a = await create(ctx, logins.otto!, { name: 'revoke-api' });
  const b = await create(ctx, logins.otto!, { name: 'revoke-cli' });
  assert.is(await statusOf(agent, a.token), 200);
  assert.is(await statusOf(agent, b.token), 200);
  assert.is((await api(agent, 'DELETE', `/api/v1/tokens/${a.id}`, logins.otto!)).status, 204);
  const refused = await api(agent, 'GET', '/api/v1/devicestatus/get', a.token);
  assert.equal([refused.status, refused.json, refused.headers.get('www-authenticate')], [401, { error: 'invalid token' }, 'Bearer']);
  const r = await cli(agent, 'token', 'revoke', 'revoke-cli', '--user', 'otto');
  assert.is(r.code, 0, r.stderr);
  assert.ok(await within(2500, async () => (await statusOf(agent, b.token)) === 401), 'the CLI revocation is taken within 2 s');
});

tokens('an expired token is refused within 2 s', async (ctx) => {
  const { agent, logins } = ctx;
  const t = await create(ctx, logins.otto!, { name: 'short' });
  assert.is(await statusOf(agent, t.token), 200);
  // Its expiry moved to a second from now, in the file, as the CLI writes it (under the lock).
  const { updateTokensSync } = await import('../src/auth/api-tokens.ts');
  const soon = new Date(Date.now() + 1000).toISOString();
  updateTokensSync(join(agent.dir, 'tokens.json'), (list) => ({
    tokens: list.map((x) => (x.id === t.id ? { ...x, expiresAt: soon } : x)),
    value: 0,
  }));
  assert.ok(await within(3500, async () => (await statusOf(agent, t.token)) === 401), 'refused once expired');
  const r = await api(agent, 'GET', '/api/v1/devicestatus/get', t.token);
  assert.equal(r.json, { error: 'token expired' });
});

tokens("a token's rights shrink when its user's role drops (user set), within 2 s", async (ctx) => {
  const { agent } = ctx;
  const made = await runCli([
    'token',
    'create',
    'deploy',
    '--user',
    'otto',
    '--scopes',
    'status,files:write',
    '--config',
    agent.configFile,
  ]);
  assert.is(made.code, 0, made.stderr);
  const token = made.stdout.trim().split('\n').pop()!;
  assert.match(token, TOKEN);
  ctx.secrets.push(token);
  const upload = () => {
    const form = new FormData();
    form.append('saveToPath', 'incoming/deploy.bin');
    form.append('myFile', new Blob(['x']), 'deploy.bin');
    return fetch(`${agent.url}/api/upload`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form }).then(
      async (r) => ({ status: r.status, text: await r.text(), header: r.headers.get('www-authenticate') }),
    );
  };
  assert.is((await upload()).status, 200);
  const set = await cli(agent, 'user', 'set', 'otto', '--role', 'viewer');
  assert.is(set.code, 0, set.stderr);
  assert.ok(await within(2500, async () => (await upload()).status === 403), 'refused within 2 s of the role change');
  assert.equal(await upload(), {
    status: 403,
    text: '{"error":"insufficient scope: files:write is required"}',
    header: 'Bearer error="insufficient_scope", scope="files:write"',
  });
  assert.is(await statusOf(agent, token), 200, 'what the viewer still has stays');
  const back = await cli(agent, 'user', 'set', 'otto', '--role', 'operator');
  assert.is(back.code, 0, back.stderr);
  assert.ok(await within(2500, async () => (await upload()).status === 200), 'back with the role');
});

tokens("a password change keeps a user's API tokens (its login tokens end); removing the user ends them within 2 s", async (ctx) => {
  const { agent } = ctx;
  const added = await runCli(['user', 'add', 'pam', '--role', 'operator', '--config', agent.configFile], { input: `${PASSWORD}\n` });
  assert.is(added.code, 0, added.stderr);
  // The agent reads the users file again within a second of the CLI's change.
  let login = '';
  assert.ok(
    await within(2500, async () => {
      login = await agent.login('pam', PASSWORD).catch(() => '');
      return login !== '';
    }),
  );
  const { token } = await create(ctx, login, { name: 'pam-script' });
  const passwd = await runCli(['user', 'passwd', 'pam', '--config', agent.configFile], { input: 'another password for pam\n' });
  assert.is(passwd.code, 0, passwd.stderr);
  assert.ok(await within(2500, async () => (await statusOf(agent, login)) === 401), 'the login token ends');
  assert.is(await statusOf(agent, token), 200, 'the API token stays');
  const removed = await cli(agent, 'user', 'remove', 'pam');
  assert.is(removed.code, 0, removed.stderr);
  assert.ok(await within(2500, async () => (await statusOf(agent, token)) === 401), 'refused within 2 s of the removal');
  const r = await api(agent, 'GET', '/api/v1/devicestatus/get', token);
  assert.equal(r.json, { error: 'token revoked' });
});

tokens('GET /api/v1/users: every user with role and directory, for admin only', async (ctx) => {
  const { agent, logins } = ctx;
  const r = await api(agent, 'GET', '/api/v1/users', logins.ada!);
  assert.is(r.status, 200);
  const users = (r.json.users as Array<{ [key: string]: unknown }>).filter((u) => ['vera', 'otto', 'ada'].includes(u.username as string));
  for (const u of users) assert.equal(Object.keys(u).sort(), ['directory', 'id', 'role', 'username']);
  assert.equal(Object.fromEntries(users.map((u) => [u.username, [u.role, u.directory]])), {
    vera: ['viewer', null],
    otto: ['operator', null],
    ada: ['admin', null],
  });
  const refused = await api(agent, 'GET', '/api/v1/users', logins.otto!);
  assert.is(refused.status, 403);
  assert.equal(refused.json, { error: 'insufficient scope: admin is required' });
});

tokens("a token whose directory and its user's no longer nest touches no file: 403 file path is not allowed", async (ctx) => {
  const { agent } = ctx;
  for (const d of ['incoming/a', 'incoming/b']) mkdirSync(join(agent.baseDir, d), { recursive: true });
  writeFileSync(join(agent.baseDir, 'incoming/a/x.txt'), 'x');
  assert.is((await cli(agent, 'user', 'set', 'otto', '--directory', 'incoming/a')).code, 0);
  const made = await cli(agent, 'token', 'create', 'in-a', '--user', 'otto');
  assert.is(made.code, 0, made.stderr);
  const token = made.stdout.trim().split('\n').pop()!;
  ctx.secrets.push(token);
  const get = () => api(agent, 'GET', '/api/download?filepath=incoming/a/x.txt', token);
  assert.ok(await within(2500, async () => (await get()).status === 200), 'its own directory first');
  try {
    assert.is((await cli(agent, 'user', 'set', 'otto', '--directory', 'incoming/b')).code, 0);
    assert.ok(await within(2500, async () => (await get()).status === 403), 'refused within 2 s of the move');
    assert.equal((await get()).json, { error: 'file path is not allowed' });
    assert.equal((await api(agent, 'GET', '/api/v1/files/list?path=incoming/b', token)).json, { error: 'file path is not allowed' });
    assert.is(await statusOf(agent, token), 200, 'what is not a file stays');
  } finally {
    await cli(agent, 'user', 'set', 'otto', '--no-directory');
  }
});

/** A GET from a given local address (127.0.0.2 reaches a listener on 0.0.0.0 like 127.0.0.1). */
function getFrom(agent: TestAgent, localAddress: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: agent.port,
        path: '/api/v1/devicestatus/get',
        localAddress,
        agent: false,
        headers: { Authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

tokens('a token used from two addresses: lastUsedFrom follows it, and reaches the file without a write per request', async (ctx) => {
  const { agent, logins } = ctx;
  const t = await create(ctx, logins.otto!, { name: 'roaming' });
  const mine = async () => ((await api(agent, 'GET', '/api/v1/tokens', logins.ada!)).json.tokens as Record[]).find((x) => x.id === t.id)!;
  assert.is((await mine()).lastUsedAt, null);
  const file = join(agent.dir, 'tokens.json');
  const before = statSync(file).mtimeMs;
  assert.is(await getFrom(agent, '127.0.0.2', t.token), 200);
  assert.is((await mine()).lastUsedFrom, '127.0.0.2');
  assert.is(await getFrom(agent, '127.0.0.1', t.token), 200);
  const used = await mine();
  assert.is(used.lastUsedFrom, '127.0.0.1');
  assert.ok(Date.now() - Date.parse(used.lastUsedAt!) < 60_000);
  assert.is(statSync(file).mtimeMs, before, 'no write for a use');
});

tokens('the CLI and the agent write the file at once: no token lost, none brought back', async (ctx) => {
  const { agent, logins } = ctx;
  // Some to revoke, through both.
  const doomedApi = await Promise.all([1, 2, 3, 4].map((i) => create(ctx, logins.ada!, { name: `doomed-api-${i}` })));
  const doomedCli = await Promise.all([1, 2, 3].map((i) => create(ctx, logins.ada!, { name: `doomed-cli-${i}` })));
  // Used, so that the agent has a lastUsedAt to flush (a write of its own at stop).
  for (const t of [...doomedApi, ...doomedCli]) assert.is(await statusOf(agent, t.token), 200);
  const jobs: Array<Promise<unknown>> = [];
  for (let i = 1; i <= 4; i++) {
    jobs.push(
      cli(agent, 'token', 'create', `cli-${i}`, '--user', 'ada', '--scopes', 'status').then((r) => {
        assert.is(r.code, 0, r.stderr);
        ctx.secrets.push(r.stdout.trim().split('\n').pop()!);
      }),
    );
  }
  for (let i = 1; i <= 3; i++) {
    jobs.push(cli(agent, 'token', 'revoke', `doomed-cli-${i}`, '--user', 'ada').then((r) => assert.is(r.code, 0, r.stderr)));
  }
  for (let i = 1; i <= 12; i++) jobs.push(create(ctx, logins.ada!, { name: `api-${i}`, scopes: ['status'] }));
  for (const t of doomedApi) jobs.push(api(agent, 'DELETE', `/api/v1/tokens/${t.id}`, logins.ada!).then((r) => assert.is(r.status, 204)));
  await Promise.all(jobs);
  const expected = [...[1, 2, 3, 4].map((i) => `cli-${i}`), ...Array.from({ length: 12 }, (_, i) => `api-${i + 1}`)].sort();
  const inFile = () =>
    JSON.parse(readFileSync(join(agent.dir, 'tokens.json'), 'utf8'))
      .tokens.filter((t: Record) => t.username === 'ada')
      .map((t: Record) => t.name)
      .sort();
  assert.equal(inFile(), expected);
  // The agent sees the same within 2 s, and the revoked ones are refused.
  const listed = async () =>
    ((await api(agent, 'GET', '/api/v1/tokens', logins.ada!)).json.tokens as Record[])
      .filter((t) => t.username === 'ada')
      .map((t) => t.name)
      .sort();
  assert.ok(await within(2500, async () => JSON.stringify(await listed()) === JSON.stringify(expected)), 'the agent lists them');
  for (const t of [...doomedApi, ...doomedCli]) assert.is(await statusOf(agent, t.token), 401, t.name);
  // The agent's flush of lastUsedAt at stop brings none back.
  const { code } = await agent.stop('SIGTERM');
  assert.is(code, 0);
  assert.equal(inFile(), expected);
  const uses = JSON.parse(readFileSync(join(agent.dir, 'tokens.json'), 'utf8')).tokens as Record[];
  assert.ok(
    uses.some((t) => t.lastUsedAt !== null),
    'the uses were flushed',
  );
});

tokens("no token text in the agent's output or the CLI's token list", async (ctx) => {
  const out = ctx.agent.output();
  const list = await cli(ctx.agent, 'token', 'list');
  assert.is(list.code, 0, list.stderr);
  for (const secret of ctx.secrets) {
    assert.not.ok(out.includes(secret), 'agent output');
    assert.not.ok(list.stdout.includes(secret), 'token list');
  }
  assert.ok(ctx.secrets.length >= 20);
});

tokens.run();

// docs/api.md, "API tokens": a token's scopes and directory never exceed the caller's and its owner's,
// for an admin confined to a directory (by its token, or by its user) too.
const confined = suite<Ctx>('API tokens: a confined admin');

confined.before(async (ctx) => {
  ctx.secrets = [];
  ctx.agent = await startAgent({
    users: [
      { username: 'ada', password: PASSWORD, role: 'admin' },
      { username: 'cora', password: PASSWORD, role: 'admin', directory: 'shared' },
      { username: 'op', password: PASSWORD, role: 'operator' },
    ],
  });
  mkdirSync(join(ctx.agent.baseDir, 'shared/deeper'), { recursive: true });
  ctx.logins = {};
  for (const u of ['ada', 'cora']) ctx.logins[u] = await ctx.agent.login(u, PASSWORD);
});
confined.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

const TOO_POWERFUL = { error: 'a token cannot have more rights than its user' };

confined('an admin token with files:read in shared/ makes for another user nothing beyond its own rights', async (ctx) => {
  const { agent, logins } = ctx;
  const narrow = await create(ctx, logins.ada!, { name: 'narrow-admin', scopes: ['admin', 'files:read'], directory: 'shared' });
  const ask = (body: unknown) => api(agent, 'POST', '/api/v1/tokens', narrow.token, body);
  // The request of the red-team pass: files:write, no directory, for op.
  const wider = await ask({ name: 'w1', username: 'op', scopes: ['files:write'] });
  assert.equal([wider.status, wider.json], [403, TOO_POWERFUL]);
  const whole = await ask({ name: 'w2', username: 'op', scopes: ['files:read'], directory: null });
  assert.equal([whole.status, whole.json], [403, TOO_POWERFUL]);
  // By default: what both have, scopes and directory.
  const made = await ask({ name: 'w3', username: 'op' });
  assert.is(made.status, 201, JSON.stringify(made.json));
  assert.equal([made.json.scopes, made.json.directory], [['files:read'], 'shared']);
  ctx.secrets.push(made.json.token);
  const deeper = await ask({ name: 'w4', username: 'op', scopes: ['files:read'], directory: 'shared/deeper' });
  assert.equal([deeper.status, deeper.json.directory], [201, 'shared/deeper']);
});

confined('an admin user confined to shared/ (a login) makes for another user no token outside shared/', async (ctx) => {
  const { agent, logins } = ctx;
  const ask = (body: unknown) => api(agent, 'POST', '/api/v1/tokens', logins.cora!, body);
  const whole = await ask({ name: 'c1', username: 'op', scopes: ['files:read'], directory: null });
  assert.equal([whole.status, whole.json], [403, TOO_POWERFUL]);
  const made = await ask({ name: 'c2', username: 'op', scopes: ['files:read', 'files:write'] });
  assert.is(made.status, 201, JSON.stringify(made.json));
  assert.is(made.json.directory, 'shared');
  // Its own default is its own directory, as before.
  const own = await ask({ name: 'c3' });
  assert.equal([own.status, own.json.directory], [201, 'shared']);
});

confined.run();
