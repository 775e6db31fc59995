import { execFileSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { arecordCapture, capturePlan, frames, soxCapture, soxEncode, soxSeconds } from '../src/audio/argv.ts';
import { explainFailure, lastLine, notInstalled } from '../src/audio/messages.ts';
import { soxWritesMp3 } from '../src/audio/preflight.ts';

const argv = suite('audio argv builders');

argv('sox captures from the ALSA device and cuts the length itself with trim, in seconds', () => {
  assert.equal(soxCapture('hw:1,0', 'flac', 1.5, '/r/.x.part'), {
    program: 'sox',
    args: ['-q', '-t', 'alsa', 'hw:1,0', '-r', '48000', '-c', '1', '-b', '16', '-t', 'flac', '/r/.x.part', 'trim', '0', '1.500000'],
  });
});

argv('sox sets no bit depth for mp3, which lame chooses', () => {
  const { args } = soxCapture('default', 'mp3', 2, 'out');
  assert.not.ok(args.includes('-b'));
  assert.equal(args.slice(-6), ['-t', 'mp3', 'out', 'trim', '0', '2.000000']);
});

argv('a tiny duration still records 1 ms, never "trim 0 0" or "-s 0" (which means forever)', () => {
  assert.is(soxSeconds(1e-9), '0.001000');
  assert.is(frames(1e-9), 1);
  assert.is(frames(1.5), 72000);
});

argv('arecord writes WAV to a file, or raw PCM to stdout, with the length in frames', () => {
  assert.equal(arecordCapture('plughw:1', 2, '/r/t.part').args,
    ['-q', '-D', 'plughw:1', '-f', 'S16_LE', '-c', '1', '-r', '48000', '-t', 'wav', '-s', '96000', '/r/t.part']);
  assert.equal(arecordCapture('null', 1, '-').args.slice(-4), ['raw', '-s', '48000', '-']);
});

argv('arecord alone makes wav; flac and mp3 pipe its PCM through sox', () => {
  assert.equal(capturePlan('arecord', 'd', 'wav', 1, 'f').map((s) => s.program), ['arecord']);
  const plan = capturePlan('arecord', 'd', 'mp3', 1, 'f');
  assert.equal(plan.map((s) => s.program), ['arecord', 'sox']);
  assert.equal(plan[1], soxEncode('mp3', 'f'));
  assert.equal(plan[1]!.args.slice(0, 11), ['-q', '-t', 'raw', '-r', '48000', '-e', 'signed-integer', '-b', '16', '-c', '1']);
  assert.equal(capturePlan('sox', 'd', 'wav', 1, 'f'), [soxCapture('d', 'wav', 1, 'f')]);
});

argv.run();

const messages = suite('audio failure messages');

messages('a busy device says another program holds the microphone', () => {
  const stderr = 'sox FAIL formats: can\'t open input  `hw:0\': snd_pcm_open error: Device or resource busy\n';
  assert.is(explainFailure('sox', 'hw:0', stderr, 2, null),
    'sox: the audio device "hw:0" is busy: another program is using the microphone; stop it and try again');
});

messages('a missing or unplugged device says to check the microphone and audio.device', () => {
  const stderr = 'ALSA lib confmisc.c:165:(snd_config_get_card) Cannot get card index for 7\narecord: main:831: audio open error: No such file or directory\n';
  assert.is(explainFailure('arecord', 'hw:7', stderr, 1, null),
    'arecord: the audio device "hw:7" was not found: check that the microphone is plugged in and that audio.device names it ("arecord -L" lists devices)');
  assert.match(explainFailure('arecord', 'hw:1', 'arecord: pcm_read:2221: read error: No such device', 1, null), 'was not found');
});

messages('any other failure gives the exit and the program\'s last line', () => {
  assert.is(explainFailure('sox', 'd', 'one\nsox FAIL: something\n\n', 2, null), 'sox exited with code 2: sox FAIL: something');
  assert.is(explainFailure('sox', 'd', '', null, 'SIGSEGV'), 'sox was killed by SIGSEGV');
  assert.is(explainFailure('sox', 'd', "sox FAIL sox: `/r/.x.part' error writing output file: No space left on device\n", 0, null),
    'sox: the disk holding the recordings is full (no space left on device): free some space there and start the recording again');
  assert.match(explainFailure('sox', 'd', '', null, 'SIGKILL'), /^sox was killed by SIGKILL before the recording was complete .*: start the recording again$/);
  assert.is(lastLine(''), '');
});

messages('a missing program names the Debian package to install', () => {
  assert.is(notInstalled('arecord'), 'arecord is not installed or not on PATH: install the Debian package alsa-utils');
});

messages('the mp3 check reads the format list of the installed sox', () => {
  const help = execFileSync('sox', ['-h'], { encoding: 'utf8' });
  assert.ok(soxWritesMp3(help), 'libsox-fmt-mp3 is installed here');
  // The same list as printed by a sox without libsox-fmt-mp3.
  assert.not.ok(soxWritesMp3(help.replace(/ mp3 /, ' ')));
});

messages.run();
