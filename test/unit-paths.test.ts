// resolveFrom() and joinName() give exactly what path.resolve() and path.join() give.
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { joinName, resolveFrom } from '../src/util/paths.ts';
import { runs, SEED } from './helpers/planted.ts';

const t = suite('paths');

// Segments that exercise every rule: '.', '..', empty (double slashes), dots inside names.
const segment = fc.constantFrom('', '.', '..', '...', 'a', '.a', 'a.', 'b..c', 'files', 'x y', 'é');
const path = fc
  .tuple(fc.boolean(), fc.array(segment, { maxLength: 6 }), fc.boolean())
  .map(([abs, segs, slash]) => (abs ? '/' : '') + segs.join('/') + (slash ? '/' : ''));

t('resolveFrom(base, p) equals path.resolve(base, p) for any absolute base and any p', () => {
  for (const [base, p] of [
    ['/', ''],
    ['/', 'a'],
    ['/', '/'],
    ['/srv/agent', 'files'],
    ['/srv/agent/', 'files'],
    ['/srv/agent', '/etc/x.json'],
    ['/srv/agent', './files'],
    ['/srv/agent', 'a/../b'],
    ['/srv//agent', 'a'],
    ['/srv/agent', 'a/'],
  ]) {
    assert.is(resolveFrom(base!, p!), resolve(base!, p!), `${base} + ${p}`);
  }
  fc.assert(
    fc.property(
      path.map((p) => '/' + p),
      path,
      (base, p) => resolveFrom(base, p) === resolve(base, p),
    ),
    { seed: SEED, numRuns: runs(2000) },
  );
});

t('joinName(dir, name) equals path.join(dir, name) for a normal directory and a plain name', () => {
  for (const [dir, name] of [
    ['/', 'a'],
    ['/srv', 'a'],
    ['/srv/files', '.device-agent-upload-0.tmp'],
    ['/srv/', 'b'],
  ]) {
    assert.is(joinName(dir!, name!), join(dir!, name!));
  }
  const normalDir = fc.array(fc.constantFrom('a', 'files', '.hidden', 'x y'), { maxLength: 5 }).map((s) => '/' + s.join('/'));
  const name = fc.constantFrom('a', 'b.txt', '.a', '...', 'x y', 'é');
  fc.assert(
    fc.property(normalDir, name, (dir, n) => joinName(dir, n) === join(dir, n)),
    { seed: SEED, numRuns: runs(1000) },
  );
});

t.run();
