// Joining paths that are already normal without node:path's normalising, which calls a
// tiny helper once per character. A start-up that resolved a dozen 30–40-character paths
// called it ~500 times, and V8 then compiled it with Maglev, its mid-tier compiler, whose
// code stayed mapped in the agent: ~1.8 MB of an idle agent's RSS (bench, "idle RSS").
import { resolve } from 'node:path';

/** An empty, '.' or '..' segment, or a trailing slash: what path.resolve() would change. */
const UNNORMAL = /\/\/|(?:^|\/)\.{1,2}(?:\/|$)|.\/$/;

/** Is `path` the base itself or below it? Both absolute; `/data/base2` is not inside `/data/base`. */
export function isWithin(base: string, path: string): boolean {
  if (path === base) return true;
  return path.startsWith(base.endsWith('/') ? base : base + '/');
}

/** `dir`/`name` for a normal absolute `dir` and a `name` that holds no slash. */
export function joinName(dir: string, name: string): string {
  return dir.endsWith('/') ? dir + name : `${dir}/${name}`;
}

/** Exactly path.resolve(base, p) for an absolute `base`; cheap when both are normal. */
export function resolveFrom(base: string, p: string): string {
  if (p === '' || UNNORMAL.test(p) || UNNORMAL.test(base) || !base.startsWith('/')) return resolve(base, p);
  return p.startsWith('/') ? p : joinName(base, p);
}
