// The document cannot drift from the app: the routes the agent registers and the
// document's operations are compared both ways, and so are their auth requirements.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../src/config/files.ts';
import { startAgent, type Agent } from '../src/serve.ts';
import { prepareDir } from './helpers/agent.ts';
import { silentLog } from './helpers/log.ts';

const drift = suite<{ dir: string; agent: Agent; routes: Map<string, string | null>; doc: Map<string, string | null> }>('docs drift');

const METHODS = ['get', 'head', 'post', 'put', 'delete', 'patch', 'options'];

/** The router's `/api/:name` is OpenAPI's `/api/{name}`. */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** The scope a documented operation asks for (its bearer scheme's scopes), or null for none. */
const scopeOf = (op: { security: Array<Record<string, string[]>> }) => op.security.find((s) => s.bearerAuth)?.bearerAuth?.[0] ?? null;

drift.before(async (ctx) => {
  // In-process, so the routes are the very ones the app was built with.
  ctx.dir = (await prepareDir()).dir;
  ctx.agent = await startAgent(loadConfig(join(ctx.dir, 'config.json')), {
    firstRunAdmin: false,
    log: silentLog,
    announce: () => {},
  });
  ctx.routes = new Map(ctx.agent.routes.map((r) => [`${r.method} ${openApiPath(r.path)}`, r.scope]));
  const doc = (await (await fetch(`http://127.0.0.1:${ctx.agent.port}/docs/openapi.json`)).json()) as any;
  ctx.doc = new Map();
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of METHODS) {
      if (item[method]) ctx.doc.set(`${method.toUpperCase()} ${path}`, scopeOf(item[method]));
    }
  }
});
drift.after(async (ctx) => {
  await ctx.agent?.stop(0);
  if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
});

drift('documents every route the app registers', ({ routes, doc }) => {
  const undocumented = [...routes.keys()].filter((r) => !doc.has(r));
  assert.equal(undocumented, [], `routes missing from the document: ${undocumented.join(', ')}`);
});

drift('documents no route the app does not serve', ({ routes, doc }) => {
  // The router answers HEAD with the GET handler.
  const served = (r: string) => routes.has(r) || (r.startsWith('HEAD ') && routes.has(r.replace('HEAD ', 'GET ')));
  const unserved = [...doc.keys()].filter((r) => !served(r));
  assert.equal(unserved, [], `documented routes the app does not register: ${unserved.join(', ')}`);
});

drift('asks for the scope the app checks, and no credential where the app asks none', ({ routes, doc }) => {
  for (const [route, scope] of routes) {
    if (doc.has(route)) assert.is(doc.get(route), scope, `${route}: scope ${scope} in the app`);
  }
});

drift.run();
