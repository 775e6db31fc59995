// The soak's mixed workload: each operation sends one kind of request and knows which
// statuses are right. Anything else is counted as a failure of the agent.
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

const LOGIN = '/api/v1/agentusers/loginusertoagent';
const BOUNDARY = 'soak-boundary-d8f3a1';

/** One request; resolves with status and body (bytes counted, body kept when small). */
function send(ctx, method, path, { headers = {}, body, abortAfterBytes } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(`${ctx.url}${path}`, { method, headers, agent: ctx.http }, (res) => {
      const chunks = [];
      let bytes = 0;
      res.on('data', (d) => {
        bytes += d.length;
        if (bytes <= 64 * 1024) chunks.push(d);
        if (abortAfterBytes !== undefined && bytes >= abortAfterBytes) {
          req.destroy();
          resolve({ status: res.statusCode, bytes, aborted: true });
        }
      });
      res.on('end', () => resolve({ status: res.statusCode, bytes, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => resolve({ status: res.statusCode, bytes, aborted: true }));
    });
    req.on('error', (err) => (abortAfterBytes !== undefined ? resolve({ status: 0, aborted: true }) : reject(err)));
    req.end(body);
  });
}

const auth = (ctx) => ({ Authorization: `Bearer ${ctx.token}` });
const json = (ctx, extra = {}) => ({ 'Content-Type': 'application/json', ...auth(ctx), ...extra });
const pick = (list) => list[Math.floor(Math.random() * list.length)];

function form(savePath, file) {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="saveToPath"\r\n\r\n${savePath}\r\n`),
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="myFile"; filename="f.bin"\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}
const formHeaders = (ctx) => ({ ...auth(ctx), 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` });

/** Keeps the recordings directory small: the agent has no route to delete them. */
function pruneRecordings(dir) {
  const files = readdirSync(dir)
    .filter((n) => n.startsWith('recording-'))
    .map((n) => ({ n, t: statSync(join(dir, n)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  for (const f of files.slice(5)) unlinkSync(join(dir, f.n));
}

/** name -> [weight, run(ctx) -> result, statuses that are right]. */
export const OPERATIONS = {
  health: [2, (ctx) => send(ctx, 'GET', '/api/v1/health'), [200]],
  status: [3, (ctx) => send(ctx, 'GET', '/api/v1/devicestatus/get', { headers: auth(ctx) }), [200]],
  login: [
    1,
    async (ctx) => {
      const r = await send(ctx, 'POST', LOGIN, { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ctx.user) });
      if (r.status === 200) ctx.token = JSON.parse(r.text).token;
      return r;
    },
    [200],
  ],
  badLogin: [
    1,
    (ctx) =>
      send(ctx, 'POST', LOGIN, {
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: `nobody${Math.floor(Math.random() * 50)}`, password: 'wrong-password' }),
      }),
    [401, 429],
  ],
  download: [
    3,
    async (ctx) => {
      const r = await send(ctx, 'GET', `/api/download?filepath=${pick(['small.txt', 'big.bin'])}`, { headers: auth(ctx) });
      if (r.status === 200 && r.bytes !== 1024 && r.bytes !== 4 * 1024 * 1024) return { ...r, status: -1 };
      return r;
    },
    [200],
  ],
  range: [1, (ctx) => send(ctx, 'GET', '/api/download?filepath=big.bin', { headers: { ...auth(ctx), Range: 'bytes=1000-99999' } }), [206]],
  abortedDownload: [
    1,
    (ctx) =>
      send(ctx, 'GET', '/api/download?filepath=big.bin', {
        headers: auth(ctx),
        abortAfterBytes: 1 + Math.floor(Math.random() * 2 * 1024 * 1024),
      }),
    [200],
  ],
  upload: [
    2,
    (ctx) => {
      const size = 1 + Math.floor(Math.random() * 1024 * 1024);
      return send(ctx, 'POST', '/api/upload', {
        headers: formHeaders(ctx),
        body: form(`up/f${Math.floor(Math.random() * 8)}.bin`, randomBytes(size)),
      });
    },
    [200],
  ],
  record: [
    1,
    async (ctx) => {
      const body = JSON.stringify({ duration: 0.3 + Math.random(), fileExtension: pick(['wav', 'flac', 'mp3']) });
      const r = await send(ctx, 'POST', '/api/v1/audiofiles/audiorecordstart', { headers: json(ctx), body });
      if (r.status === 202) pruneRecordings(ctx.recordingsDir);
      return r;
    },
    [202, 409],
  ],
  recordStatus: [1, (ctx) => send(ctx, 'GET', '/api/v1/audiofiles/audiorecordstatus', { headers: auth(ctx) }), [200]],
  notFound: [1, (ctx) => send(ctx, 'GET', `/api/v2/${randomBytes(4).toString('hex')}`), [404]],
  badToken: [
    1,
    (ctx) => send(ctx, 'GET', '/api/v1/devicestatus/get', { headers: { Authorization: `Bearer ${ctx.token.slice(0, -3)}xyz` } }),
    [401],
  ],
  traversal: [
    1,
    (ctx) =>
      send(ctx, 'GET', `/api/download?filepath=${pick(['../config.json', '..%2Fusers.json', '/etc/passwd', 'up/../../jwt.secret'])}`, {
        headers: auth(ctx),
      }),
    [403],
  ],
  brokenForm: [
    1,
    (ctx) =>
      send(ctx, 'POST', '/api/upload', {
        headers: formHeaders(ctx),
        body: form('up/broken.bin', randomBytes(5000)).subarray(0, 2000 + Math.floor(Math.random() * 3000)),
      }),
    [400],
  ],
  badJson: [
    1,
    (ctx) =>
      send(ctx, 'POST', '/api/v1/audiofiles/audiorecordstart', {
        headers: json(ctx),
        body: pick(['{"duration":', '{"duration":"5","fileExtension":"wav"}', '[]', '{"__proto__":{"duration":1}}']),
      }),
    [400],
  ],
};

const table = Object.entries(OPERATIONS).flatMap(([name, [weight]]) => Array(weight).fill(name));

export function newContext(url, user, token, recordingsDir, sockets) {
  return { url, user, token, recordingsDir, http: new Agent({ keepAlive: true, maxSockets: sockets }) };
}

/** Runs random operations until `until`; returns counts per operation and the unexpected answers. */
export async function worker(ctx, until, stats) {
  while (Date.now() < until) {
    const name = pick(table);
    const [, run, ok] = OPERATIONS[name];
    stats.count[name] = (stats.count[name] ?? 0) + 1;
    let r;
    try {
      r = await run(ctx);
    } catch (err) {
      r = { status: 0, text: String(err) };
    }
    if (!r.aborted && !ok.includes(r.status)) {
      stats.failures++;
      if (stats.examples.length < 10) stats.examples.push(`${name}: ${r.status} ${String(r.text ?? '').slice(0, 200)}`);
    }
  }
}
