// Which recordings retention deletes (src/audio/retention.ts), on real files in a temp
// directory with the order record (src/audio/recording-order.ts), and how the config reads
// audio.retention and audio.minFreeBytes.
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RecordingOrder } from '../src/audio/recording-order.ts';
import { applyRetention, isRecordingName, toDelete, type Recording } from '../src/audio/retention.ts';
import { ConfigError, parseConfig } from '../src/config/config.ts';
import { createLogger } from '../src/util/logger.ts';
import { makeDir } from './helpers/agent.ts';

const NONE = { maxCount: null, maxBytes: null, maxAgeDays: null };
const DAY = 86_400_000;
const NOW = Date.parse('2026-11-29T12:00:00.000Z');
const PASS = { now: NOW, plausible: true };
const rec = (daysAgo: number, bytes = 100): Recording => {
  const t = new Date(NOW - daysAgo * DAY).toISOString();
  return { name: `recording-${t.replace(/:/g, '-')}.flac`, seq: Math.round(-daysAgo * 1000), madeAt: NOW - daysAgo * DAY, bytes };
};
const names = (list: Recording[]) => list.map((r) => r.name);
const log = createLogger(() => {});

const pick = suite('retention: which recordings go');

pick("knows the recorder's and the schedule's names only", () => {
  assert.ok(isRecordingName('recording-2026-11-26T07-48-03.123Z.flac'));
  assert.ok(isRecordingName('recording-1970-01-01T00-00-03Z.wav'));
  // A schedule's segment (docs/schedule.md): retention counts them like any recording.
  assert.ok(isRecordingName('20261126_074803.flac'));
  // One whose name was taken (the clock went back): a suffix before the extension.
  assert.ok(isRecordingName('20261126_074803_1.wav'));
  assert.ok(isRecordingName('20261126_074803_12.mp3'));
  for (const n of [
    'recording-2026-11-26T07-48-03.123Z.ogg',
    '.recording-2026-11-26T07-48-03.123Z.flac.part',
    'notes.txt',
    'my-recording-2026-11-26T07-48-03Z.mp3',
    '20261126_074803.flac.part',
    '.20261126_074803.flac',
    '2026112_074803.flac',
    '20261126_074803_.flac',
    '20261126_074803_x.flac',
    '.20261126_074803_1.flac.part',
  ])
    assert.not.ok(isRecordingName(n), n);
});

pick('no limit deletes nothing', () => {
  assert.equal(toDelete([rec(1), rec(400)], NONE, PASS), []);
});

pick('maxCount keeps the newest N', () => {
  const all = [rec(3), rec(1), rec(5), rec(2), rec(4)];
  assert.equal(names(toDelete(all, { ...NONE, maxCount: 2 }, PASS)), names([rec(5), rec(4), rec(3)]));
});

pick('maxBytes keeps the newest that fit together; an older small one does not stay behind one that did not fit', () => {
  const all = [rec(1, 400), rec(2, 400), rec(3, 50), rec(4, 10)];
  assert.equal(toDelete(all, { ...NONE, maxBytes: 900 }, PASS), []);
  assert.equal(names(toDelete(all, { ...NONE, maxBytes: 800 }, PASS)), names([rec(4), rec(3)]));
  assert.equal(names(toDelete(all, { ...NONE, maxBytes: 399 }, PASS)), names([rec(4), rec(3), rec(2), rec(1)]));
});

pick('maxAgeDays deletes what is older; every limit must hold at once', () => {
  const all = [rec(0.5), rec(1.5), rec(2.5), rec(10)];
  assert.equal(names(toDelete(all, { ...NONE, maxAgeDays: 2 }, PASS)), names([rec(10), rec(2.5)]));
  assert.equal(names(toDelete(all, { maxCount: 3, maxBytes: 150, maxAgeDays: 7 }, PASS)), names([rec(10), rec(2.5), rec(1.5)]));
});

pick('while the clock is implausible only maxBytes applies', () => {
  const all = [rec(1, 400), rec(2, 400), rec(300, 400)];
  const implausible = { now: 0, plausible: false };
  assert.equal(toDelete(all, { maxCount: 1, maxBytes: null, maxAgeDays: 1 }, implausible), []);
  assert.equal(names(toDelete(all, { maxCount: 1, maxBytes: 800, maxAgeDays: 1 }, implausible)), names([rec(300)]));
});

pick('never deletes the recording whose end started the pass, even the oldest', () => {
  const all = [rec(1), rec(2), rec(3)];
  const keep = rec(3).name;
  assert.equal(names(toDelete(all, { ...NONE, maxCount: 1 }, { ...PASS, keep })), names([rec(2)]));
  assert.equal(names(toDelete(all, { ...NONE, maxBytes: 50 }, { ...PASS, keep })), names([rec(2), rec(1)]));
});

