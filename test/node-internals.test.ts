// The private fields of Node's that src/http/node-internals.ts reads: each fast path is
// taken on this Node (a moved field fails here, not silently as a slower device), and a
// fallback is taken on public API and noted once.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer as createHttpServer } from 'node:http';
import {
  answerHalfClosedClients,
  bytesSent,
  currentResponse,
  replaceDestroySoon,
  serverFd,
  setInternalsLog,
  socketFd,
  tcpOf,
} from '../src/http/node-internals.ts';
import { createSecureContext, TLSSocket } from 'node:tls';
import { startAgent } from './helpers/agent.ts';
import { bearer } from './helpers/http.ts';
import { collectLog } from './helpers/log.ts';

const unit = suite('node internals, on this Node');

async function socketPair(): Promise<{ client: Socket; server: Socket; close: () => void }> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const accepted = new Promise<Socket>((r) => srv.once('connection', r));
  const client = connect((srv.address() as { port: number }).port, '127.0.0.1');
  const server = await accepted;
  return {
    client,
    server,
    close: () => {
      client.destroy();
      server.destroy();
      srv.close();
    },
  };
}

unit('the fast paths are taken: a real fd, the dispatched count, destroySoon to replace', async () => {
  const notes: string[] = [];
  setInternalsLog(collectLog(notes));
  const { server, close } = await socketPair();
  try {
    const fd = socketFd(server);
    assert.type(fd, 'number');
    assert.ok(fd! > 2);
    await new Promise<void>((r) => server.write('hello', () => r()));
    assert.is(bytesSent(server), 5);
    assert.is(bytesSent(server), server.bytesWritten);
    let replaced = false;
    replaceDestroySoon(server, () => {
      replaced = true;
    });
    (server as Socket & { destroySoon(): void }).destroySoon();
    assert.ok(replaced);
    const http = createHttpServer();
    assert.is((http as unknown as { httpAllowHalfOpen?: unknown }).httpAllowHalfOpen, false, "Node's own default, read by socketOnEnd");
    answerHalfClosedClients(http);
    assert.is((http as unknown as { httpAllowHalfOpen?: unknown }).httpAllowHalfOpen, true);
    // The answer under way on a socket: the response object during a request, none after it.
    let during: unknown = 'not read';
    let socketOf: Socket | undefined;
    http.on('request', (req, res) => {
      during = currentResponse(req.socket) === res;
      socketOf = req.socket;
      res.end('ok');
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
    const listening = serverFd(http);
    const answered = await fetch(`http://127.0.0.1:${(http.address() as { port: number }).port}/`);
    assert.is(await answered.text(), 'ok');
    assert.is(during, true);
    assert.is(currentResponse(socketOf!), undefined);
    http.closeAllConnections();
    http.close();
    assert.type(listening, 'number');
    assert.ok(listening! > 2);
    assert.equal(notes, []);
  } finally {
    close();
  }
});

unit('a TLS socket leads to the TCP connection it encrypts onto (setsockopt, src/http/unsent.ts)', async () => {
  const notes: string[] = [];
  setInternalsLog(collectLog(notes));
  const { server, close } = await socketPair();
  const secure = new TLSSocket(server, { isServer: true, secureContext: createSecureContext() });
  try {
    assert.is(tcpOf(server), server);
    assert.is(socketFd(secure), undefined); // no sendfile through TLS
    assert.is(tcpOf(secure), server);
    assert.type(socketFd(tcpOf(secure)!), 'number');
    assert.equal(notes, []);
    // A release that drops the field: no connection, noted once.
    const orphan = { encrypted: true } as unknown as Socket;
    assert.is(tcpOf(orphan), undefined);
    assert.is(tcpOf(orphan), undefined);
    assert.is(notes.length, 1, notes.join('\n'));
    assert.match(notes[0]!, /^<4>node-internals: TLS socket _parent: is missing/);
  } finally {
    secure.destroy();
    close();
  }
});

unit('a moved field takes the public path and notes it once', async () => {
  const notes: string[] = [];
  setInternalsLog(collectLog(notes));
  // A socket as a Node release that renamed the fields would make it.
  const moved = { destroyed: false, writableLength: 0, bytesWritten: 42, _handle: { descriptor: 9 } } as unknown as Socket;
  assert.is(socketFd(moved), undefined);
  assert.is(socketFd(moved), undefined);
  assert.is(bytesSent(moved), 42);
  assert.is(bytesSent(moved), 42);
  const renamed = { _httpMessage: 7 } as unknown as Socket;
  assert.is(currentResponse(renamed), undefined);
  assert.is(currentResponse(renamed), undefined);
  assert.is(notes.length, 3, notes.join('\n'));
  assert.match(notes[0]!, /^<4>node-internals: socket _handle\.fd: is undefined/);
  assert.match(notes[1]!, /^<4>node-internals: socket _bytesDispatched: is undefined/);
  assert.match(notes[2]!, /^<4>node-internals: socket _httpMessage: is number/);
});

const e2e = suite('node internals, in the running agent');

e2e('a download by sendfile, status answers and a lingering close take no fallback', async () => {
  const agent = await startAgent();
  try {
    writeFileSync(join(agent.baseDir, 'one.bin'), Buffer.alloc(2 * 1024 * 1024, 7));
    const token = await agent.login();
    const down = await fetch(`${agent.url}/api/download?filepath=one.bin`, { headers: bearer(token) });
    assert.is(down.status, 200);
    assert.is((await down.arrayBuffer()).byteLength, 2 * 1024 * 1024);
    for (let i = 0; i < 3; i++) assert.is((await fetch(`${agent.url}/api/v1/devicestatus/get`, { headers: bearer(token) })).status, 200);
    // A body refused before it is read: the answer closes the connection lingering.
    const refused = await fetch(`${agent.url}/api/v1/agentusers/loginusertoagent`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: 'x'.repeat(64 * 1024),
    });
    assert.is(refused.status, 413);
    await new Promise((r) => setTimeout(r, 200));
    assert.not.match(agent.output(), /node-internals:/);
    // The download went by sendfile, not copied: the copy path would have said why.
    assert.not.match(agent.output(), /copied through user space/);
  } finally {
    await agent.cleanup();
  }
});

unit.run();
e2e.run();
