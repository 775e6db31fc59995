// A credential's directory (docs/api.md, "Directory"): where its file routes are confined,
// found from the base by the same confinement rules as every file route.
import { realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Principal } from '../auth/scopes.ts';

/**
 * Whether `dir` (relative to `base`) is a directory that really is that name under the
 * base: not reached through a link, since a link in its place confines nothing
 * (realRoot in src/files/confine.ts answers 403 to every request of such a credential).
 */
export function directoryInside(base: string, dir: string): boolean {
  try {
    const real = realpathSync(join(base, dir));
    return real === join(realpathSync(base), dir) && statSync(real).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The directory a credential's file operations are confined to: `root` itself, or its
 * directory under it. Paths in requests stay relative to `root`; this only
 * narrows where they may lead (lexically and, through links, really).
 */
export function confinementRoot(root: string, who: Principal | undefined): string {
  const dir = who?.directory;
  return dir ? resolve(root, dir) : root;
}
