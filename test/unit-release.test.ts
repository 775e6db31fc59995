// Freeing a request-body chunk at once (src/native/memory.ts release): only a buffer that
// alone owns its memory is freed; a slice of Node's shared pool or of a larger buffer is
// left whole, and so are the bytes around it. Detaching needs ArrayBuffer.prototype.transfer
// (Node 21 on; the executable embeds Node 24): on an older Node, release says no and the
// chunk stays whole for the collector.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { release } from '../src/native/memory.ts';

const test = suite('release');

const canDetach = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === 'function';

test(`a chunk that owns its ArrayBuffer is ${canDetach ? 'freed: its view is empty after' : 'left whole (no transfer on this Node)'}`, () => {
  const chunk = Buffer.allocUnsafeSlow(64 * 1024).fill(7);
  assert.is(release(chunk), canDetach);
  assert.is(chunk.length, canDetach ? 0 : 64 * 1024);
  assert.is(chunk.buffer.byteLength, canDetach ? 0 : 64 * 1024);
});

test("a small buffer from Node's shared pool is left alone, and so are its neighbours", () => {
  const a = Buffer.from('first small buffer');
  const b = Buffer.from('second small buffer');
  assert.is(release(a), false);
  assert.is(a.toString(), 'first small buffer');
  assert.is(b.toString(), 'second small buffer');
});

test('a part of a larger buffer is left alone, and the rest of it too', () => {
  const whole = Buffer.allocUnsafeSlow(64 * 1024).fill(1);
  const part = whole.subarray(0, 32 * 1024);
  assert.is(release(part), false);
  assert.is(whole.length, 64 * 1024);
  assert.is(part.length, 32 * 1024);
  assert.is(whole[64 * 1024 - 1], 1);
});

test('a small buffer that owns its memory is left to the collector', () => {
  const small = Buffer.allocUnsafeSlow(1024).fill(3);
  assert.is(release(small), false);
  assert.is(small.length, 1024);
});

test.run();
