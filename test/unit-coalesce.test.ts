// The coalescer behind the audit trail's and the access log's flood rule (docs/behaviour.md,
// "Refusals in a flood"), in-process: the first of a key in full, the rest counted, one
// summary per key; beyond the key limit every new key counts in one overflow summary.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { coalescer } from '../src/util/coalesce.ts';

const unit = suite('coalescer');

unit('the first of each key is written, the next ones counted; flush says how many more, once per key', () => {
  const said: Array<[string, number, boolean]> = [];
  const c = coalescer<string>((first, more, overflow) => said.push([first, more, overflow]), { windowMs: 60_000, maxKeys: 10 });
  assert.equal(
    ['a', 'a', 'b', 'a', 'c', 'b'].map((k) => c.admit(k, k)),
    [true, false, true, false, true, false],
  );
  c.flush();
  assert.equal(said, [
    ['a', 2, false],
    ['b', 1, false],
  ]);
  // Flushed: the window starts again.
  assert.is(c.admit('a', 'a'), true);
  c.flush();
});

unit('beyond the key limit, new keys are not written but counted in one overflow line', () => {
  const said: Array<[string, number, boolean]> = [];
  const c = coalescer<string>((first, more, overflow) => said.push([first, more, overflow]), { windowMs: 60_000, maxKeys: 3 });
  const keys = Array.from({ length: 1000 }, (_, i) => `client ${i}`);
  const written = keys.filter((k) => c.admit(k, k));
  assert.equal(written, ['client 0', 'client 1', 'client 2']);
  c.flush();
  assert.equal(said, [['client 3', 997, true]]);
});

unit('with a burst, the first few of a key are written, then the rest counted', () => {
  const said: Array<[string, number, boolean]> = [];
  const c = coalescer<string>((first, more, overflow) => said.push([first, more, overflow]), { windowMs: 60_000, burst: 3 });
  assert.equal(
    Array.from({ length: 10 }, () => c.admit('a', 'a')),
    [true, true, true, false, false, false, false, false, false, false],
  );
  c.flush();
  assert.equal(said, [['a', 7, false]]);
  // Three or fewer: no summary at all.
  said.length = 0;
  for (let i = 0; i < 3; i++) c.admit('b', 'b');
  c.flush();
  assert.equal(said, []);
});

unit.run();
