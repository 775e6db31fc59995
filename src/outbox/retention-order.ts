// Retention with the outbox on (docs/outbox.md, "Retention"): what goes for maxCount and
// maxBytes is uploaded recordings first, oldest first, whatever their age relative to the
// others, then the oldest un-uploaded ones. maxAgeDays still takes every recording past it.
import type { RetentionConfig } from '../config/config.ts';
import type { Recording } from '../audio/retention.ts';

export function toDeletePreferringUploaded(
  recordings: Recording[],
  limits: RetentionConfig,
  now: number,
  uploaded: (name: string) => boolean,
): Recording[] {
  const oldestFirst = [...recordings].sort((a, b) => a.startedMs - b.startedMs || (a.name < b.name ? -1 : 1));
  const tooOld = limits.maxAgeDays === null ? -Infinity : now - limits.maxAgeDays * 86_400_000;
  const out = oldestFirst.filter((r) => r.startedMs < tooOld);
  const rest = oldestFirst.filter((r) => r.startedMs >= tooOld);
  let count = rest.length;
  let bytes = rest.reduce((n, r) => n + r.bytes, 0);
  const order = [...rest.filter((r) => uploaded(r.name)), ...rest.filter((r) => !uploaded(r.name))];
  for (const r of order) {
    if ((limits.maxCount === null || count <= limits.maxCount) && (limits.maxBytes === null || bytes <= limits.maxBytes)) break;
    out.push(r);
    count--;
    bytes -= r.bytes;
  }
  return out;
}
