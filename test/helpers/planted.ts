// A planted tree for the hostile-input tests: secrets outside the base directory with known
// content, links in the base that point in, out and nowhere, and a hash of everything outside.
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { snapshot } from './files.ts';

/** fast-check settings: a fixed seed and bounded runs in CI; `npm run fuzz` sets both. */
export const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
export const runs = (ci: number) => Math.max(1, Math.round((ci * Number(process.env.FUZZ_RUNS ?? 150)) / 150));

export interface Planted {
  /** Content of every regular file outside the base: a download must never return one. */
  outside: Buffer[];
  /** Everything outside the base directory, hashed (see snapshot()). */
  outsideSnapshot(): string[];
  /** Starts replacing link `swap` between an inside and an outside directory; returns the stop. */
  swapper(): () => void;
}

/**
 * `dir` holds the agent's config, users and secret and its base `dir/files`. Adds
 * `dir/outside/` and `dir/files2/` (a sibling whose name starts like the base), and in the
 * base: files, a directory, and links in, out, dangling, looping and one being swapped.
 */
export function plant(dir: string): Planted {
  const base = join(dir, 'files');
  const outside: Buffer[] = [];
  const secret = (path: string, text: string) => {
    mkdirSync(join(path, '..'), { recursive: true });
    const data = Buffer.from(`${text} ${path}\n`);
    writeFileSync(path, data);
    outside.push(data);
  };
  secret(join(dir, 'outside/secret.txt'), 'OUTSIDE SECRET');
  secret(join(dir, 'outside/sub/deep.txt'), 'OUTSIDE DEEP');
  secret(join(dir, 'files2/secret.txt'), 'SIBLING SECRET');
  secret(join(dir, 'secret.txt'), 'NEXT TO BASE');

  mkdirSync(join(base, 'sub'), { recursive: true });
  writeFileSync(join(base, 'a.txt'), 'inside a\n');
  writeFileSync(join(base, 'sub/secret.txt'), 'inside sub secret\n');
  writeFileSync(join(base, 'sub/b.txt'), 'inside b\n');
  const links: Array<[string, string]> = [
    ['in', 'sub'],
    ['inFile', 'a.txt'],
    ['inAbs', join(base, 'sub')],
    ['out', '../outside'],
    ['outFile', '../outside/secret.txt'],
    ['outAbs', join(dir, 'outside')],
    ['outSibling', '../files2'],
    ['outConfig', '../config.json'],
    ['outUsers', '../users.json'],
    ['dangling', '../outside/none.txt'],
    ['danglingIn', 'none.txt'],
    ['danglingDir', '../outside/nodir/'],
    ['loop1', 'loop2'],
    ['loop2', 'loop1'],
    ['swap', 'sub'],
    ['sub/up', '..'],
    ['sub/out', '../../outside'],
  ];
  for (const [name, target] of links) symlinkSync(target, join(base, name));
  return {
    outside,
    outsideSnapshot: () => snapshot(dir).filter((line) => !line.startsWith('files/')),
    swapper() {
      let inside = true;
      let n = 0;
      const timer = setInterval(() => {
        // Atomic replacement, as an attacker with write access to the base could do.
        const tmp = join(base, `.swap-${n++}`);
        symlinkSync((inside = !inside) ? 'sub' : '../outside', tmp);
        renameSync(tmp, join(base, 'swap'));
      }, 1);
      return () => clearInterval(timer);
    },
  };
}

/** Path pieces an attacker would try: dots in every spelling, separators, look-alikes, links. */
export const SEGMENTS = [
  '..',
  '.',
  '',
  '...',
  '%2e%2e',
  '%252e%252e',
  '%2e',
  '..%2f',
  '..%5c',
  '%2e%2e%2f',
  '..\\',
  '\\..',
  '..;',
  '\u2024\u2024',
  '\uFF0E\uFF0E',
  '\u2215',
  '\uFF0F',
  '\u2216',
  '\uFE52\uFE52',
  '.\u200b.',
  '\0',
  '%00',
  'a.txt%00.png',
  'a.txt',
  'sub',
  'b.txt',
  'secret.txt',
  'deep.txt',
  'in',
  'inFile',
  'inAbs',
  'out',
  'outFile',
  'outAbs',
  'outSibling',
  'outConfig',
  'outUsers',
  'dangling',
  'danglingIn',
  'danglingDir',
  'loop1',
  'swap',
  'up',
  'outside',
  'files',
  'files2',
  'etc',
  'passwd',
  'config.json',
  'users.json',
  'jwt.secret',
  'recordings',
  'none.txt',
  'CON',
  ' ',
  '~',
  '*',
  '?',
];
