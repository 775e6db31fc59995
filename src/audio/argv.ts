// Pure argv builders for the capture and encoder programs: what runs, with which arguments. No I/O.

/** The recording formats (spec: fileExtension), for the code and the OpenAPI document. */
export const FORMATS = ['flac', 'wav', 'mp3'] as const;
export type AudioFormat = (typeof FORMATS)[number];
export type RecorderName = 'sox' | 'arecord';

/** The default rate and channels: 48 kHz is the native rate of USB microphones and PulseAudio. */
export const DEFAULT_RATE = 48_000;
export const DEFAULT_CHANNELS = 1;
/** What a start may ask (docs/behaviour.md, "Audio"). */
export const RATE_RANGE = [8_000, 192_000] as const;
export const CHANNEL_COUNTS = [1, 2] as const;

/** 16-bit signed little-endian PCM at a rate and a channel count: what every capture hands on. */
export interface PcmFormat {
  rate: number;
  channels: number;
}

/** Bytes of one frame (every channel's 16-bit sample). */
export const frameBytes = (f: PcmFormat): number => f.channels * 2;
/** Bytes of `seconds` of PCM, whole frames, at least one frame (a tiny duration still records 1 frame). */
export const pcmBytes = (f: PcmFormat, seconds: number): number => Math.max(1, Math.round(seconds * f.rate)) * frameBytes(f);

/** The size of a canonical WAV file of `seconds` (44-byte header). */
export function wavFileBytes(f: PcmFormat, seconds: number): number {
  return 44 + pcmBytes(f, seconds);
}

/** One program and its arguments. */
export interface Stage {
  program: string;
  args: string[];
}

const RAW = ['-t', 'raw', '-e', 'signed-integer', '-b', '16'];

/**
 * The one capture process of a device: raw PCM to stdout for as long as it runs (no
 * length of its own: each consumer counts what it takes). arecord without -q, so that its
 * "rate is not accurate" warning (a device that cannot give the rate asked) reaches us.
 */
export function captureStage(recorder: RecorderName, device: string, f: PcmFormat): Stage {
  if (recorder === 'arecord') {
    return {
      program: 'arecord',
      args: ['-D', device, '-f', 'S16_LE', '-c', String(f.channels), '-r', String(f.rate), '-t', 'raw'],
    };
  }
  // -r/-c before the device ask ALSA for them; the same options after say what it writes
  // (sox converts what the device gives, so with sox a device never refuses a rate). -q:
  // no progress line on stderr, whose tail names the cause of a failure.
  return {
    program: 'sox',
    args: [
      '-q',
      '--buffer',
      String(soxBuffer(f)),
      '-t',
      'alsa',
      '-r',
      String(f.rate),
      '-c',
      String(f.channels),
      device,
      ...RAW,
      '-r',
      String(f.rate),
      '-c',
      String(f.channels),
      '-',
    ],
  };
}

/** How much sound the capture hands on at a time with sox: 5 blocks, so 5 level reports, a second. */
export const SOX_BLOCK_SECONDS = 0.2;

/**
 * sox's block size for the capture, `--buffer`: sox counts it in samples (of every
 * channel), not bytes, whatever the rate (measured: its default 8192 is 16 KiB of output,
 * 170 ms at 48 kHz mono but 0.5 s at 16 kHz and 1 s at 8 kHz). Whole frames of
 * SOX_BLOCK_SECONDS: few wakeups of the agent (each costs it more than the bytes it
 * carries), yet at least 4 level reports a second at any rate, and a live listener hears
 * the sound a fifth of a second late.
 */
export function soxBuffer(f: PcmFormat): number {
  return Math.round(f.rate * SOX_BLOCK_SECONDS) * f.channels;
}

/** sox's options for an encoded output: mp3 has no bit depth to set (lame chooses). */
function output(format: AudioFormat, out: PcmFormat, file: string): string[] {
  const depth = format === 'mp3' ? [] : ['-b', '16'];
  return ['-r', String(out.rate), '-c', String(out.channels), ...depth, '-t', format, file];
}

/**
 * sox encoding the capture's PCM from stdin into `file` ('-' for stdout), converting rate
 * and channels when the recording asked for others than the running capture gives. It
 * ends, and finalizes its file, when its stdin closes.
 */
export function encodeStage(format: AudioFormat, input: PcmFormat, out: PcmFormat, file: string): Stage {
  return {
    program: 'sox',
    args: ['-q', ...RAW, '-r', String(input.rate), '-c', String(input.channels), '-', ...output(format, out, file)],
  };
}
