// The reconnect wait (docs/mqtt.md, "Reconnects"): doubling from 1 s to 5 minutes with ±20 %
// jitter, back to 1 s only after 60 s connected, so a fleet whose broker comes back does not
// reconnect in step, and a broker down for 10 minutes sees at most 12 attempts.

export const BACKOFF = { firstMs: 1_000, maxMs: 300_000, jitter: 0.2, stableMs: 60_000 };

export class Backoff {
  private nextMs: number;

  constructor(
    private readonly random: () => number = Math.random,
    private readonly limits = BACKOFF,
  ) {
    this.nextMs = limits.firstMs;
  }

  /** The wait before the next attempt; `connectedMs`: how long the last connection lasted (0: none). */
  delay(connectedMs: number): number {
    if (connectedMs >= this.limits.stableMs) this.nextMs = this.limits.firstMs;
    const base = this.nextMs;
    this.nextMs = Math.min(base * 2, this.limits.maxMs);
    return Math.round(base * (1 + (this.random() * 2 - 1) * this.limits.jitter));
  }

  /** A changed config (SIGHUP) starts afresh. */
  reset(): void {
    this.nextMs = this.limits.firstMs;
  }
}
