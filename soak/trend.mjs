// The soak's verdict, pure: does a sampled series trend upward once warmed up?
// Robust to noise: the last third against the first, by median (or floor, for memory).

export function median(values) {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * `values` are the samples taken under load after the warm-up. Grows when the last
 * third's median exceeds the first third's by more than `ratio` and `slack` together
 * (a garbage-collected heap breathes; a leak keeps climbing). Needs 6 samples.
 */
export function trend(values, { ratio = 0.1, slack = 0, stat = 'median' } = {}) {
  if (values.length < 6) return { first: NaN, last: NaN, grows: false, enough: false, stat };
  const third = Math.floor(values.length / 3);
  const of = stat === 'floor' ? (v) => Math.min(...v) : median;
  const first = of(values.slice(0, third));
  const last = of(values.slice(values.length - third));
  return { first, last, grows: last > first * (1 + ratio) + slack, enough: true, stat };
}

/**
 * Limits per series: memory may breathe by 10 % + one upload's worth, descriptors by a
 * handful. Memory is judged by each third's floor: a login's scrypt hash holds 128 MiB for
 * 0.25 s and lands in a random share of the samples (a one-minute run failed on medians of
 * 184 and 234 MB with an idle end of 113 MB); a leak raises the floor too. The slack is
 * what one 50 MB upload leaves for V8 to collect late (a run's floors went 37 → 61 MB anon,
 * idle end 34 MB): a leak past it in a long run still fails.
 */
const UPLOAD_GARBAGE_KB = 64 * 1024;
export const TOLERANCE = {
  rssKb: { ratio: 0.1, slack: UPLOAD_GARBAGE_KB, stat: 'floor' },
  anonKb: { ratio: 0.1, slack: UPLOAD_GARBAGE_KB, stat: 'floor' },
  fds: { ratio: 0, slack: 6 },
  children: { ratio: 0, slack: 1 },
};
