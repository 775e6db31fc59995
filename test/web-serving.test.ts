// The web interface's files as HTTP answers (docs/api.md#web-interface, BENCHMARKS.md): served at / without a
// token, precompressed (brotli and gzip, chosen by Accept-Encoding), a strong ETag per
// encoding with 304 on revalidation, and the content security policy on every one.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { getRaw } from './helpers/http.ts';

const web = suite<{ agent: TestAgent }>('web interface files');

web.before(async (ctx) => {
  ctx.agent = await startAgent();
});
web.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

const FILES = [
  { path: '/', type: 'text/html; charset=utf-8', holds: '<label for="login-username">Username</label>' },
  { path: '/ui/app.js', type: 'text/javascript; charset=utf-8', holds: 'device-agent.token' },
  { path: '/ui/uplot.js', type: 'text/javascript; charset=utf-8', holds: 'window.uPlot=' },
  { path: '/ui/app.css', type: 'text/css; charset=utf-8', holds: 'prefers-color-scheme:dark' },
];

web('serves the page without a token, under a strict policy, naming no other host', async ({ agent }) => {
  const res = await getRaw(`${agent.url}/`);
  assert.is(res.status, 200);
  const csp = String(res.headers['content-security-policy']);
  for (const rule of [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "media-src 'self' blob:",
    "frame-ancestors 'none'",
  ]) {
    assert.ok(csp.split('; ').includes(rule), `${rule} in ${csp}`);
  }
  assert.not.match(csp, 'unsafe-', 'neither unsafe-inline nor unsafe-eval');
  assert.is(res.headers['x-frame-options'], 'DENY');
  assert.is(res.headers['x-content-type-options'], 'nosniff');
  const html = res.body.toString();
  assert.match(html, '<script src="/ui/app.js" defer></script>');
  assert.match(html, '<link rel="stylesheet" href="/ui/app.css">');
  assert.not.match(html, /<script>|<style|style=|\son\w+=/, 'no inline script, style or handler');
  assert.not.match(html, /(https?:)?\/\/[a-z]/i, 'no other host');
});

web('each file has its content type, the policy, a strong ETag and revalidation', async ({ agent }) => {
  for (const f of FILES) {
    const res = await getRaw(`${agent.url}${f.path}`);
    assert.is(res.status, 200, f.path);
    assert.is(res.headers['content-type'], f.type, f.path);
    assert.match(String(res.headers['content-security-policy']), "default-src 'none'", f.path);
    assert.is(res.headers['cache-control'], 'no-cache', f.path);
    assert.is(res.headers.vary, 'Accept-Encoding', f.path);
    assert.is(res.headers['content-encoding'], undefined, `${f.path}: no Accept-Encoding, no encoding`);
    assert.match(res.body.toString(), f.holds, f.path);
    assert.is(Number(res.headers['content-length']), res.body.length);
    const etag = String(res.headers.etag);
    assert.match(etag, /^"[\w-]{22}"$/, `${f.path}: a strong ETag, ${etag}`);
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await getRaw(`${agent.url}${f.path}`, { 'If-None-Match': inm });
      assert.is(again.status, 304, `${f.path} If-None-Match: ${inm}`);
      assert.is(again.body.length, 0);
      assert.is(again.headers.etag, etag);
      assert.match(String(again.headers['content-security-policy']), "default-src 'none'");
    }
    const changed = await getRaw(`${agent.url}${f.path}`, { 'If-None-Match': '"something-else"' });
    assert.is(changed.status, 200, `${f.path}: another ETag gets the file`);
  }
});

web('brotli when taken, else gzip, else plain: the same bytes, each with its own ETag', async ({ agent }) => {
  for (const f of FILES) {
    const plain = await getRaw(`${agent.url}${f.path}`, { 'Accept-Encoding': 'identity' });
    const br = await getRaw(`${agent.url}${f.path}`, { 'Accept-Encoding': 'gzip, deflate, br' });
    const gz = await getRaw(`${agent.url}${f.path}`, { 'Accept-Encoding': 'gzip, br;q=0' });
    const star = await getRaw(`${agent.url}${f.path}`, { 'Accept-Encoding': '*' });
    const none = await getRaw(`${agent.url}${f.path}`, { 'Accept-Encoding': 'br;q=0, gzip;q=0' });
    assert.is(plain.headers['content-encoding'], undefined);
    assert.is(br.headers['content-encoding'], 'br', f.path);
    assert.is(gz.headers['content-encoding'], 'gzip', f.path);
    assert.is(star.headers['content-encoding'], 'br', `${f.path}: * takes brotli`);
    assert.is(none.headers['content-encoding'], undefined, `${f.path}: both refused`);
    assert.equal(brotliDecompressSync(br.body), plain.body);
    assert.equal(gunzipSync(gz.body), plain.body);
    assert.ok(br.body.length <= gz.body.length, `${f.path}: br ${br.body.length} <= gzip ${gz.body.length}`);
    const tags = new Set([plain.headers.etag, br.headers.etag, gz.headers.etag]);
    assert.is(tags.size, 3, `${f.path}: one ETag per encoding`);
    // A brotli ETag does not validate the gzip representation.
    const cross = await getRaw(`${agent.url}${f.path}`, { 'Accept-Encoding': 'gzip', 'If-None-Match': String(br.headers.etag) });
    assert.is(cross.status, 200);
  }
});

web('HEAD answers the headers alone; unknown files are 404; other methods 405', async ({ agent }) => {
  const head = await getRaw(`${agent.url}/ui/app.js`, { 'Accept-Encoding': 'br' }, 'HEAD');
  assert.is(head.status, 200);
  assert.is(head.body.length, 0);
  assert.is(head.headers['content-encoding'], 'br');
  assert.ok(Number(head.headers['content-length']) > 1000);
  for (const path of ['/ui/nope.js', '/ui/..%2Fapp.js', '/ui/index.html.gz', '/ui/']) {
    const res = await getRaw(`${agent.url}${path}`);
    assert.ok(res.status === 404, `${path}: ${res.status}`);
  }
  const post = await fetch(`${agent.url}/`, { method: 'POST' });
  assert.is(post.status, 405);
  assert.is(post.headers.get('allow'), 'GET, HEAD');
});

web.run();
