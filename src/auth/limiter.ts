// Failed-login limiting per (client address, username).
//
// Counters live in an LRU of at most 10,000 keys. A name that cannot be a user's name
// (docs/api.md: 1-64 of A-Z a-z 0-9 . _ @ -) is counted under one key per address, so a
// key holds at most an address and 64 characters whatever the client sends: the memory
// is bounded (a 16 KiB name per key could otherwise pin ~160 MB). Flooding the LRU with
// other valid names to evict a victim's counter needs a new failure per entry, and each
// costs a password hash behind a gate of one. (lru-cache allocates its arrays for `max`
// entries up front: 50,000 cost 7 ms of every start.) Windows count on the monotonic
// clock: a wall clock set back two days must not lock a user out for two days
// (docs/behaviour.md#the-clock).
import type { LRUCache } from 'lru-cache';
import { monotonicMs } from '../util/clock.ts';
import { lruCache } from '../util/lru.ts';
import { validUsername } from './users.ts';

export interface LimiterOptions {
  maxFailures: number;
  windowMs: number;
  max: number;
}

interface Counter {
  failures: number;
  /** Monotonic milliseconds (src/util/clock.ts). */
  windowStart: number;
}

export class LoginLimiter {
  private lru: LRUCache<string, Counter> | undefined;

  constructor(private readonly opts: LimiterOptions = { maxFailures: 10, windowMs: 15 * 60_000, max: 10_000 }) {}

  /** Made on the first login, with lru-cache (src/util/lru.ts): it allocates its arrays for `max` entries up front (0.9 ms of a start). */
  private async counters(): Promise<LRUCache<string, Counter>> {
    this.lru ??= new (await lruCache()).LRUCache<string, Counter>({ max: this.opts.max });
    return this.lru;
  }

  private key(address: string, username: string): string {
    // Not a possible user name: one shared key per address (NUL cannot be in a valid name).
    return validUsername(username) ? `${address}\u0000${username}` : `${address}\u0000\u0000`;
  }

  /** Seconds until the pair may try again, or 0 when it may try now. */
  async retryAfter(address: string, username: string, now = monotonicMs()): Promise<number> {
    const counters = await this.counters();
    const c = counters.get(this.key(address, username));
    if (!c) return 0;
    const end = c.windowStart + this.opts.windowMs;
    if (now >= end) {
      counters.delete(this.key(address, username));
      return 0;
    }
    return c.failures >= this.opts.maxFailures ? Math.ceil((end - now) / 1000) : 0;
  }

  async fail(address: string, username: string, now = monotonicMs()): Promise<void> {
    const counters = await this.counters();
    const k = this.key(address, username);
    const c = counters.get(k);
    if (!c || now >= c.windowStart + this.opts.windowMs) counters.set(k, { failures: 1, windowStart: now });
    else c.failures++;
  }

  async succeed(address: string, username: string): Promise<void> {
    (await this.counters()).delete(this.key(address, username));
  }
}
