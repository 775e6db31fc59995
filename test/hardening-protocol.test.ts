// Protocol details a hostile or careless client meets: TLS 1.2 renegotiation asked by the
// client is refused, a request with two Host headers is 400, and `Expect: 100-continue`
// gets `100 Continue` only once the request passed its auth check. Against a real agent
// (sources, then the built executable).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { constants } from 'node:crypto';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { SSL_OP_NO_RENEGOTIATION } from '../src/tls/service.ts';
import { ADMIN, startAgent, type TestAgent } from './helpers/agent.ts';

type Ctx = { agent: TestAgent; token: string };
const test = suite<Ctx>('protocol hardening');

test.before(async (ctx) => {
  ctx.agent = await startAgent({ config: { tls: { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' } } });
  ctx.token = await ctx.agent.login();
});
test.after(async (ctx) => {
  await ctx.agent.cleanup();
});

/** A raw exchange: writes `first`, waits for the first answer bytes, then maybe writes more. */
function exchange(port: number, first: string, then?: (seen: string, s: Socket) => void): Promise<string> {
  return new Promise((resolve) => {
    const s = netConnect(port, '127.0.0.1');
    let text = '';
    let step = 0;
    s.setEncoding('latin1');
    s.on('data', (d) => {
      text += d;
      if (step++ === 0 && then) then(text, s);
    });
    s.on('error', () => {});
    s.on('close', () => resolve(text));
    s.write(first);
  });
}

test("SSL_OP_NO_RENEGOTIATION is OpenSSL's", () => {
  assert.is(SSL_OP_NO_RENEGOTIATION, constants.SSL_OP_NO_RENEGOTIATION);
});

test('a TLS 1.2 client that asks to renegotiate is refused', async ({ agent }) => {
  const c: TLSSocket = tlsConnect({ port: agent.port, host: '127.0.0.1', rejectUnauthorized: false, maxVersion: 'TLSv1.2' });
  await new Promise((r) => c.once('secureConnect', r));
  const outcome = await new Promise<string>((resolve) => {
    c.on('error', (e: NodeJS.ErrnoException) =>
      resolve(`error ${e.code}: ${/no renegotiation/.test(e.message) ? 'no renegotiation' : e.message}`),
    );
    c.renegotiate({ rejectUnauthorized: false }, (err) => resolve(err ? `error ${(err as NodeJS.ErrnoException).code}` : 'renegotiated'));
    c.write('GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n');
  });
  c.destroy();
  assert.is(outcome, 'error EPROTO: no renegotiation');
});

test('two Host headers are 400, and the connection closes', async ({ agent }) => {
  const text = await exchange(agent.port, 'GET /api/v1/health HTTP/1.1\r\nHost: a.example\r\nhost: b.example\r\n\r\n');
  assert.match(text, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.match(text, /\r\nConnection: close\r\n/);
  assert.ok(text.endsWith('\r\n\r\n{"error":"a request must have one Host header"}'), text);
  // One Host is served as before.
  const ok = await exchange(agent.port, 'GET /api/v1/health HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n');
  assert.match(ok, /^HTTP\/1\.1 200 OK\r\n/);
});

const BOUNDARY = 'xXxBoundaryxXx';
const body = [
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="saveToPath"\r\n\r\ncontinued.txt\r\n`,
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="myFile"; filename="c.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n`,
  `--${BOUNDARY}--\r\n`,
].join('');
const uploadHead = (auth: string) =>
  `POST /api/upload HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
  `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;

test('an upload with Expect: 100-continue and no token is answered 401, with no 100 Continue before it', async ({ agent }) => {
  const text = await exchange(agent.port, uploadHead(''));
  assert.match(text, /^HTTP\/1\.1 401 Unauthorized\r\n/);
  assert.not.match(text, /100 Continue/);
  assert.ok(text.endsWith('{"error":"missing bearer token"}'), text);
});

test('an authenticated upload with Expect: 100-continue gets 100 Continue, then stores the file', async ({ agent, token }) => {
  const text = await exchange(agent.port, uploadHead(`Authorization: Bearer ${token}\r\n`), (seen, s) => {
    if (seen.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) s.write(body);
  });
  assert.ok(text.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n'), text);
  assert.ok(text.endsWith('{"message":"Uploaded successfully"}'), text);
});

test('a login with Expect: 100-continue gets 100 Continue, then its token', async ({ agent }) => {
  const json = JSON.stringify(ADMIN);
  const head =
    `POST /api/v1/agentusers/loginusertoagent HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(json)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;
  const text = await exchange(agent.port, head, (seen, s) => {
    if (seen.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) s.write(json);
  });
  assert.ok(text.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n'), text);
  assert.match(text, /"token":"/);
});

test.run();