pick('orders by the order made, not the name; a recording not aged yet is not deleted by age', () => {
  const from1970 = { name: 'recording-1970-01-01T00-05-00Z.flac', seq: 10, madeAt: null, bytes: 100 };
  const all = [rec(1), rec(2), from1970];
  assert.equal(names(toDelete(all, { ...NONE, maxCount: 2 }, PASS)), names([rec(2)]));
  assert.equal(names(toDelete(all, { ...NONE, maxAgeDays: 0.5 }, PASS)), names([rec(2), rec(1)]));
});

const disk = suite<{ dir: string; state: string }>('retention: a real directory');
disk.before.each((ctx) => {
  ctx.dir = makeDir('da-retention-');
  ctx.state = makeDir('da-retention-state-');
});
disk.after.each((ctx) => {
  rmSync(ctx.dir, { recursive: true, force: true });
  rmSync(ctx.state, { recursive: true, force: true });
});

/** Writes a recording whose file time is `ms`. */
const put = (dir: string, name: string, ms: number, bytes = 100) => {
  writeFileSync(join(dir, name), 'x'.repeat(bytes));
  utimesSync(join(dir, name), new Date(ms), new Date(ms));
};

disk("deletes only the agent's oldest recordings; other files, links and directories stay", async ({ dir, state }) => {
  const order = new RecordingOrder(join(state, 'order.json'), log);
  const made = [5, 4, 3, 2, 1].map((d) => rec(d));
  for (const [i, r] of made.entries()) put(dir, r.name, NOW - (5 - i) * DAY);
  writeFileSync(join(dir, 'notes.txt'), 'mine');
  writeFileSync(join(dir, '.recording-2020-01-01T00-00-00Z.flac.part'), 'running');
  mkdirSync(join(dir, 'recording-2019-01-01T00-00-00Z.wav'));
  mkdirSync(join(dir, 'outside'));
  writeFileSync(join(dir, 'outside/target.flac'), 'target');
  symlinkSync('outside/target.flac', join(dir, 'recording-2018-01-01T00-00-00Z.flac'));
  const deleted = await applyRetention(dir, { ...NONE, maxCount: 2 }, order, { now: NOW });
  assert.equal(names(deleted), names(made.slice(0, 3)));
  assert.equal(
    readdirSync(dir).sort(),
    [
      '.recording-2020-01-01T00-00-00Z.flac.part',
      'notes.txt',
      'outside',
      'recording-2018-01-01T00-00-00Z.flac',
      'recording-2019-01-01T00-00-00Z.wav',
      made[3]!.name,
      made[4]!.name,
    ].sort(),
  );
  assert.equal(await applyRetention(dir, { ...NONE, maxCount: 2 }, order, { now: NOW }), [], 'a second pass finds nothing more');
  assert.equal(await applyRetention(dir, NONE, order, { now: NOW }), []);
});

/** A recording's entry in the order record: [path, order, madeAt]. */
const entry = (file: string, name: string) => (JSON.parse(readFileSync(file, 'utf8')).recordings as unknown[][]).find((e) => e[0] === name);

disk('the order survives a restart: a recording named 1970, made last, is the newest', async ({ dir, state }) => {
  const file = join(state, 'order.json');
  put(dir, 'recording-2026-11-28T10-00-00Z.flac', NOW - DAY);
  put(dir, 'recording-2026-11-28T11-00-00Z.flac', NOW - DAY);
  // Their ends enter the record even without limits (written on the thread pool; a clean stop flushes it).
  const first = new RecordingOrder(file, log);
  await applyRetention(dir, NONE, first, { now: NOW, keep: 'recording-2026-11-28T11-00-00Z.flac' });
  await first.flush();
  assert.is(JSON.parse(readFileSync(file, 'utf8')).recordings.length, 2);
  // Made under a clock at 1970 (its file time too), after the two above.
  put(dir, 'recording-1970-01-01T00-05-00Z.flac', 300_000);
  const early = new RecordingOrder(file, log);
  assert.equal(
    await applyRetention(dir, { maxCount: 1, maxBytes: null, maxAgeDays: 1 }, early, { now: 400_000 }),
    [],
    'nothing by count or age while implausible',
  );
  await early.flush();
  assert.equal(entry(file, 'recording-1970-01-01T00-05-00Z.flac'), ['recording-1970-01-01T00-05-00Z.flac', 2, null]);
  // Restart with the clock set: it is the newest, and ages from now.
  const later = new RecordingOrder(file, log);
  const deleted = await applyRetention(dir, { maxCount: 2, maxBytes: null, maxAgeDays: 1 }, later, { now: NOW });
  assert.equal(names(deleted), ['recording-2026-11-28T10-00-00Z.flac']);
  await later.flush();
  assert.equal(entry(file, 'recording-1970-01-01T00-05-00Z.flac'), ['recording-1970-01-01T00-05-00Z.flac', 2, NOW]);
  assert.equal(readdirSync(dir).sort(), ['recording-1970-01-01T00-05-00Z.flac', 'recording-2026-11-28T11-00-00Z.flac']);
});

