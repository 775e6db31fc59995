// A throwaway Debian 12 root for installing the package for real without touching the
// machine running the tests: debootstrap once into a cache, copy per run, chroot into it.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Cached roots live outside the repository so a CI re-run or a fresh clone reuses them. */
export const CACHE_DIR = process.env.DEVICE_AGENT_TEST_CACHE || '/var/cache/device-agent-test';
export const SUITE = 'bookworm';
/** minbase, plus adduser (postinst), openssl and sox (Depends); the rest of Depends is in minbase. */
const INCLUDE = ['adduser', 'openssl', 'sox'];
const ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8', DEBIAN_FRONTEND: 'noninteractive', HOME: '/root' };

/** Why this machine cannot run the install tests, or undefined when it can. */
export function cannotChroot(): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return 'needs root on Linux (debootstrap, chroot)';
  for (const tool of ['/usr/sbin/debootstrap', '/usr/bin/unshare', '/usr/sbin/chroot']) {
    if (!existsSync(tool)) return `needs ${tool}`;
  }
  return undefined;
}

/** The mirror apt uses on this machine (deb822 or one-line sources), else deb.debian.org. */
export function debianMirror(): string {
  if (process.env.DEVICE_AGENT_TEST_MIRROR) return process.env.DEVICE_AGENT_TEST_MIRROR;
  for (const file of ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list']) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const m = /^URIs:\s*(\S+\/debian)\/?\s*$/m.exec(text) ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\/?\s+bookworm\s/m.exec(text);
    if (m) return m[1]!;
  }
  return 'http://deb.debian.org/debian';
}

/**
 * A debootstrapped root at `path` (minbase plus `include`), made on first use atomically
 * (in a temp directory, then renamed). Returns whether it was made now.
 */
export async function debootstrapOnce(path: string, include: string[]): Promise<boolean> {
  if (existsSync(join(path, 'etc/debian_version'))) return false;
  mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  try {
    await run('debootstrap', ['--variant=minbase', `--include=${include.join(',')}`, SUITE, tmp, debianMirror()], {
      maxBuffer: 64 << 20,
      env: { ...process.env, ...ENV },
    });
    await run('chroot', [tmp, 'apt-get', 'clean'], { env: ENV });
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  renameSync(tmp, path);
  return true;
}

/** The cached pristine root for chroot installs (minbase plus INCLUDE plus `more`, one cache each). */
export async function cachedRoot(more: string[] = []): Promise<{ path: string; created: boolean }> {
  const include = [...INCLUDE, ...more];
  const path = join(CACHE_DIR, `${SUITE}-minbase-${include.join('+')}`);
  return { path, created: await debootstrapOnce(path, include) };
}

export interface DebianRoot {
  path: string;
  /** Runs a program inside (as root, /proc mounted); rejects on a non-zero exit. */
  exec(argv: string[], input?: string): Promise<{ stdout: string; stderr: string }>;
  /** Starts a long-running program inside; the returned child is the program itself. */
  spawn(argv: string[]): ChildProcess;
  /** A file of the root, by its path inside. */
  file(inside: string): string;
  remove(): void;
}

/**
 * The argv that runs `argv` chrooted in `path`. A private mount namespace gives it its
 * own /proc, gone with the process; no --fork, so the pid is the program's own.
 */
function inRoot(path: string, argv: string[]): string[] {
  return ['--mount', '--propagation', 'private', `--mount-proc=${join(path, 'proc')}`, 'chroot', path, ...argv];
}

/** A fresh copy of the cached root in a temp directory; `more` packages beyond INCLUDE (a root of their own). */
export async function freshRoot(more: string[] = []): Promise<DebianRoot> {
  const { path: cached } = await cachedRoot(more);
  const dir = mkdtempSync(join(tmpdir(), 'da-debroot-'));
  const path = join(dir, 'root');
  await run('cp', ['-a', '--reflink=auto', cached, path]);
  return {
    path,
    async exec(argv, input) {
      return new Promise((resolve, reject) => {
        const child = execFile('unshare', inRoot(path, argv), { env: ENV, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
          if (err) reject(new Error(`${argv.join(' ')} failed (${err.code}):\n${stdout}${stderr}`));
          else resolve({ stdout, stderr });
        });
        // A program that exits without reading its input must not crash the test with EPIPE;
        // its exit status reports what went wrong.
        child.stdin!.on('error', () => {});
        child.stdin!.end(input ?? '');
      });
    },
    spawn(argv) {
      return spawn('unshare', inRoot(path, argv), { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    },
    file: (inside) => join(path, inside),
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The installed agent, started in the root as its service user with CONFIG (no systemd
 * there); resolves once it is listening.
 */
export async function startInstalled(root: DebianRoot, config: string): Promise<{ child: ChildProcess; url: string }> {
  const child = root.spawn([
    'setpriv',
    '--reuid=device-agent',
    '--regid=device-agent',
    '--init-groups',
    '/usr/bin/device-agent',
    'serve',
    '--config',
    config,
  ]);
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`installed agent did not start:\n${out}`)), 20_000);
    child.stdout!.on('data', () => {
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`installed agent exited ${code}:\n${out}`));
    });
  });
  return { child, url: `http://127.0.0.1:${port}` };
}
