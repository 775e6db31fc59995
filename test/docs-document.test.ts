// The OpenAPI document at /docs/openapi.json: valid OpenAPI 3.1, every catalogue text
// in it, nothing about the device in it, no token needed.
import { hostname } from 'node:os';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Errors, TOKEN_REFUSALS } from '../src/http/errors.ts';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { loadDocument, textPattern, type LoadedDocument } from './helpers/openapi.ts';

const document = suite<{ agent: TestAgent; doc: LoadedDocument }>('openapi document');

document.before(async (ctx) => {
  ctx.agent = await startAgent();
  ctx.doc = await loadDocument(ctx.agent.url);
});
document.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

document('is served without a token and passes the OpenAPI 3.1 validator with no error', async ({ doc }) => {
  assert.equal(doc.errors, undefined);
  assert.ok(doc.valid);
  assert.is(doc.raw.openapi, '3.1.0');
  assert.equal(doc.raw.servers, [{ url: '/', description: 'this agent' }]);
});

document("declares the bearer scheme and states each protected operation's scope", ({ doc }) => {
  assert.equal(doc.raw.components.securitySchemes, {
    bearerAuth: { type: 'http', scheme: 'bearer', description: 'the `token` of the login answer (a JWT), or an API token (`dat_...`)' },
    metricsToken: { type: 'http', scheme: 'bearer', description: 'the text of `metrics.tokenFile`: GET /metrics only' },
  });
  for (const [path, item] of Object.entries<any>(doc.raw.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const scope = op['x-scope'];
      // /metrics alone also takes the metrics token: either scheme opens it.
      const schemes =
        scope === undefined
          ? '[]'
          : path === '/metrics'
            ? `[{"bearerAuth":["${scope}"]},{"metricsToken":[]}]`
            : `[{"bearerAuth":["${scope}"]}]`;
      assert.is(JSON.stringify(op.security), schemes, `${method} ${path}: security must name the scope`);
      const bearerFailure = JSON.stringify(op.responses['401'] ?? {}).includes('missing bearer token');
      assert.is(bearerFailure, scope !== undefined, `${method} ${path}: bearer 401 documented iff protected`);
      const scopeFailure = JSON.stringify(op.responses['403'] ?? {}).includes(`insufficient scope: ${scope} is required`);
      assert.is(scopeFailure, scope !== undefined, `${method} ${path}: the 403 of scope documented iff protected`);
    }
  }
});

document('lists every text of the error catalogue that an operation can send', ({ doc }) => {
  const texts: string[] = [];
  for (const item of Object.values<any>(doc.raw.paths)) {
    for (const op of Object.values<any>(item)) {
      for (const r of Object.values<any>(op.responses)) {
        for (const ex of Object.values<any>(r.content?.['application/json']?.examples ?? {})) texts.push(ex.value.error);
      }
    }
  }
  // 405 applies to any path; it is told once, in info.description.
  const general = ['methodNotAllowed'];
  for (const [name, make] of Object.entries(Errors)) {
    if (general.includes(name)) continue;
    // A 401's text is one of the named refusals; the other entries take free text.
    const args = name === 'unauthorized' ? Object.keys(TOKEN_REFUSALS).map((why) => [why]) : [['x', 'y']];
    for (const a of args) {
      const sample = (make as (...a: unknown[]) => Error)(...a).message;
      assert.ok(
        texts.some((t) => textPattern(t).test(sample)),
        `Errors.${name} ("${sample}") is not in the document`,
      );
    }
  }
  assert.match(doc.raw.info.description, Errors.methodNotAllowed('GET').message);
});

document('reveals nothing about this device or its configuration', async ({ agent }) => {
  const text = await (await fetch(`${agent.url}/docs/openapi.json`)).text();
  for (const secret of [hostname(), agent.dir, agent.baseDir, agent.users[0]!.id, agent.users[0]!.hash]) {
    assert.not.ok(text.includes(secret), `document holds ${secret}`);
  }
});

document.run();
