// Starts a real agent process (from source, or the built executable when
// TEST_AGENT=bin) with its own temp directory, config, users and secret, on port 0.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hashPassword } from '../../src/auth/passwords.ts';
import { newUser, writeUsers, type User } from '../../src/auth/users.ts';
import type { Role } from '../../src/auth/scopes.ts';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'dist/device-agent');

/** The command that runs the CLI under test: the executable, or the sources through tsx. */
export function agentCommand(): { cmd: string; args: string[] } {
  if (process.env.TEST_AGENT === 'bin') return { cmd: BIN, args: [] };
  return { cmd: process.execPath, args: ['--import', 'tsx', join(ROOT, 'src/main.ts')] };
}

const hashes = new Map<string, Promise<string>>();
export function hashOnce(password: string): Promise<string> {
  let h = hashes.get(password);
  if (!h) hashes.set(password, (h = hashPassword(password)));
  return h;
}

export const ADMIN = { username: 'admin', password: 'correct horse battery' };

export interface TestAgent {
  url: string;
  port: number;
  /** The temp directory holding config.json, files/, users.json, jwt.secret. */
  dir: string;
  configFile: string;
  baseDir: string;
  child: ChildProcess;
  output(): string;
  users: User[];
  /** Logs in and returns the token (throws unless 200). */
  login(username?: string, password?: string): Promise<string>;
  /** Sends a signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Stops the agent and removes its directory. */
  cleanup(): Promise<void>;
}

export interface AgentOptions {
  config?: Record<string, unknown>;
  users?: Array<{ username: string; password: string; role?: Role; directory?: string | null }>;
  env?: Record<string, string>;
  /** Reuse a directory (restart tests); it must hold a config already. */
  dir?: string;
  /** A command that runs the agent's (a wrapper that execs it, e.g. test/helpers/deny-syscall). */
  wrap?: string[];
}

export function makeDir(prefix = 'da-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * A 1 MiB tmpfs mounted noexec, for an agent's TMPDIR: the addon cannot be loaded from it,
 * so the agent runs its fallbacks. mount(8) needs CAP_SYS_ADMIN (the suite runs as root).
 */
export async function withNoexecTmpdir<T>(body: (tmp: string) => Promise<T>): Promise<T> {
  if (process.getuid?.() !== 0) throw new Error('this test mounts a noexec tmpfs and must run as root');
  const tmp = join(makeDir('da-noexec-'), 'tmp');
  mkdirSync(tmp);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,noexec', 'tmpfs', tmp]);
  try {
    return await body(tmp);
  } finally {
    execFileSync('umount', ['-l', tmp]);
    rmdirSync(tmp);
  }
}

const compiled = new Map<string, string>();
/** test/helpers/NAME.c compiled once per run (gcc is a build dependency); the executable's path. */
export function compiledHelper(name: string): string {
  let bin = compiled.get(name);
  if (!bin) {
    bin = join(makeDir(`da-${name}-`), name);
    execFileSync('cc', ['-O2', '-Wall', '-Wextra', '-Werror', '-o', bin, join(ROOT, `test/helpers/${name}.c`)]);
    compiled.set(name, bin);
  }
  return bin;
}

/** Writes config.json, files/, users.json (hashes cached per password) and returns the directory. */
export async function prepareDir(opts: AgentOptions = {}): Promise<{ dir: string; users: User[] }> {
  const dir = opts.dir ?? makeDir();
  mkdirSync(join(dir, 'files'), { recursive: true });
  const users: User[] = [];
  // Admin unless a test names the role: the suite's agents predate roles.
  for (const u of (opts.users ?? [ADMIN]) as NonNullable<AgentOptions['users']>) {
    users.push(newUser(u.username, await hashOnce(u.password), u.role ?? 'admin', u.directory ?? null));
  }
  writeUsers(join(dir, 'users.json'), users);
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      host: '127.0.0.1',
      port: 0,
      baseDir: 'files',
      usersFile: 'users.json',
      jwtSecretFile: 'jwt.secret',
      audio: { device: 'null' },
      ...opts.config,
    }),
  );
  return { dir, users };
}

/** Spawns the agent on a config and resolves once it listens. */
export function spawnAgent(
  dir: string,
  env: Record<string, string> = {},
  wrap: string[] = [],
): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const { cmd, args } = agentCommand();
  const argv = [...wrap, cmd, ...args, 'serve', '--config', join(dir, 'config.json')];
  const child = spawn(argv[0]!, argv.slice(1), {
    // NOTIFY_SOCKET: '' so a test run under a systemd service notifies nothing of its own.
    env: { ...process.env, DEVICE_AGENT_CONFIG: '', NOTIFY_SOCKET: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  return new Promise((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`agent did not start:\n${out}`)), 15_000);
    const onData = () => {
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout!.removeListener('data', onData);
        resolvePort({ child, port: Number(m[1]), output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`agent exited with ${code} before listening:\n${out}`));
    });
  });
}

export async function startAgent(opts: AgentOptions = {}): Promise<TestAgent> {
  const { dir, users } = await prepareDir(opts);
  const { child, port, output } = await spawnAgent(dir, opts.env, opts.wrap);
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  const agent: TestAgent = {
    url,
    port,
    dir,
    child,
    output,
    users,
    configFile: join(dir, 'config.json'),
    baseDir: join(dir, 'files'),
    async login(username = ADMIN.username, password = ADMIN.password) {
      const res = await fetch(`${url}/api/v1/agentusers/loginusertoagent`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username, password }),
      });
      if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { token: string }).token;
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    async cleanup() {
      await agent.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return agent;
}

/** Runs the CLI to completion. */
export function runCli(
  args: string[],
  opts: { input?: string; env?: Record<string, string>; cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { cmd, args: pre } = agentCommand();
  const child = spawn(cmd, [...pre, ...args], {
    env: { ...process.env, DEVICE_AGENT_CONFIG: '', NOTIFY_SOCKET: '', ...opts.env },
    cwd: opts.cwd ?? ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  child.stdin.end(opts.input ?? '');
  return new Promise((r) => child.on('close', (code) => r({ code, stdout, stderr })));
}
