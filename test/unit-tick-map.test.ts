// The map of Node's tick objects outlives a collection that reduces memory once the agent
// holds one of them (holdTickMap, src/native/memory.ts; docs/performance.md, "Tick objects
// and collections that reduce memory"). Without it every process.nextTick after such a
// collection built its object in V8's runtime. Checked with V8's own %HaveSameMap, in a
// child with natives syntax, on the tests' Node and on the Node the agent embeds.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from './helpers/agent.ts';
import { runtimes } from './helpers/dagent.ts';

const unit = suite('the tick objects map kept');

const script = `
  import { executionAsyncResource } from 'node:async_hooks';
  import { setFlagsFromString } from 'node:v8';
  import { runInNewContext } from 'node:vm';
  import { holdTickMap, tickObjectHeld } from ${JSON.stringify(join(ROOT, 'src/native/memory.ts'))};
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)');
  const noop = () => {};
  const macrotask = () => new Promise((r) => setImmediate(r));
  holdTickMap();
  await macrotask();
  const held = tickObjectHeld();
  const out = { held: typeof held, callback: typeof held?.callback };
  // Ticks as a running agent makes them, then two collections that reduce memory with no tick pending.
  for (let round = 0; round < 50; round++) {
    for (let i = 0; i < 200; i++) process.nextTick(noop);
    await macrotask();
  }
  gc({ type: 'major', flavor: 'last-resort' });
  await macrotask();
  gc({ type: 'major', flavor: 'last-resort' });
  await macrotask();
  out.sameMap = await new Promise((r) => process.nextTick(() => r(sameMap(held, executionAsyncResource()))));
  console.log(JSON.stringify(out));`;

for (const node of runtimes()) {
  unit(`${node === process.execPath ? 'the tests' : 'the embedded'} Node: a tick after the collections has the held tick's map`, () => {
    const run = spawnSync(node, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.is(run.status, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout), { held: 'object', callback: 'function', sameMap: true });
  });
}

unit.run();
