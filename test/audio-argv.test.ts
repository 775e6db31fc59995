import { execFileSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { captureStage, encodeStage, pcmBytes, soxBuffer, wavFileBytes } from '../src/audio/argv.ts';
import { parseDeviceList } from '../src/audio/devices.ts';
import { explainCaptureEnd, explainFailure, lastLine, notInstalled, refusal } from '../src/audio/messages.ts';
import { LevelMeter, SILENCE_DBFS, streamingWavHeader } from '../src/audio/pcm.ts';
import { parseStart } from '../src/audio/routes.ts';
import { HttpError, mib } from '../src/http/errors.ts';
import { soxWritesMp3 } from '../src/audio/preflight.ts';
import { encoderBatchBytes, maxEncodedBytesPerSecond, uncheckedInput } from '../src/audio/recorder.ts';

const argv = suite('audio argv builders');

argv('arecord captures raw PCM to stdout for as long as it runs, without -q so that a refused rate is heard', () => {
  assert.equal(captureStage('arecord', 'plughw:1', { rate: 44100, channels: 2 }), {
    program: 'arecord',
    args: ['-D', 'plughw:1', '-f', 'S16_LE', '-c', '2', '-r', '44100', '-t', 'raw'],
  });
});

argv('sox captures from ALSA at the rate and channels asked and writes raw PCM at them', () => {
  assert.equal(captureStage('sox', 'hw:1,0', { rate: 48000, channels: 1 }), {
    program: 'sox',
    args: [
      '-q',
      '--buffer',
      '9600',
      '-t',
      'alsa',
      '-r',
      '48000',
      '-c',
      '1',
      'hw:1,0',
      '-t',
      'raw',
      '-e',
      'signed-integer',
      '-b',
      '16',
      '-r',
      '48000',
      '-c',
      '1',
      '-',
    ],
  });
});

argv('sox captures in blocks of 0.2 s of sound at every rate and channel count (its --buffer counts samples)', () => {
  assert.is(soxBuffer({ rate: 48000, channels: 1 }), 9600);
  assert.is(soxBuffer({ rate: 8000, channels: 1 }), 1600);
  assert.is(soxBuffer({ rate: 44100, channels: 2 }), 17640);
  assert.is(soxBuffer({ rate: 192000, channels: 2 }), 76800);
});

argv("the encoder reads the capture's format from stdin and writes the recording's; mp3 sets no bit depth", () => {
  assert.equal(encodeStage('flac', { rate: 48000, channels: 1 }, { rate: 16000, channels: 2 }, '/r/.x.part').args, [
    '-q',
    '-t',
    'raw',
    '-e',
    'signed-integer',
    '-b',
    '16',
    '-r',
    '48000',
    '-c',
    '1',
    '-',
    '-r',
    '16000',
    '-c',
    '2',
    '-b',
    '16',
    '-t',
    'flac',
    '/r/.x.part',
  ]);
  assert.equal(encodeStage('mp3', { rate: 48000, channels: 1 }, { rate: 48000, channels: 1 }, '-').args.slice(-7), [
    '-r',
    '48000',
    '-c',
    '1',
    '-t',
    'mp3',
    '-',
  ]);
});

argv('lengths in bytes: whole frames, at least one; a wav file adds its 44-byte header', () => {
  assert.is(pcmBytes({ rate: 48000, channels: 1 }, 1.5), 144000);
  assert.is(pcmBytes({ rate: 48000, channels: 2 }, 1e-9), 4);
  assert.is(wavFileBytes({ rate: 48000, channels: 1 }, 3600), 345600044);
});

argv.run();

const start = suite('recording start body');
const limits = { maxDurationSeconds: 3600, maxFileBytes: 52428800 };
const refused = (body: Record<string, unknown>, text: string) => {
  try {
    parseStart(body, limits);
  } catch (err) {
    assert.instance(err, HttpError);
    assert.is((err as HttpError).status, 400);
    assert.is((err as HttpError).message, text);
    return;
  }
  assert.unreachable(`${JSON.stringify(body)} was accepted`);
};

start('defaults: 48000 Hz, 1 channel, the configured device', () => {
  assert.equal(parseStart({ duration: 2, fileExtension: 'flac' }, limits), {
    format: 'flac',
    duration: 2,
    device: undefined,
    sampleRate: 48000,
    channels: 1,
  });
});

start('sampleRate 8000-192000 whole, channels 1 or 2, no other field', () => {
  refused({ duration: 1, fileExtension: 'flac', sampleRate: 7999 }, 'sampleRate must be an integer from 8000 to 192000');
  refused({ duration: 1, fileExtension: 'flac', sampleRate: 44100.5 }, 'sampleRate must be an integer from 8000 to 192000');
  refused({ duration: 1, fileExtension: 'flac', sampleRate: '48000' }, 'sampleRate must be an integer from 8000 to 192000');
  refused({ duration: 1, fileExtension: 'flac', channels: 3 }, 'channels must be 1 or 2');
  refused({ duration: 1, fileExtension: 'flac', device: '' }, 'device must be a device id from GET /api/v1/audio/devices');
  refused({ duration: 1, fileExtension: 'flac', gain: 3 }, 'gain is not a field of a recording start');
  assert.equal(parseStart({ duration: 1, fileExtension: 'wav', sampleRate: 192000, channels: 2, device: 'pulse' }, limits), {
    format: 'wav',
    duration: 1,
    device: 'pulse',
    sampleRate: 192000,
    channels: 2,
  });
});

start('a wav larger than the download limit is refused up front; flac and mp3 of any length start', () => {
  refused({ duration: 3600, fileExtension: 'wav' }, 'a 3600 s wav recording would be 329.6 MB, over the 50 MB download limit');
  refused({ duration: 300, fileExtension: 'wav', channels: 2 }, 'a 300 s wav recording would be 54.9 MB, over the 50 MB download limit');
  // 546 s of 48 kHz mono is 52,416,044 bytes: just under 50 MiB.
  assert.is(parseStart({ duration: 546, fileExtension: 'wav' }, limits).duration, 546);
  assert.is(parseStart({ duration: 3600, fileExtension: 'flac' }, limits).format, 'flac');
  assert.is(mib(52428800), '50');
});

start.run();

const pcm = suite('levels and the live wav header');

/** `seconds` of a sine at `amplitude` (of full scale), 16-bit mono. */
function sine(amplitude: number, seconds: number, rate = 48000): Buffer {
  const n = Math.round(seconds * rate);
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) b.writeInt16LE(Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * 1000 * i) / rate)), i * 2);
  return b;
}

