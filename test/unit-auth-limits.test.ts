// The failed-login window (docs/api.md#logging-in) and the scrypt gate (docs/behaviour.md: one hash at a time,
// 64 waiting, then 503), with the clock and the tasks in the test's hands.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LoginLimiter } from '../src/auth/limiter.ts';
import { Gate } from '../src/auth/passwords.ts';

const limiter = suite('failed-login window');
const WINDOW = 15 * 60_000;

limiter('blocks the 11th try within 15 minutes and lets it through once the window passed', async () => {
  const l = new LoginLimiter();
  const t0 = 1_000_000;
  for (let i = 0; i < 10; i++) {
    assert.is(await l.retryAfter('10.0.0.1', 'admin', t0 + i), 0, `try ${i + 1}`);
    await l.fail('10.0.0.1', 'admin', t0 + i);
  }
  assert.is(await l.retryAfter('10.0.0.1', 'admin', t0 + 10), 900);
  assert.is(await l.retryAfter('10.0.0.1', 'admin', t0 + WINDOW - 1000), 1);
  assert.is(await l.retryAfter('10.0.0.1', 'admin', t0 + WINDOW), 0);
  await l.fail('10.0.0.1', 'admin', t0 + WINDOW); // a new window starts with one failure
  assert.is(await l.retryAfter('10.0.0.1', 'admin', t0 + WINDOW + 1), 0);
});

limiter('keeps pairs apart and forgets a pair after a success', async () => {
  const l = new LoginLimiter();
  for (let i = 0; i < 10; i++) await l.fail('10.0.0.1', 'admin', 5);
  assert.ok((await l.retryAfter('10.0.0.1', 'admin', 6)) > 0);
  assert.is(await l.retryAfter('10.0.0.1', 'bob', 6), 0);
  assert.is(await l.retryAfter('10.0.0.2', 'admin', 6), 0);
  for (let i = 0; i < 9; i++) await l.fail('10.0.0.3', 'admin', 5);
  await l.succeed('10.0.0.3', 'admin');
  await l.fail('10.0.0.3', 'admin', 7);
  assert.is(await l.retryAfter('10.0.0.3', 'admin', 8), 0);
});

const gate = suite('hash gate');

gate('runs one task at a time, in order, and refuses past the waiting limit', async () => {
  const g = new Gate(1, 2);
  let running = 0;
  let peak = 0;
  const order: number[] = [];
  const releases: Array<() => void> = [];
  const task = (n: number) => () =>
    new Promise<number>((resolve) => {
      running++;
      peak = Math.max(peak, running);
      order.push(n);
      releases.push(() => {
        running--;
        resolve(n);
      });
    });
  const a = g.run(task(1));
  const b = g.run(task(2));
  const c = g.run(task(3));
  assert.is(await g.run(task(4)), undefined, 'a fourth caller is refused: 1 running, 2 waiting');
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setImmediate(r));
    releases.shift()!();
  }
  assert.equal(await Promise.all([a, b, c]), [{ value: 1 }, { value: 2 }, { value: 3 }]);
  assert.equal(order, [1, 2, 3]);
  assert.is(peak, 1);
  assert.equal(await g.run(async () => 5), { value: 5 }, 'free again afterwards');
});

limiter.run();
gate.run();
