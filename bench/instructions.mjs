// Instructions per status request, counted by valgrind's callgrind: the one figure of the
// bench that does not follow how busy a shared host is (the same build measured within
// ~2 % from run to run, while its req/s ratio swung by a quarter in an afternoon).
// Each server runs under callgrind, gets `warm` requests on 16 kept-alive connections (its
// code optimised), has its counters zeroed, gets `n` more on the same connections, and is
// dumped; the main thread's count over n is the figure (the other threads are V8's
// compiler and GC helpers and libuv's pool).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync, readFileSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { join } from 'node:path';
import { AGENT_LISTENING, portIn } from './procs.mjs';

/**
 * `count` connections kept open for every batch: the counted window then holds requests
 * only, no connection set-up (over TLS, a full handshake is ~1.9M instructions: 16 of them
 * in a window of 10,000 requests were 3k a request). `secure`: TLS, any certificate.
 */
export async function openConnections(port, { count = 16, secure = false } = {}) {
  const sockets = [];
  for (let i = 0; i < count; i++) {
    const socket = secure ? tlsConnect({ port, host: '127.0.0.1', rejectUnauthorized: false }) : connect(port, '127.0.0.1');
    await new Promise((resolve, reject) => {
      socket.once(secure ? 'secureConnect' : 'connect', resolve);
      socket.once('error', reject);
    });
    socket.setEncoding('latin1');
    sockets.push(socket);
  }
  return sockets;
}

/** `n` keep-alive GETs spread over the open `sockets`, each waiting for its answer before the next. */
export function fixedRequests(sockets, path, headers, n) {
  const request = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  let sent = 0;
  let answered = 0;
  return new Promise((resolve, reject) => {
    for (const socket of sockets) {
      let buf = '';
      const next = () => {
        if (sent < n) {
          sent++;
          socket.write(request);
        }
      };
      socket.removeAllListeners('data');
      socket.removeAllListeners('error');
      socket.on('error', reject);
      socket.on('data', (d) => {
        buf += d;
        for (let end; (end = buf.indexOf('\r\n\r\n')) !== -1; ) {
          const head = buf.slice(0, end);
          if (!head.startsWith('HTTP/1.1 200 ')) return reject(new Error(`answered: ${head.split('\r\n')[0]}`));
          const total = end + 4 + Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
          if (!(buf.length >= total)) return;
          buf = buf.slice(total);
          if (++answered === n) resolve();
          next();
        }
      });
      next();
    }
  });
}

/**
 * Main-thread instructions per request of `argv` (a server printing `listening`, its port in
 * group 1) under callgrind. `secure`: the requests go over TLS (the server's port speaks it).
 */
export async function instructionsPerRequest({ argv, dir, listening, path, headers, warm, n, secure = false }) {
  mkdirSync(dir, { recursive: true });
  const out = join(dir, 'out');
  const fd = openSync(out, 'w');
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--separate-threads=yes',
      '--dump-instr=no',
      `--callgrind-out-file=${join(dir, 'cg.%p')}`,
      // V8 writes and rewrites machine code at run time: callgrind must see those writes.
      '--smc-check=all-non-file',
      ...argv,
    ],
    { stdio: ['ignore', fd, fd] },
  );
  closeSync(fd);
  try {
    const port = await portIn(out, listening, child, { timeoutMs: 60_000, everyMs: 100 });
    const sockets = await openConnections(port, { secure });
    await fixedRequests(sockets, path, headers, warm);
    execFileSync('callgrind_control', ['--zero', String(child.pid)], { stdio: 'ignore' });
    await fixedRequests(sockets, path, headers, n);
    execFileSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' });
    for (const socket of sockets) socket.destroy();
    const main = readdirSync(dir).find((f) => new RegExp(`^cg\\.${child.pid}\\.1-01$`).test(f));
    if (!main) throw new Error(`no callgrind dump of the main thread in ${dir}`);
    const total = Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, main), 'utf8'))?.[1]);
    if (!Number.isFinite(total)) throw new Error(`no instruction total in ${main}`);
    return total / n;
  } finally {
    child.kill('SIGKILL');
  }
}

/**
 * The count for an agent's authenticated status request: `agent` as started by
 * procs.mjs's startAgentBin (its config and token; the token stays valid for a new process
 * on the same state), run again from `bin` under callgrind.
 */
export function agentStatusCount({ bin, agent, dir, warm, n, secure = false }) {
  return instructionsPerRequest({
    argv: [bin, 'serve', '--config', agent.config],
    dir,
    listening: AGENT_LISTENING,
    path: '/api/v1/devicestatus/get',
    headers: { Authorization: `Bearer ${agent.token}` },
    warm,
    n,
    secure,
  });
}

/**
 * Several counts side by side, all of them ended before an error goes on: with Promise.all
 * the first failure (a 408 from a server slowed by callgrind) reached the bench's exit
 * while the other server still ran under valgrind, left behind after the bench.
 */
export async function allCounts(counts) {
  const settled = await Promise.allSettled(counts);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => s.value);
}
