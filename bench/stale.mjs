// Whether dist/device-agent is older than what it is built from, and which commit a run
// measures: a bench of a stale executable reports figures of code that is no longer there
// (it happened: an executable built from stashed sources was benched after they came back).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What the executable is built from: the sources, the build scripts and the locked dependencies. */
const INPUTS = ['src', 'build', 'build.mjs', 'package-lock.json'];

function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return { path, mtimeMs: st.mtimeMs };
  let best = { path, mtimeMs: 0 };
  for (const name of readdirSync(path)) {
    const n = newest(join(path, name));
    if (n.mtimeMs > best.mtimeMs) best = n;
  }
  return best;
}

/** Why `bin` must be (re)built from the tree at `root`, or undefined when it is newer than all its inputs. */
export function staleBuild(root, bin) {
  if (!existsSync(bin)) return `${bin} is missing`;
  const built = statSync(bin).mtimeMs;
  for (const input of INPUTS) {
    if (!existsSync(join(root, input))) continue;
    const n = newest(join(root, input));
    if (n.mtimeMs > built) return `${n.path} is newer than ${bin}`;
  }
  return undefined;
}

/** The commit the tree is at, with "+ uncommitted changes" when the executable's inputs differ from it. */
export function codeOf(root) {
  try {
    const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const head = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--', ...INPUTS) ? `${head} + uncommitted changes` : head;
  } catch {
    return 'unknown (not a git checkout)';
  }
}
