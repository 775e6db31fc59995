// Every route the agent serves, asked by every role and by API tokens with and without the
// route's scope: the table comes from the served /docs/openapi.json (built from the route
// table itself, x-scope per operation), so a new route is tested the day it is added, and a
// route without a scope fails here unless it is one of the few that need no credential.
import { request as httpRequest } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';

/** The only routes that take no credential (docs/api.md, "Scopes"): anything else without a scope is a hole. */
const PUBLIC = new Set([
  'POST /api/v1/agentusers/loginusertoagent',
  'GET /api/v1/health',
  'GET /api/v1/tls',
  'GET /docs',
  'GET /docs/openapi.json',
  'GET /docs/assets/{file}',
  'GET /',
  'GET /ui/{file}',
]);
const ALL_SCOPES = ['status', 'files:read', 'files:write', 'audio', 'metrics', 'admin'] as const;
type Scope = (typeof ALL_SCOPES)[number];
const ROLE_SCOPES: Record<string, Scope[]> = {
  viewer: ['status', 'files:read', 'metrics'],
  operator: ['status', 'files:read', 'metrics', 'files:write', 'audio'],
  admin: [...ALL_SCOPES],
};
const PASSWORD = 'a password for roles';
const METHODS = ['get', 'head', 'post', 'put', 'delete', 'patch'];

interface Op {
  method: string;
  path: string;
  scope: Scope | null;
  loginSuffices: boolean;
}
interface Answer {
  status: number;
  text: string;
  authenticate: string | undefined;
}

/** One request; an event stream is cut once its head arrives. */
function ask(url: string, method: string, path: string, bearer?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (bearer !== undefined) headers.Authorization = `Bearer ${bearer}`;
    if (method === 'POST' || method === 'PUT' || method === 'PATCH') headers['Content-Length'] = '0';
    const req = httpRequest(`${url}${path}`, { method, headers, agent: false }, (res) => {
      const answer = (text: string) => resolve({ status: res.statusCode!, text, authenticate: res.headers['www-authenticate'] });
      if (String(res.headers['content-type']).startsWith('text/event-stream')) {
        res.destroy();
        answer('');
        return;
      }
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => answer(body));
    });
    req.on('error', reject);
    req.end();
  });
}

const concrete = (path: string) => path.replace(/\{(\w+)\}/g, 'x');

interface Ctx {
  agent: TestAgent;
  ops: Op[];
  logins: Record<string, string>;
  only: Record<string, string>;
  allBut: Record<string, string>;
}
const scopes = suite<Ctx>('every route by role and by scope');

