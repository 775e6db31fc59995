// A segment cut short by a full disk (src/schedule/salvage.ts, docs/schedule.md "A full
// disk"): sox encodes pink noise into a real tmpfs too small for it, as a segment's
// encoder does (the same argv), and fails with the disk full; the file it leaves is made
// complete and playable in place: soxi gives the length it holds, and sox reads it to its
// end without a warning.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type AudioFormat, encodeStage } from '../src/audio/argv.ts';
import { salvageSegment } from '../src/schedule/salvage.ts';
import { soxi } from './helpers/audio.ts';

const salvage = suite<{ dir: string }>('a segment cut short by a full disk');

salvage.before((ctx) => {
  if (process.getuid?.() !== 0) throw new Error('this test mounts a tmpfs and must run as root');
  ctx.dir = mkdtempSync(join(tmpdir(), 'da-salvage-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=128k', 'tmpfs', ctx.dir]);
});
salvage.after((ctx) => {
  execFileSync('umount', ['-l', ctx.dir]);
  rmSync(ctx.dir, { recursive: true, force: true });
});

/** 20 s of pink noise through a segment's encoder into `file` on the full tmpfs: its stderr. */
function fill(format: AudioFormat, channels: number, file: string): string {
  const pcm = { rate: 48000, channels };
  const noise = execFileSync(
    'sox',
    [
      '-n',
      '-t',
      'raw',
      '-e',
      'signed-integer',
      '-b',
      '16',
      '-r',
      '48000',
      '-c',
      String(channels),
      '-',
      'synth',
      '20',
      'pinknoise',
      'gain',
      '-10',
    ],
    {
      maxBuffer: 1 << 24,
    },
  );
  const stage = encodeStage(format, pcm, pcm, file);
  return spawnSync(stage.program, stage.args, { input: noise }).stderr.toString();
}

/** sox reading the file to its end: what it says on stderr, and the sample frames it read. */
function readWhole(file: string, channels: number): { said: string; frames: number } {
  const r = spawnSync('sox', [file, '-n', 'stat']);
  const said = r.stderr.toString();
  const read = Number(/Samples read:\s+(\d+)/.exec(said)?.[1]);
  return {
    said: said
      .split('\n')
      .filter((l) => /WARN|FAIL/.test(l))
      .join('\n'),
    frames: read / channels,
  };
}

const soxiSamples = (file: string) => Number(execFileSync('soxi', ['-s', file], { encoding: 'utf8' }).trim());

for (const [format, channels] of [
  ['wav', 1],
  ['wav', 2],
  ['flac', 2],
  ['mp3', 2],
] as const) {
  salvage(`${format}, ${channels} channel(s): what reached the disk is kept, and reads whole`, async ({ dir }) => {
    const file = join(dir, `.20261129_140801.${format}.part`);
    const stderr = fill(format, channels, file);
    assert.ok(/FAIL/.test(stderr), `the disk filled: ${stderr}`);
    const seconds = await salvageSegment(file, format, { rate: 48000, channels });
    if (format === 'mp3') {
      // Kept as it is: sox's length from the size (under its name: sox knows an mp3 by its
      // extension), within a few frames of what it decodes to.
      assert.is(seconds, 'as-is');
      const named = join(dir, '20261129_140801.mp3');
      renameSync(file, named);
      const { said, frames } = readWhole(named, channels);
      assert.is(said, '', 'sox reads it to its end');
      const length = soxi(named).seconds;
      assert.ok(frames > 4800 && Math.abs(length - frames / 48000) < 0.1, `${length} s for ${frames} frames`);
      rmSync(named);
      return;
    }
    assert.ok(typeof seconds === 'number' && seconds > 0.1, `${seconds} s kept`);
    // sox knows a wav and a flac by their contents, whatever the name.
    const samples = soxiSamples(file);
    const { said, frames } = readWhole(file, channels);
    assert.is(said, '', 'sox reads it to its end');
    assert.is(samples, frames, 'the header says what the file holds');
    assert.is(seconds, samples / 48000);
    if (format === 'wav') assert.is(statSync(file).size, 44 + samples * 2 * channels);
    rmSync(file);
  });
}

salvage.run();