pcm('a -6 dBFS sine reads -6 peak and -9 RMS, in chunks split mid-sample', () => {
  const m = new LevelMeter();
  const b = sine(10 ** (-6 / 20), 0.5);
  for (let i = 0; i < b.length; i += 999) m.add(b.subarray(i, i + 999));
  const l = m.take();
  assert.ok(Math.abs(l.peakDbfs + 6) <= 0.1, `peak ${l.peakDbfs}`);
  assert.ok(Math.abs(l.rmsDbfs + 9) <= 0.1, `rms ${l.rmsDbfs}`);
  assert.is(l.clipped, false);
});

pcm('silence reads the floor; a full-scale sample counts as clipped', () => {
  const m = new LevelMeter();
  m.add(Buffer.alloc(100));
  assert.equal(m.take(), { peakDbfs: SILENCE_DBFS, rmsDbfs: SILENCE_DBFS, clipped: false });
  const loud = Buffer.alloc(4);
  loud.writeInt16LE(-32768, 0);
  m.add(loud);
  assert.is(m.take().clipped, true);
});

pcm('a meter that absorbs the figures of each chunk another meter took reads what that one reads', () => {
  const capture = new LevelMeter();
  const consumer = new LevelMeter();
  const b = sine(10 ** (-12 / 20), 0.3);
  // Odd lengths: samples split across chunks, and odd sample counts in the two-a-turn loop.
  for (let i = 0; i < b.length; i += 1001) {
    capture.add(b.subarray(i, i + 1001));
    consumer.absorb(capture.last);
  }
  assert.is(consumer.samples, b.length / 2);
  const l = capture.take();
  assert.equal(consumer.take(), l);
  assert.ok(Math.abs(l.peakDbfs + 12) <= 0.1, `peak ${l.peakDbfs}`);
  assert.ok(Math.abs(l.rmsDbfs + 15) <= 0.1, `rms ${l.rmsDbfs}`);
  // The last chunk's own figures: one sample at +32767 is full scale.
  const one = Buffer.alloc(6);
  one.writeInt16LE(32767, 2);
  capture.add(one);
  assert.equal(capture.last, { peak: 32767, squares: 32767 * 32767, count: 3 });
  assert.is(capture.take().clipped, true);
});

