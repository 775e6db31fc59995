// The /docs page and its files: served by the agent itself, no token, a strict policy,
// gzip with ETag revalidation.
import { gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { getRaw as get } from './helpers/http.ts';

const page = suite<{ agent: TestAgent }>('docs page');

page.before(async (ctx) => {
  ctx.agent = await startAgent();
});
page.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

page('serves the Swagger UI page without a token, under a strict content security policy', async ({ agent }) => {
  const res = await get(`${agent.url}/docs`);
  assert.is(res.status, 200);
  assert.is(res.headers['content-type'], 'text/html; charset=utf-8');
  const csp = String(res.headers['content-security-policy']);
  assert.match(csp, "default-src 'none'");
  assert.match(csp, "script-src 'self';");
  assert.match(csp, "connect-src 'self';");
  assert.not.match(csp, 'unsafe-', 'neither unsafe-eval nor unsafe-inline');
  assert.is(res.headers['x-frame-options'], 'DENY');
  const html = res.body.toString();
  assert.match(html, '<script src="/docs/assets/swagger-ui-bundle.js"></script>');
  assert.not.match(html, /https?:/, 'the page names no other host');
  assert.not.match(html, /<script>/, 'no inline script');
});

page('serves the files gzipped to a client that takes gzip, with an ETag', async ({ agent }) => {
  const res = await get(`${agent.url}/docs/assets/swagger-ui-bundle.js`, { 'Accept-Encoding': 'gzip, deflate' });
  assert.is(res.status, 200);
  assert.is(res.headers['content-encoding'], 'gzip');
  assert.is(res.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.is(Number(res.headers['content-length']), res.body.length);
  const js = gunzipSync(res.body).toString();
  assert.match(js, 'SwaggerUIBundle');
  assert.ok(res.body.length < js.length / 2, `gzip ${res.body.length} of ${js.length}`);
  // Each encoding has its own strong ETag (RFC 9110 §8.8.3); this is the gzip one.
  assert.match(String(res.headers.etag), /^"[\w-]{22}-gz"$/);
});

page('serves the plain files to a client that refuses gzip', async ({ agent }) => {
  for (const accept of [undefined, 'gzip;q=0, identity']) {
    const res = await get(`${agent.url}/docs/assets/swagger-ui.css`, accept ? { 'Accept-Encoding': accept } : {});
    assert.is(res.status, 200);
    assert.is(res.headers['content-encoding'], undefined);
    assert.is(res.headers['content-type'], 'text/css; charset=utf-8');
    assert.match(res.body.toString(), '.swagger-ui');
    assert.not.match(res.body.toString(), 'sourceMappingURL', 'no link to a source map that is not shipped');
  }
});

page('answers 304 when the ETag matches', async ({ agent }) => {
  const first = await get(`${agent.url}/docs/assets/start.js`);
  assert.match(first.body.toString(), "url: '/docs/openapi.json'");
  const again = await get(`${agent.url}/docs/assets/start.js`, { 'If-None-Match': String(first.headers.etag) });
  assert.is(again.status, 304);
  assert.is(again.body.length, 0);
});

page('answers 404 not found for a file it does not have', async ({ agent }) => {
  for (const name of ['swagger-ui-bundle.js.map', 'index.html', '..%2Fpackage.json']) {
    const res = await fetch(`${agent.url}/docs/assets/${name}`);
    assert.is(res.status, 404, name);
    assert.equal(await res.json(), { error: 'not found' });
  }
});

page.run();
