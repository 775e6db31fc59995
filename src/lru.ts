// lru-cache, loaded with the first login or token (as jsonwebtoken is), not at start-up:
// its module reads the global `performance` as it loads, and that getter makes Node load
// node:perf_hooks and eight modules of its own (~1.1 ms of every start, for a clock the
// agent's caches do not need until they hold something).
import type * as Lru from 'lru-cache';

type LruLib = typeof Lru;
let lib: LruLib | undefined;
let loading: Promise<LruLib> | undefined;

export function loadLru(): Promise<LruLib> {
  loading ??= import('lru-cache').then((m) => (lib = m));
  return loading;
}

/** The LRUCache class, once loadLru() has resolved. */
export function LruCache(): LruLib['LRUCache'] {
  if (!lib) throw new Error('lru-cache used before loadLru() resolved');
  return lib.LRUCache;
}
