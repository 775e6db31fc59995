// The soak's verdict, pure: does a sampled series trend upward once warmed up?
// Robust to noise: the median of the last third against the median of the first third.

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
export function trend(values, { ratio = 0.1, slack = 0 } = {}) {
  if (values.length < 6) return { first: NaN, last: NaN, grows: false, enough: false };
  const third = Math.floor(values.length / 3);
  const first = median(values.slice(0, third));
  const last = median(values.slice(values.length - third));
  return { first, last, grows: last > first * (1 + ratio) + slack, enough: true };
}

/** Limits per series: memory may breathe by 10 % + a few MB, descriptors by a handful. */
export const TOLERANCE = {
  rssKb: { ratio: 0.1, slack: 8 * 1024 },
  anonKb: { ratio: 0.1, slack: 8 * 1024 },
  fds: { ratio: 0, slack: 6 },
  children: { ratio: 0, slack: 1 },
};
