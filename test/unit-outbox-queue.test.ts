// The outbox's pending files (src/outbox/queue.ts): the next file taken is the oldest not
// under way (modification time, then the order queued, as docs/outbox.md says), counts and
// bytes follow every change, and a file under way waits again only once given back.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PendingQueue } from '../src/outbox/queue.ts';

const test = suite('outbox pending queue');
const stamp = (mtimeMs: number, size = 1, ino = 1) => ({ size, mtimeMs, ino });
const drain = (q: PendingQueue) => {
  const out: string[] = [];
  for (let next = q.take(); next; next = q.take()) out.push(next[0]);
  return out;
};

test('oldest first; equal times in the order queued; a re-queued file keeps its place', () => {
  const q = new PendingQueue();
  q.set('c', stamp(30), false);
  q.set('a', stamp(10), false);
  q.set('b2', stamp(20), false);
  q.set('b1', stamp(20), false);
  q.set('b2', stamp(20, 5), false); // changed size, same time: still before b1
  assert.is(q.size, 4);
  assert.is(q.waiting, 4);
  assert.is(q.bytes, 1 + 1 + 5 + 1);
  assert.equal(drain(q), ['a', 'b2', 'b1', 'c']);
  assert.is(q.size, 4, 'taken files stay pending');
  assert.is(q.waiting, 0);
});

test('a newer time moves a waiting file back; delete takes it out everywhere', () => {
  const q = new PendingQueue();
  for (let i = 0; i < 100; i++) q.set(`f${i}`, stamp(i, 10), false);
  q.set('f0', stamp(1000, 10), false);
  q.delete('f1');
  q.delete('f50');
  assert.is(q.size, 98);
  assert.is(q.bytes, 980);
  assert.is(q.oldestWaiting(), 2);
  const order = drain(q);
  assert.is(order.length, 98);
  assert.equal(order.slice(0, 2), ['f2', 'f3']);
  assert.is(order.at(-1), 'f0');
  assert.not.ok(order.includes('f50'));
});

test('a file under way waits again once given back, if still pending', () => {
  const q = new PendingQueue();
  q.set('a', stamp(1), false);
  q.set('b', stamp(2), false);
  const [rel, st] = q.take()!;
  assert.is(rel, 'a');
  assert.equal(st, stamp(1));
  q.set('a', stamp(3), true); // queued again while under way: not taken twice at once
  assert.is(q.waiting, 1);
  q.giveBack('a');
  assert.equal(drain(q), ['b', 'a']);
  q.giveBack('a'); // taken again by drain: waits again
  q.delete('a');
  q.giveBack('a'); // gone: nothing waits
  assert.is(q.waiting, 0);
  assert.is(q.size, 1);
  assert.is(q.get('b')!.mtimeMs, 2);
});

test('slots are reused after deletes; stamps read back whole', () => {
  const q = new PendingQueue();
  for (let i = 0; i < 200; i++) q.set(`x${i}`, stamp(i, i, 2 ** 40 + i), false);
  for (let i = 0; i < 200; i += 2) q.delete(`x${i}`);
  for (let i = 0; i < 100; i++) q.set(`y${i}`, stamp(500 + i), false);
  assert.is(q.size, 200);
  assert.equal(q.get('x7'), stamp(7, 7, 2 ** 40 + 7));
  const order = drain(q);
  assert.is(order[0], 'x1');
  assert.is(order.at(-1), 'y99');
});

test.run();
