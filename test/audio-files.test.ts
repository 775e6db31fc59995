import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IDLE, loadRecord, saveRecord, type RecordingRecord } from '../src/audio/record.ts';
import { fixWavHeader } from '../src/audio/wav-header.ts';
import { makeDir } from './helpers/agent.ts';
import { collectLog, silentLog } from './helpers/log.ts';

const soxiDuration = (file: string) => Number(execFileSync('soxi', ['-D', file], { encoding: 'utf8' }));

const header = suite<{ dir: string }>('wav header repair');
header.before((ctx) => { ctx.dir = makeDir('da-wav-'); });
header.after((ctx) => { rmSync(ctx.dir, { recursive: true, force: true }); });

header('sets the lengths of a WAV that arecord left claiming its full duration', ({ dir }) => {
  const file = join(dir, 'cut.wav');
  // A real arecord WAV of 5 s, cut to 1 s plus half a frame, as a stop mid-recording leaves it.
  execFileSync('arecord', ['-q', '-D', 'null', '-f', 'S16_LE', '-c', '1', '-r', '48000', '-t', 'wav', '-s', '240000', file]);
  truncateSync(file, 44 + 96000 + 1);
  assert.is(soxiDuration(file), 5);
  assert.is(fixWavHeader(file), 96000);
  assert.is(statSync(file).size, 44 + 96000);
  assert.is(soxiDuration(file), 1);
});

header('leaves a complete WAV as it was', ({ dir }) => {
  const file = join(dir, 'whole.wav');
  execFileSync('arecord', ['-q', '-D', 'null', '-f', 'S16_LE', '-c', '1', '-r', '48000', '-t', 'wav', '-s', '24000', file]);
  const before = readFileSync(file);
  fixWavHeader(file);
  assert.ok(readFileSync(file).equals(before));
});

header('refuses a file that is not a canonical WAV', ({ dir }) => {
  const file = join(dir, 'x.flac');
  execFileSync('sox', ['-q', '-t', 'alsa', 'null', '-t', 'flac', file, 'trim', '0', '0.1']);
  assert.throws(() => fixWavHeader(file), /canonical WAV header/);
});

header.run();

const store = suite<{ dir: string }>('recording record file');
store.before((ctx) => { ctx.dir = makeDir('da-rec-'); mkdirSync(join(ctx.dir, 'x')); });
store.after((ctx) => { rmSync(ctx.dir, { recursive: true, force: true }); });

const finished: RecordingRecord = {
  state: 'finished', fileExtension: 'flac', durationSeconds: 2, startedAt: '2025-01-01T00:00:00.000Z',
  finishedAt: '2025-01-01T00:00:02.100Z', file: 'recordings/a.flac', sizeBytes: 1234, error: null, stoppedBy: 'duration',
};

store('keeps a finished record across a save and a load', ({ dir }) => {
  const file = join(dir, 'last.json');
  saveRecord(file, finished);
  assert.equal(loadRecord(file, silentLog), finished);
});

store('is idle without a file, and idle with a line in the log for a broken one', ({ dir }) => {
  const logs: string[] = [];
  assert.equal(loadRecord(join(dir, 'none.json'), collectLog(logs)), IDLE);
  assert.equal(logs, []);
  writeFileSync(join(dir, 'bad.json'), '{"state": "dancing"}');
  assert.equal(loadRecord(join(dir, 'bad.json'), collectLog(logs)), IDLE);
  assert.equal(logs, [`<4>ignoring recording state ${join(dir, 'bad.json')}: not a status record`]);
});

store('turns a record left "recording" by a killed agent into a failure that says so', ({ dir }) => {
  const file = join(dir, 'killed.json');
  saveRecord(file, { ...finished, state: 'recording', finishedAt: null, file: null, sizeBytes: null });
  const r = loadRecord(file, silentLog);
  assert.is(r.state, 'failed');
  assert.is(r.file, null);
  assert.is(r.error, 'the agent stopped during the recording (killed or powered off); nothing was kept');
});

store.run();
