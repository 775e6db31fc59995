// Which recordings retention deletes (src/audio/retention.ts), on real files in a temp
// directory, and how the config reads audio.retention and audio.minFreeBytes.
import { mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyRetention, startedAt, toDelete, type Recording } from '../src/audio/retention.ts';
import { ConfigError, parseConfig } from '../src/config/config.ts';
import { makeDir } from './helpers/agent.ts';

const NONE = { maxCount: null, maxBytes: null, maxAgeDays: null };
const DAY = 86_400_000;
const NOW = Date.parse('2026-11-26T12:00:00.000Z');
const rec = (daysAgo: number, bytes = 100): Recording => {
  const t = new Date(NOW - daysAgo * DAY).toISOString();
  return { name: `recording-${t.replace(/:/g, '-')}.flac`, startedMs: NOW - daysAgo * DAY, bytes };
};
const names = (list: Recording[]) => list.map((r) => r.name);

const pick = suite('retention: which recordings go');

pick("reads the start time from the recorder's names only", () => {
  assert.is(startedAt('recording-2026-11-26T07-48-03.123Z.flac'), Date.parse('2026-11-26T07:48:03.123Z'));
  assert.is(startedAt('recording-2026-11-26T07-48-03Z.wav'), Date.parse('2026-11-26T07:48:03Z'));
  for (const n of [
    'recording-2026-11-26T07-48-03.123Z.ogg',
    '.recording-2026-11-26T07-48-03.123Z.flac.part',
    'notes.txt',
    'recording-2026-13-45T99-99-99Z.mp3',
    'my-recording-2026-11-26T07-48-03Z.mp3',
  ])
    assert.is(startedAt(n), undefined, n);
});

pick('no limit deletes nothing', () => {
  assert.equal(toDelete([rec(1), rec(400)], NONE, NOW), []);
});

pick('maxCount keeps the newest N', () => {
  const all = [rec(3), rec(1), rec(5), rec(2), rec(4)];
  assert.equal(names(toDelete(all, { ...NONE, maxCount: 2 }, NOW)), names([rec(5), rec(4), rec(3)]));
});

pick('maxBytes keeps the newest that fit together; an older small one does not stay behind one that did not fit', () => {
  const all = [rec(1, 400), rec(2, 400), rec(3, 50), rec(4, 10)];
  assert.equal(toDelete(all, { ...NONE, maxBytes: 900 }, NOW), []);
  assert.equal(names(toDelete(all, { ...NONE, maxBytes: 800 }, NOW)), names([rec(4), rec(3)]));
  assert.equal(names(toDelete(all, { ...NONE, maxBytes: 399 }, NOW)), names([rec(4), rec(3), rec(2), rec(1)]));
});

pick('maxAgeDays deletes what is older; every limit must hold at once', () => {
  const all = [rec(0.5), rec(1.5), rec(2.5), rec(10)];
  assert.equal(names(toDelete(all, { ...NONE, maxAgeDays: 2 }, NOW)), names([rec(10), rec(2.5)]));
  assert.equal(names(toDelete(all, { maxCount: 3, maxBytes: 150, maxAgeDays: 7 }, NOW)), names([rec(10), rec(2.5), rec(1.5)]));
});

const disk = suite<{ dir: string }>('retention: a real directory');
disk.before.each((ctx) => {
  ctx.dir = makeDir('da-retention-');
});
disk.after.each((ctx) => {
  rmSync(ctx.dir, { recursive: true, force: true });
});

disk("deletes only the agent's oldest recordings; other files, links and directories stay", async ({ dir }) => {
  const made = [5, 4, 3, 2, 1].map((d) => rec(d));
  for (const r of made) writeFileSync(join(dir, r.name), 'x'.repeat(r.bytes));
  writeFileSync(join(dir, 'notes.txt'), 'mine');
  writeFileSync(join(dir, '.recording-2020-01-01T00-00-00Z.flac.part'), 'running');
  mkdirSync(join(dir, 'recording-2019-01-01T00-00-00Z.wav'));
  mkdirSync(join(dir, 'outside'));
  writeFileSync(join(dir, 'outside/target.flac'), 'target');
  symlinkSync('outside/target.flac', join(dir, 'recording-2018-01-01T00-00-00Z.flac'));
  const deleted = await applyRetention(dir, { ...NONE, maxCount: 2 }, NOW);
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
  assert.equal(await applyRetention(dir, { ...NONE, maxCount: 2 }, NOW), [], 'a second pass finds nothing more');
  assert.equal(await applyRetention(dir, NONE, NOW), []);
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
