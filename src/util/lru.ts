// lru-cache, loaded with the first login or token (as jsonwebtoken is), not at start-up:
// its module reads the global `performance` as it loads, and that getter makes Node load
// node:perf_hooks and eight modules of its own (~1.1 ms of every start, for a clock the
// agent's caches do not need until they hold something).
import { lazy } from './lazy.ts';

export const lruCache = lazy('lru-cache', () => import('lru-cache'));