disk('the record is written at most once a minute, off the event loop; flush() writes what waits', async ({ dir, state }) => {
  const file = join(state, 'order.json');
  const order = new RecordingOrder(file, log);
  put(dir, 'recording-2026-11-28T10-00-00Z.flac', NOW - DAY);
  await applyRetention(dir, NONE, order, { now: NOW, keep: 'recording-2026-11-28T10-00-00Z.flac' });
  await order.flush();
  assert.is(JSON.parse(readFileSync(file, 'utf8')).recordings.length, 1);
  // Three more recordings' passes within the minute: the file is not rewritten for them.
  for (const h of [11, 12, 13]) {
    put(dir, `recording-2026-11-28T${h}-00-00Z.flac`, NOW - DAY);
    await applyRetention(dir, NONE, order, { now: NOW, keep: `recording-2026-11-28T${h}-00-00Z.flac` });
  }
  await new Promise((r) => setTimeout(r, 200));
  assert.is(JSON.parse(readFileSync(file, 'utf8')).recordings.length, 1, 'not rewritten within the minute');
  // A clean stop writes them, once.
  await order.flush();
  assert.is(JSON.parse(readFileSync(file, 'utf8')).recordings.length, 4);
  assert.equal(readdirSync(state), ['order.json'], 'no temp file left');
  // Lost before the write (a power cut): the next pass places the files the record does not name by their times.
  put(dir, 'recording-2026-11-28T14-00-00Z.flac', NOW - DAY + 1000);
  const again = new RecordingOrder(file, log);
  await applyRetention(dir, NONE, again, { now: NOW, keep: 'recording-2026-11-28T14-00-00Z.flac' });
  await again.flush();
  assert.equal(entry(file, 'recording-2026-11-28T14-00-00Z.flac')?.[1], 4);
});

disk('recordings in subdirectories count, in one order with the rest; links to directories are not followed', async ({ dir, state }) => {
  const order = new RecordingOrder(join(state, 'order.json'), log);
  mkdirSync(join(dir, 'schedule/night'), { recursive: true });
  put(dir, 'recording-2026-11-20T00-00-00Z.flac', NOW - 3 * DAY);
  put(join(dir, 'schedule/night'), 'recording-2026-11-21T00-00-00Z.flac', NOW - 2 * DAY);
  put(dir, 'recording-2026-11-22T00-00-00Z.flac', NOW - DAY);
  mkdirSync(join(dir, '../elsewhere'), { recursive: true });
  put(join(dir, '../elsewhere'), 'recording-2000-01-01T00-00-00Z.flac', NOW - 9 * DAY);
  symlinkSync('../elsewhere', join(dir, 'linked'));
  const deleted = await applyRetention(dir, { ...NONE, maxCount: 1 }, order, { now: NOW });
  assert.equal(names(deleted), ['recording-2026-11-20T00-00-00Z.flac', 'schedule/night/recording-2026-11-21T00-00-00Z.flac']);
  assert.equal(readdirSync(join(dir, '../elsewhere')), ['recording-2000-01-01T00-00-00Z.flac']);
  rmSync(join(dir, '../elsewhere'), { recursive: true });
});

const config = suite('retention: config');
const parse = (audio: unknown) => parseConfig({ audio }, '/etc/device-agent');

config('defaults: no limits, 100 MiB free', () => {
  assert.equal(parse({}).audio.retention, NONE);
  assert.is(parse({}).audio.minFreeBytes, 104857600);
  assert.equal(parse({ retention: null }).audio.retention, NONE);
  assert.equal(parse({ retention: { maxCount: 5, maxAgeDays: 0.5 }, minFreeBytes: 0 }).audio, {
    ...parse({}).audio,
    retention: { maxCount: 5, maxBytes: null, maxAgeDays: 0.5 },
    minFreeBytes: 0,
  });
});

config('bad values name their key', () => {
  const bad: Array<[unknown, string]> = [
    [{ retention: 5 }, 'audio.retention: must be an object'],
    [{ retention: { maxCount: 0 } }, 'audio.retention.maxCount: must be between 1 and 1000000, got 0'],
    [{ retention: { maxCount: 1.5 } }, 'audio.retention.maxCount: must be an integer'],
    [{ retention: { maxBytes: '1G' } }, 'audio.retention.maxBytes: must be an integer'],
    [{ retention: { maxAgeDays: -1 } }, 'audio.retention.maxAgeDays: must be a number above 0 and at most 36500, or null'],
    [{ retention: { maxFiles: 1 } }, 'audio.retention.maxFiles: unknown key'],
    [{ minFreeBytes: -1 }, `audio.minFreeBytes: must be between 0 and ${Number.MAX_SAFE_INTEGER}, got -1`],
  ];
  for (const [audio, message] of bad)
    assert.throws(
      () => parse(audio),
      (e: Error) => e instanceof ConfigError && e.message === message,
      message,
    );
});

pick.run();
disk.run();
config.run();
