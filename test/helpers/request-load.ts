// Requests "begun" at a steady pace, as the request path counts them (src/util/give-way.ts),
// without a server: for what reads that count (the outbox giving way, the settle waiting).
import { requestBegun } from '../../src/util/give-way.ts';

/** Requests begun at `perSecond` until the returned function is called, in steps of 5 ms. */
export function requestLoad(perSecond: number): () => void {
  const each = (perSecond * 5) / 1000;
  let owed = 0;
  const timer = setInterval(() => {
    owed += each;
    for (; owed >= 1; owed--) requestBegun();
  }, 5);
  return () => clearInterval(timer);
}
