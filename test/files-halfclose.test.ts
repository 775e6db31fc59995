// A client that sends its request whole and then shuts its sending side (shutdown(SHUT_WR),
// as `nc -N` and many HTTP/1.0-style scripts do) gets a whole answer: status line, headers,
// every byte of the file; never the file's bytes without a head (docs/behaviour.md#files).
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { eventually } from './helpers/proc.ts';

const MiB = 1024 * 1024;
const TRIES = 30;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Sends `request` on a fresh connection, half-closes at once, resolves with all that came back. */
function halfClosed(port: number, request: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    sock.on('data', (d) => chunks.push(d));
    sock.on('error', reject);
    sock.on('close', () => resolve(Buffer.concat(chunks)));
    sock.end(request); // write, then FIN: the client sends nothing more
  });
}

const hc = suite<{ agent: TestAgent; token: string; data: Buffer }>('half-closed clients');
hc.before(async (ctx) => {
  ctx.agent = await startAgent();
  ctx.token = await ctx.agent.login();
  ctx.data = randomBytes(10 * MiB);
  writeFileSync(join(ctx.agent.baseDir, 'ten.bin'), ctx.data);
});
hc.after(async (ctx) => {
  await ctx.agent.cleanup();
});

hc(
  `a download ${TRIES} times over, each client half-closing after its request: each gets the head and the whole file, the log says what was sent`,
  async ({ agent, token, data }) => {
    const request = `GET /api/download?filepath=ten.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`;
    const want = sha(data);
    const failures: string[] = [];
    const sizes: number[] = [];
    for (let i = 0; i < TRIES; i++) {
      const got = await halfClosed(agent.port, request);
      sizes.push(got.length);
      const at = got.indexOf('\r\n\r\n');
      const head = at === -1 ? '' : got.subarray(0, at).toString('latin1');
      if (!head.startsWith('HTTP/1.1 200 ')) {
        failures.push(`try ${i}: ${got.length} bytes, starting ${JSON.stringify(got.subarray(0, 16).toString('latin1'))}`);
        continue;
      }
      const body = got.subarray(at + 4);
      if (!/\r\ncontent-length: 10485760(\r\n|$)/i.test(head) || sha(body) !== want)
        failures.push(`try ${i}: ${body.length} body bytes, not the file`);
    }
    assert.equal(failures, [], failures.join('\n'));
    // One line a try, each "200 <every byte received>", none aborted.
    const lines = () =>
      agent
        .output()
        .split('\n')
        .filter((l) => l.includes('GET /api/download '));
    assert.ok(await eventually(() => lines().length >= TRIES, 3000), agent.output());
    assert.equal(
      lines().map((l) => / GET \/api\/download (\S+) (\d+) /.exec(l)?.slice(1).join(' ')),
      sizes.map((n) => `200 ${n}`),
    );
  },
);

hc('a login from a half-closed client (an answer that takes a while) is answered', async ({ agent }) => {
  const body = JSON.stringify({ username: 'admin', password: 'correct horse battery' });
  const got = (
    await halfClosed(
      agent.port,
      `POST /api/v1/agentusers/loginusertoagent HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body}`,
    )
  ).toString('latin1');
  assert.match(got, /^HTTP\/1\.1 200 /);
  assert.match(got, /\r\n\r\n\{"token":"[^"]+"/);
});

hc.run();
