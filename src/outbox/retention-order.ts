// Retention with the outbox on (docs/outbox.md, "Retention"): what goes for maxCount and
// maxBytes is uploaded recordings first, oldest first (in the order they were made), whatever
// their age relative to the others, then the oldest un-uploaded ones. maxAgeDays still takes
// every recording past it. The clock's rules hold as without the outbox (docs/behaviour.md,
// "The clock"): under an implausible clock only maxBytes applies, and the recording whose end
// started the pass is never deleted.
import type { RetentionConfig } from '../config/config.ts';
import type { Recording, RetentionPass } from '../audio/retention.ts';

export function toDeletePreferringUploaded(
  recordings: Recording[],
  limits: RetentionConfig,
  pass: RetentionPass,
  uploaded: (name: string) => boolean,
): Recording[] {
  const oldestFirst = [...recordings].sort((a, b) => a.seq - b.seq || (a.name < b.name ? -1 : 1));
  const maxCount = pass.plausible ? limits.maxCount : null;
  const tooOld = limits.maxAgeDays === null || !pass.plausible ? -Infinity : pass.now - limits.maxAgeDays * 86_400_000;
  const expired = (r: Recording) => r.name !== pass.keep && r.madeAt !== null && r.madeAt < tooOld;
  const out = oldestFirst.filter(expired);
  const rest = oldestFirst.filter((r) => !expired(r));
  let count = rest.length;
  let bytes = rest.reduce((n, r) => n + r.bytes, 0);
  const candidates = rest.filter((r) => r.name !== pass.keep);
  const order = [...candidates.filter((r) => uploaded(r.name)), ...candidates.filter((r) => !uploaded(r.name))];
  for (const r of order) {
    if ((maxCount === null || count <= maxCount) && (limits.maxBytes === null || bytes <= limits.maxBytes)) break;
    out.push(r);
    count--;
    bytes -= r.bytes;
  }
  return out;
}