pcm('the live wav header says "unknown length" and sox reads PCM behind it', () => {
  const h = streamingWavHeader({ rate: 16000, channels: 2 });
  assert.is(h.length, 44);
  assert.is(h.readUInt32LE(4), 0xffffffff);
  assert.is(h.readUInt32LE(40), 0xffffffff);
  const info = execFileSync('soxi', ['-r', '-'], { input: Buffer.concat([h, Buffer.alloc(64000)]), encoding: 'utf8' }).trim();
  assert.is(info, '16000');
});

pcm.run();

const size = suite('the size checks of a flac or mp3 recording');

size('the most a second can add: flac the PCM written and 5 %, mp3 320 kbit/s', () => {
  assert.is(maxEncodedBytesPerSecond('flac', { rate: 48000, channels: 1 }), 100800);
  assert.is(maxEncodedBytesPerSecond('flac', { rate: 16000, channels: 2 }), 67200);
  assert.is(maxEncodedBytesPerSecond('mp3', { rate: 8000, channels: 1 }), 40000);
});

size('no check while the limit is out of reach even at that most; every chunk once it is near', () => {
  const mono = { rate: 48000, channels: 1 };
  const bound = maxEncodedBytesPerSecond('flac', mono);
  const limit = 52428800;
  // 60 s in (5.76 MB of PCM) with a 2.9 MB file and nothing waiting: the next check may wait
  // until (limit - 32 KiB) / (1 + 1/120) - 2.9 MB can have been written, less what the
  // encoder holds (256 KiB of input and a second): 483 s more at 100.8 kB/s.
  const more = uncheckedInput(2_900_000, 5_760_000, 0, mono, bound, limit);
  const seconds = ((limit - 32768) / (1 + 1 / 120) - 2_900_000) / bound - (262144 / 96000 + 1);
  assert.is(more, Math.floor(seconds * 96000));
  assert.ok(seconds > 482 && seconds < 484, String(seconds));
  // Input waiting in the encoder's stdin counts as not yet written.
  assert.is(uncheckedInput(2_900_000, 5_760_000, 960_000, mono, bound, limit), Math.floor((seconds - 10) * 96000));
  // Near the limit, at the very start, or with nothing fed: check at the next chunk.
  assert.is(uncheckedInput(limit - 200_000, 50_000_000, 0, mono, bound, limit), 0);
  assert.is(uncheckedInput(0, 0, 0, mono, bound, limit), 0);
  assert.is(uncheckedInput(20_000, 9600, 0, mono, bound, 200_000), 0);
});

size('the encoder gets a second of sound at a time, 128 KiB at most', () => {
  assert.is(encoderBatchBytes({ rate: 48000, channels: 1 }), 96000);
  assert.is(encoderBatchBytes({ rate: 8000, channels: 1 }), 16000);
  assert.is(encoderBatchBytes({ rate: 96000, channels: 2 }), 131072);
});

