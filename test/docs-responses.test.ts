// Real answers of the agent, held to the document: each status is documented for its
// operation, each body valid against the schema, each error text among the documented.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { bearer, jsonPost } from './helpers/http.ts';
import { assertDocumented, loadDocument, type LoadedDocument } from './helpers/openapi.ts';

const LOGIN = '/api/v1/agentusers/loginusertoagent';

const answers = suite<{ agent: TestAgent; doc: LoadedDocument; token: string }>('docs responses');

answers.before(async (ctx) => {
  ctx.agent = await startAgent();
  ctx.doc = await loadDocument(ctx.agent.url);
  ctx.token = await ctx.agent.login();
});
answers.after(async (ctx) => {
  await ctx.agent?.cleanup();
});

answers('health matches the Health schema', async ({ agent, doc }) => {
  await assertDocumented(doc, 'get', '/api/v1/health', await fetch(`${agent.url}/api/v1/health`));
});

answers('login answers match LoginResponse and the documented errors', async ({ agent, doc }) => {
  const ok = await jsonPost(`${agent.url}${LOGIN}`, { username: 'admin', password: 'correct horse battery' });
  assert.is(ok.status, 200);
  await assertDocumented(doc, 'post', LOGIN, ok);
  for (const [body, status] of [
    [{ username: 'admin', password: 'wrong password' }, 401],
    [{ username: 'admin' }, 400],
    ['not json', 400],
    [{ username: 'admin', password: 'x'.repeat(20_000) }, 413],
  ] as const) {
    const res = await jsonPost(`${agent.url}${LOGIN}`, body);
    assert.is(res.status, status, JSON.stringify(body).slice(0, 40));
    await assertDocumented(doc, 'post', LOGIN, res);
  }
  const plain = await fetch(`${agent.url}${LOGIN}`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{}' });
  assert.is(plain.status, 400);
  await assertDocumented(doc, 'post', LOGIN, plain);
});

answers('device status matches the DeviceStatus schema', async ({ agent, doc, token }) => {
  const res = await fetch(`${agent.url}/api/v1/devicestatus/get`, { headers: bearer(token) });
  assert.is(res.status, 200);
  await assertDocumented(doc, 'get', '/api/v1/devicestatus/get', res);
});

answers('every bearer failure is a documented 401 with WWW-Authenticate', async ({ agent, doc }) => {
  for (const headers of [{}, { Authorization: 'Basic abc' }, bearer('a.b.c')]) {
    const res = await fetch(`${agent.url}/api/v1/devicestatus/get`, { headers });
    assert.is(res.status, 401);
    await assertDocumented(doc, 'get', '/api/v1/devicestatus/get', res);
  }
});

answers('recording status matches the RecordingStatus schema', async ({ agent, doc, token }) => {
  const res = await fetch(`${agent.url}/api/v1/audiofiles/audiorecordstatus`, { headers: bearer(token) });
  assert.is(res.status, 200);
  await assertDocumented(doc, 'get', '/api/v1/audiofiles/audiorecordstatus', res);
});

answers('a refused recording start is a documented 400', async ({ agent, doc, token }) => {
  const res = await jsonPost(`${agent.url}/api/v1/audiofiles/audiorecordstart`, { duration: -1, fileExtension: 'wav' }, bearer(token));
  assert.is(res.status, 400);
  await assertDocumented(doc, 'post', '/api/v1/audiofiles/audiorecordstart', res);
});

answers('upload answers match UploadResult and the documented errors', async ({ agent, doc, token }) => {
  const form = new FormData();
  form.append('saveToPath', 'from-docs-test.txt');
  form.append('myFile', new Blob(['hello']), 'hello.txt');
  const ok = await fetch(`${agent.url}/api/upload`, { method: 'POST', headers: bearer(token), body: form });
  assert.is(ok.status, 200);
  await assertDocumented(doc, 'post', '/api/upload', ok);

  const noPath = new FormData();
  noPath.append('myFile', new Blob(['hello']), 'hello.txt');
  const bad = await fetch(`${agent.url}/api/upload`, { method: 'POST', headers: bearer(token), body: noPath });
  assert.is(bad.status, 400);
  await assertDocumented(doc, 'post', '/api/upload', bad);
});

answers('download answers carry the documented headers and errors', async ({ agent, doc, token }) => {
  writeFileSync(join(agent.baseDir, 'doc.txt'), 'hello, docs');
  const url = (path: string) => `${agent.url}/api/download?filepath=${encodeURIComponent(path)}`;
  for (const method of ['GET', 'HEAD']) {
    const res = await fetch(url('doc.txt'), { method, headers: bearer(token) });
    assert.is(res.status, 200, method);
    await assertDocumented(doc, method, '/api/download', res);
  }
  const part = await fetch(url('doc.txt'), { headers: { ...bearer(token), Range: 'bytes=0-4' } });
  assert.is(part.status, 206);
  await assertDocumented(doc, 'get', '/api/download', part);
  for (const [path, status] of [
    ['missing.txt', 404],
    ['../outside.txt', 403],
  ] as const) {
    const res = await fetch(url(path), { headers: bearer(token) });
    assert.is(res.status, status, path);
    await assertDocumented(doc, 'get', '/api/download', res);
  }
});

answers.run();
