// One atomic-replace helper (src/util/atomic.ts) for the users file, the secret and the
// recording record: whole files only, never through a planted link, nothing left behind.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replaceFile, replaceStateFileAsync } from '../src/util/atomic.ts';
import { saveRecord, type RecordingRecord } from '../src/audio/record.ts';

const test = suite<{ dir: string }>('atomic replace');
test.before.each((ctx) => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'atomic-'));
});
test.after.each((ctx) => {
  rmSync(ctx.dir, { recursive: true, force: true });
});

test('replaces the content and sets the mode whatever the umask; no temp file stays', ({ dir }) => {
  const file = join(dir, 'f.json');
  writeFileSync(file, 'old');
  const umask = process.umask(0o077);
  try {
    replaceFile(file, 'new', { mode: 0o644 });
  } finally {
    process.umask(umask);
  }
  assert.is(readFileSync(file, 'utf8'), 'new');
  assert.is(statSync(file).mode & 0o777, 0o644);
  assert.equal(readdirSync(dir), ['f.json']);
});

test('on the thread pool: a state file keeps its mode, a new one is 0600; a failed rename leaves no temp file', async ({ dir }) => {
  const file = join(dir, 'order.json');
  await replaceStateFileAsync(file, 'first');
  assert.is(readFileSync(file, 'utf8'), 'first');
  assert.is(statSync(file).mode & 0o777, 0o600);
  chmodSync(file, 0o640);
  await replaceStateFileAsync(file, 'second');
  assert.is(readFileSync(file, 'utf8'), 'second');
  assert.is(statSync(file).mode & 0o777, 0o640);
  assert.equal(readdirSync(dir), ['order.json']);
  const target = join(dir, 'taken');
  mkdirSync(target);
  writeFileSync(join(target, 'x'), '');
  let failed = false;
  await replaceStateFileAsync(target, 'third').catch(() => {
    failed = true;
  });
  assert.ok(failed, 'a directory is not replaced');
  assert.equal(readdirSync(dir).sort(), ['order.json', 'taken']);
});

test('create: refuses an existing target with EEXIST and leaves it as it was', ({ dir }) => {
  const file = join(dir, 'secret');
  writeFileSync(file, 'kept');
  assert.throws(
    () => replaceFile(file, 'other', { mode: 0o600, create: true }),
    (e: NodeJS.ErrnoException) => e.code === 'EEXIST',
  );
  assert.is(readFileSync(file, 'utf8'), 'kept');
  assert.equal(readdirSync(dir), ['secret']);
  replaceFile(join(dir, 'fresh'), 'x', { mode: 0o600, create: true });
  assert.is(statSync(join(dir, 'fresh')).mode & 0o777, 0o600);
});

test('a failed rename (the target is a directory) removes the temp file', ({ dir }) => {
  const target = join(dir, 'd');
  mkdirSync(target);
  assert.throws(() => replaceFile(target, 'x', { mode: 0o644 }));
  assert.equal(readdirSync(dir), ['d']);
});

test('the recording record is not written through a link planted at a temp name', ({ dir }) => {
  // Before: saveRecord wrote `${file}.${pid}.tmp` with flag 'w', following a planted link.
  const file = join(dir, 'last-recording.json');
  const outside = join(dir, 'outside.txt');
  writeFileSync(outside, 'secret');
  symlinkSync(outside, `${file}.${process.pid}.tmp`);
  const record: RecordingRecord = {
    state: 'idle',
    fileExtension: null,
    durationSeconds: null,
    startedAt: null,
    finishedAt: null,
    file: null,
    sizeBytes: null,
    error: null,
    device: null,
    sampleRate: null,
    channels: null,
    peakDbfs: null,
    stoppedBy: null,
  };
  saveRecord(file, record);
  assert.is(readFileSync(outside, 'utf8'), 'secret');
  assert.equal(JSON.parse(readFileSync(file, 'utf8')), record);
});

test.run();
