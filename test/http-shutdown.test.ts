// Stopping (SIGTERM, as systemctl restart and a package upgrade do) loses no request that
// reached the agent: a connection it accepted a moment before the stop, whose request is
// still on its way, is answered, not closed unanswered (a client then reads an empty
// reply: the one failed request of the VM restart check, docs/api.md#systemd). A connection that
// says nothing does not hold the stop beyond a short grace.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { startAgent, type TestAgent } from './helpers/agent.ts';
import { eventually } from './helpers/proc.ts';

const HEALTH = 'GET /api/v1/health HTTP/1.1\r\nHost: device\r\n\r\n';

/** Everything the peer sends until it closes (an error, such as a reset, as [CODE]). */
function collect(socket: Socket): Promise<string> {
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => {
    text += d;
  });
  socket.on('error', (err: NodeJS.ErrnoException) => {
    text += `[${err.code}]`;
  });
  return new Promise((resolve) => socket.on('close', () => resolve(text)));
}

const opened = (socket: Socket, event = 'connect') =>
  new Promise<void>((resolve, reject) => {
    socket.once(event, () => resolve());
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`closed before ${event}`)));
  });

/** Sends SIGTERM and waits until the agent says it is stopping (its listener is closed then). */
async function stopping(agent: TestAgent) {
  const stopped = agent.stop('SIGTERM');
  assert.ok(await eventually(() => /SIGTERM: stopping/.test(agent.output())), agent.output());
  await new Promise((r) => setTimeout(r, 100));
  return { stopped }; // not the promise itself: an async function's await would wait for the exit
}

/** Sends the health request, and checks its answer (200, `Connection: close`) and the agent's exit (0). */
async function answeredThenExits(
  agent: TestAgent,
  socket: Socket,
  answer: Promise<string>,
  stopped: ReturnType<TestAgent['stop']>,
): Promise<void> {
  socket.write(HEALTH);
  const text = await answer;
  assert.match(text, /^HTTP\/1\.1 200 OK\r\n/, `answer: ${JSON.stringify(text)}\n${agent.output()}`);
  assert.match(text, /\r\nconnection: close\r\n/i);
  assert.match(text, /"status":"ok"/);
  assert.is((await stopped).code, 0);
}

for (const tls of [false, true]) {
  const on = tls ? 'TLS on' : 'TLS off';
  const config = tls ? { tls: { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' } } : {};
  const test = suite(`stop, ${on}`);

  test(`plain HTTP: a connection accepted before SIGTERM, its request sent after, is answered with Connection: close (${on})`, async () => {
    const agent = await startAgent({ config });
    try {
      const socket = connect(agent.port, '127.0.0.1');
      await opened(socket);
      const answer = collect(socket);
      await new Promise((r) => setTimeout(r, 200)); // accepted by the agent, nothing sent yet
      const { stopped } = await stopping(agent);
      await answeredThenExits(agent, socket, answer, stopped);
    } finally {
      await agent.cleanup();
    }
  });

  test(`a connection that sends nothing holds the stop for a short grace only, then is closed (${on})`, async () => {
    const agent = await startAgent({ config });
    try {
      const socket = connect(agent.port, '127.0.0.1');
      await opened(socket);
      const closed = collect(socket);
      await new Promise((r) => setTimeout(r, 200));
      const t = Date.now();
      const { code } = await agent.stop('SIGTERM');
      const took = Date.now() - t;
      assert.is(code, 0);
      assert.ok(took >= 900 && took < 3000, `stopped after ${took} ms (grace 1 s)`);
      assert.is(await closed, '', 'closed without a byte');
    } finally {
      await agent.cleanup();
    }
  });

  if (tls) {
    test('HTTPS: a connection accepted before SIGTERM, its handshake and request after, is answered', async () => {
      const agent = await startAgent({ config });
      try {
        const raw = connect(agent.port, '127.0.0.1');
        await opened(raw);
        let ended = false;
        raw.once('end', () => {
          ended = true;
        });
        raw.resume();
        await new Promise((r) => setTimeout(r, 200));
        const { stopped } = await stopping(agent);
        assert.not.ok(ended, 'closed by the agent before the handshake');
        raw.pause();
        const secure: TLSSocket = tlsConnect({ socket: raw, rejectUnauthorized: false, servername: 'localhost' });
        const answer = collect(secure);
        await opened(secure, 'secureConnect');
        await answeredThenExits(agent, secure, answer, stopped);
      } finally {
        await agent.cleanup();
      }
    });

    test('HTTPS: a connection whose handshake was done before SIGTERM, its request after, is answered', async () => {
      const agent = await startAgent({ config });
      try {
        const secure = tlsConnect({ port: agent.port, host: '127.0.0.1', rejectUnauthorized: false, servername: 'localhost' });
        const answer = collect(secure);
        await opened(secure, 'secureConnect');
        await new Promise((r) => setTimeout(r, 200)); // handed to HTTP, no request yet
        const { stopped } = await stopping(agent);
        await answeredThenExits(agent, secure, answer, stopped);
      } finally {
        await agent.cleanup();
      }
    });
  }

  test(`a keep-alive request answered during the drain says Connection: close (${on})`, async () => {
    const agent = await startAgent({ config });
    try {
      // A login runs ~0.3 s (scrypt): SIGTERM lands while it runs on a kept-alive connection.
      const socket = connect(agent.port, '127.0.0.1');
      await opened(socket);
      const answer = collect(socket);
      socket.write(HEALTH);
      await new Promise((r) => setTimeout(r, 200));
      const body = JSON.stringify({ username: 'admin', password: 'correct horse battery' });
      socket.write(
        `POST /api/v1/agentusers/loginusertoagent HTTP/1.1\r\nHost: device\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      await new Promise((r) => setTimeout(r, 30));
      const stopped = agent.stop('SIGTERM');
      const text = await answer;
      const [first, second] = text.split(/(?=HTTP\/1\.1 )/);
      assert.match(first!, /\r\nconnection: keep-alive\r\n/i, `first: ${JSON.stringify(first)}`);
      assert.match(second!, /^HTTP\/1\.1 200 OK\r\n/, `second: ${JSON.stringify(second)}`);
      assert.match(second!, /\r\nconnection: close\r\n/i);
      assert.is((await stopped).code, 0);
    } finally {
      await agent.cleanup();
    }
  });

  test.run();
}
