// The soak's verdict: a climbing series fails, a breathing one passes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOLERANCE, trend } from '../soak/trend.mjs';

const t = suite('soak trend');
const MB = 1024;

t('memory: transient 128 MiB spikes in random samples do not count, a rising floor does', () => {
  const base = 70 * MB;
  const spiky = [0, 1, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1].map((s, i) => base + (i % 3) * MB + s * 128 * MB);
  assert.not.ok(trend(spiky, TOLERANCE.rssKb).grows);
  const leak = spiky.map((v, i) => v + i * 12 * MB);
  assert.ok(trend(leak, TOLERANCE.rssKb).grows);
});

t('descriptors: the median may not rise by more than a handful', () => {
  assert.not.ok(trend([24, 26, 25, 26, 24, 27, 26, 25, 26], TOLERANCE.fds).grows);
  assert.ok(trend([24, 25, 24, 30, 31, 32, 36, 37, 38], TOLERANCE.fds).grows);
  assert.not.ok(trend([1, 2, 3], TOLERANCE.fds).enough);
});

t.run();