scopes.before(async (ctx) => {
  ctx.agent = await startAgent({
    users: [
      { username: 'vera', password: PASSWORD, role: 'viewer' },
      { username: 'otto', password: PASSWORD, role: 'operator' },
      { username: 'ada', password: PASSWORD, role: 'admin' },
    ],
  });
  ctx.logins = {
    viewer: await ctx.agent.login('vera', PASSWORD),
    operator: await ctx.agent.login('otto', PASSWORD),
    admin: await ctx.agent.login('ada', PASSWORD),
  };
  const doc = (await (await fetch(`${ctx.agent.url}/docs/openapi.json`)).json()) as { paths: Record<string, Record<string, any>> };
  ctx.ops = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      ctx.ops.push({ method: method.toUpperCase(), path, scope: op['x-scope'] ?? null, loginSuffices: op['x-credential'] !== undefined });
    }
  }
  // Tokens of the admin: one with each scope alone, one with every scope but it.
  ctx.only = {};
  ctx.allBut = {};
  const make = async (name: string, list: Scope[]) => {
    const res = await fetch(`${ctx.agent.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ctx.logins.admin}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name, scopes: list }),
    });
    assert.is(res.status, 201, name);
    return ((await res.json()) as { token: string }).token;
  };
  for (const s of ALL_SCOPES) {
    ctx.only[s] = await make(`only-${s.replace(':', '-')}`, [s]);
    ctx.allBut[s] = await make(
      `all-but-${s.replace(':', '-')}`,
      ALL_SCOPES.filter((x) => x !== s),
    );
  }
});

scopes.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

scopes('every route has a scope, except the few that need no credential', ({ ops }) => {
  const open = ops.filter((o) => o.scope === null).map((o) => `${o.method} ${o.path}`);
  assert.equal(
    open.filter((r) => !PUBLIC.has(r)),
    [],
    'routes without a scope',
  );
  assert.ok(ops.filter((o) => o.scope !== null).length >= 14, 'the protected routes are in the table');
});

scopes('no credential, or a bad one: 401 with its text and WWW-Authenticate: Bearer, on every protected route', async ({ agent, ops }) => {
  const bogus = `dat_${'A'.repeat(43)}`;
  for (const op of ops.filter((o) => o.scope !== null)) {
    const path = concrete(op.path);
    const none = await ask(agent.url, op.method, path);
    const where = `${op.method} ${op.path}`;
    assert.is(none.status, 401, where);
    assert.is(none.authenticate, 'Bearer', where);
    if (op.method !== 'HEAD') assert.equal(JSON.parse(none.text), { error: 'missing bearer token' }, where);
    const bad = await ask(agent.url, op.method, path, bogus);
    assert.is(bad.status, 401, where);
    assert.is(bad.authenticate, 'Bearer', where);
    if (op.method !== 'HEAD') assert.equal(JSON.parse(bad.text), { error: 'invalid token' }, where);
  }
});

/** The refusal of a missing scope (RFC 6750), exactly. */
function assertInsufficient(a: Answer, op: Op, who: string): void {
  const where = `${op.method} ${op.path} as ${who}`;
  assert.is(a.status, 403, where);
  assert.is(a.authenticate, `Bearer error="insufficient_scope", scope="${op.scope}"`, where);
  if (op.method !== 'HEAD') assert.equal(JSON.parse(a.text), { error: `insufficient scope: ${op.scope} is required` }, where);
}

/**
 * Past the scope check: the handler's own answer, the status the admin's login gets (and its
 * error text; a 2xx body may differ by caller, such as the list of one's own tokens).
 */
function assertAdmitted(a: Answer, reference: Answer, op: Op, who: string): void {
  const where = `${op.method} ${op.path} as ${who}`;
  assert.ok(a.status !== 401 && !a.text.includes('insufficient scope'), `${where}: admitted (got ${a.status} ${a.text.slice(0, 200)})`);
  assert.is(a.status, reference.status, `${where}: the handler's answer`);
  if (a.status >= 400) assert.is(a.text, reference.text, `${where}: the handler's text`);
}

scopes('each role gets exactly the routes of its scopes (a login token also opens the token routes)', async ({ agent, ops, logins }) => {
  for (const op of ops.filter((o) => o.scope !== null)) {
    const path = concrete(op.path);
    const reference = await ask(agent.url, op.method, path, logins.admin);
    for (const role of ['viewer', 'operator'] as const) {
      const a = await ask(agent.url, op.method, path, logins[role]);
      if (ROLE_SCOPES[role]!.includes(op.scope!) || op.loginSuffices) assertAdmitted(a, reference, op, role);
      else assertInsufficient(a, op, role);
    }
  }
});

scopes("an API token opens a route with the route's scope, and never without it", async ({ agent, ops, logins, only, allBut }) => {
  for (const op of ops.filter((o) => o.scope !== null)) {
    const path = concrete(op.path);
    const reference = await ask(agent.url, op.method, path, logins.admin);
    const scope = op.scope!;
    assertAdmitted(await ask(agent.url, op.method, path, only[scope]), reference, op, `a token with ${scope} alone`);
    assertInsufficient(await ask(agent.url, op.method, path, allBut[scope]), op, `a token with every scope but ${scope}`);
    for (const other of ALL_SCOPES.filter((s) => s !== scope)) {
      assertInsufficient(await ask(agent.url, op.method, path, only[other]), op, `a token with ${other} alone`);
    }
  }
});

scopes('the metrics token opens /metrics and nothing else', async ({ agent, ops }) => {
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const token = readFileSync(join(agent.dir, 'metrics.token'), 'utf8').trim();
  for (const op of ops.filter((o) => o.scope !== null)) {
    const a = await ask(agent.url, op.method, concrete(op.path), token);
    if (op.path === '/metrics') assert.is(a.status, 200);
    else assert.is(a.status, 401, `${op.method} ${op.path}`);
  }
});

scopes.run();
