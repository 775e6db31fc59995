import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IDLE, loadRecord, saveRecord, type RecordingRecord } from '../src/audio/record.ts';
import { makeDir } from './helpers/agent.ts';
import { collectLog, silentLog } from './helpers/log.ts';

const store = suite<{ dir: string }>('recording record file');
store.before((ctx) => {
  ctx.dir = makeDir('da-rec-');
  mkdirSync(join(ctx.dir, 'x'));
});
store.after((ctx) => {
  rmSync(ctx.dir, { recursive: true, force: true });
});

const finished: RecordingRecord = {
  state: 'finished',
  fileExtension: 'flac',
  durationSeconds: 2,
  startedAt: '2025-01-01T00:00:00.000Z',
  finishedAt: '2025-01-01T00:00:02.100Z',
  file: 'recordings/a.flac',
  sizeBytes: 1234,
  error: null,
  device: 'default',
  sampleRate: 48000,
  channels: 1,
  peakDbfs: -6,
  stoppedBy: 'duration',
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
