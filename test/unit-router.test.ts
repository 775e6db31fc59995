// The one router (src/http/router.ts): every route and every spelling a client may use
// finds the same handler, exact and parameter routes alike.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Router } from '../src/http/router.ts';
import type { Handler, Route } from '../src/http/types.ts';

const doc = () => ({ operation: {} });
const h = (name: string): Handler => Object.assign(() => {}, { label: name });
const routes: Route[] = [
  { method: 'GET', path: '/api/v1/health', scope: null, doc, handler: h('health') },
  { method: 'POST', path: '/api/v1/agentusers/loginusertoagent', scope: null, doc, handler: h('login') },
  { method: 'GET', path: '/docs/:file', scope: null, doc, handler: h('asset') },
  { method: 'POST', path: '/api/upload', scope: 'files:write', doc, handler: h('upload') },
];
const router = new Router(routes, (r) => r.handler);
const label = (method: string, path: string) => (router.find(method, path)?.handler as { label?: string } | undefined)?.label;

const test = suite('router');

test('finds each route as registered, in any ASCII case, with one trailing slash', () => {
  for (const [method, path, name] of [
    ['GET', '/api/v1/health', 'health'],
    ['GET', '/API/V1/Health', 'health'],
    ['GET', '/api/v1/health/', 'health'],
    ['POST', '/api/v1/agentusers/LoginUserToAgent/', 'login'],
    ['GET', '/docs/a.css', 'asset'],
    ['GET', '/DOCS/a.css/', 'asset'],
    ['POST', '/api/upload', 'upload'],
  ] as const)
    assert.is(label(method, path), name, `${method} ${path}`);
});

test('HEAD runs the GET handler, for exact and parameter routes', () => {
  assert.is(label('HEAD', '/api/v1/health'), 'health');
  assert.is(label('HEAD', '/docs/x.js'), 'asset');
  assert.is(label('HEAD', '/api/upload'), undefined);
});

test('misses: two trailing slashes, a longer path, non-ASCII look-alikes, another method', () => {
  for (const [method, path] of [
    ['GET', '/api/v1/health//'],
    ['GET', '/api/v1/health/x'],
    ['GET', '/api/v1/heaLth\u0130'],
    ['GET', '/api/v1/he\u212Alth'],
    ['POST', '/api/v1/health'],
    ['GET', '/docs/'],
    ['GET', '/docs/a/b'],
  ] as const)
    assert.is(router.find(method, path), undefined, `${method} ${path}`);
});

test('parameters are %-decoded once; a malformed escape stays as sent', () => {
  assert.equal(router.find('GET', '/docs/a%20b.css')?.params, { file: 'a b.css' });
  assert.equal(router.find('GET', '/docs/%E0%A4%A')?.params, { file: '%E0%A4%A' });
  assert.equal(router.find('GET', '/api/v1/health')?.params, {});
});

test('the route found carries its pattern (for logs and metrics)', () => {
  assert.is(router.find('GET', '/docs/x.css')?.route.path, '/docs/:file');
  assert.is(router.find('GET', '/API/V1/HEALTH/')?.route.path, '/api/v1/health');
});

test('allowed() lists the methods of a path, HEAD wherever GET, for the 405', () => {
  assert.equal(router.allowed('/api/v1/health'), ['GET', 'HEAD']);
  assert.equal(router.allowed('/Api/V1/AgentUsers/LoginUserToAgent/'), ['POST']);
  assert.equal(router.allowed('/docs/x'), ['GET', 'HEAD']);
  assert.equal(router.allowed('/nope'), []);
});

test.run();