size.run();

const devices = suite('the device list');

devices('arecord -L: an id at the margin, then its name and description indented', () => {
  const text =
    'null\n    Discard all samples (playback) or generate zero samples (capture)\n' +
    'default\n    Playback/recording through the PulseAudio sound server\n' +
    'hw:CARD=Mic,DEV=0\n    USB Mic, USB Audio\n    Direct hardware device without any conversions\n';
  assert.equal(parseDeviceList(text), [
    { id: 'null', name: 'Discard all samples (playback) or generate zero samples (capture)', description: '', default: false },
    { id: 'default', name: 'Playback/recording through the PulseAudio sound server', description: '', default: true },
    { id: 'hw:CARD=Mic,DEV=0', name: 'USB Mic, USB Audio', description: 'Direct hardware device without any conversions', default: false },
  ]);
  assert.equal(parseDeviceList(''), []);
});

devices.run();

const messages = suite('audio failure messages');

messages('a busy device says another program holds the microphone', () => {
  const stderr = "sox FAIL formats: can't open input  `hw:0': snd_pcm_open error: Device or resource busy\n";
  assert.is(
    explainFailure('sox', 'hw:0', stderr, 2, null),
    'sox: the audio device "hw:0" is busy: another program is using the microphone; stop it and try again',
  );
});

messages('a missing or unplugged device says to check the microphone and audio.device', () => {
  const stderr =
    'ALSA lib confmisc.c:165:(snd_config_get_card) Cannot get card index for 7\narecord: main:831: audio open error: No such file or directory\n';
  assert.is(
    explainFailure('arecord', 'hw:7', stderr, 1, null),
    'arecord: the audio device "hw:7" was not found: check that the microphone is plugged in and that audio.device names it ("arecord -L" lists devices)',
  );
  assert.match(explainFailure('arecord', 'hw:1', 'arecord: pcm_read:2221: read error: No such device', 1, null), 'was not found');
});

messages("any other failure gives the exit and the program's last line", () => {
  assert.is(explainFailure('sox', 'd', 'one\nsox FAIL: something\n\n', 2, null), 'sox exited with code 2: sox FAIL: something');
  assert.is(explainFailure('sox', 'd', '', null, 'SIGSEGV'), 'sox was killed by SIGSEGV');
  assert.is(
    explainFailure('sox', 'd', "sox FAIL sox: `/r/.x.part' error writing output file: No space left on device\n", 0, null),
    'sox: the disk holding the recordings is full (no space left on device): free some space there and start the recording again',
  );
  assert.match(
    explainFailure('sox', 'd', '', null, 'SIGKILL'),
    /^sox was killed by SIGKILL before the recording was complete .*: start the recording again$/,
  );
  assert.is(lastLine(''), '');
});

messages('a device that cannot give the rate or channels asked is a refusal naming both', () => {
  const f = { rate: 8000, channels: 2 };
  assert.is(
    refusal(
      'hw:1',
      f,
      "Recording raw data 'stdin' : Signed 16 bit Little Endian, Rate 8000 Hz, Mono\nWarning: rate is not accurate (requested = 8000Hz, got = 48000Hz)\n",
    ),
    'the audio device "hw:1" refused the sample rate 8000 Hz (it offers 48000 Hz)',
  );
  assert.is(
    explainCaptureEnd('arecord', 'hw:1', f, 'arecord: set_params:1339: Channels count non available\n', 1, null),
    'the audio device "hw:1" refused 2 channels',
  );
  assert.is(refusal('hw:1', f, 'Recording raw data'), null);
  assert.is(
    explainCaptureEnd('arecord', 'hw:1', f, 'arecord: pcm_read:2221: read error: Input/output error\n', 1, null),
    'arecord: the audio device "hw:1" stopped delivering sound (input/output error: unplugged?)',
  );
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
