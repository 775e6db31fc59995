// Pure argv builders for the capture programs: what runs, with which arguments. No I/O.

/** The recording formats (spec: fileExtension), for the code and the OpenAPI document. */
export const FORMATS = ['flac', 'wav', 'mp3'] as const;
export type AudioFormat = typeof FORMATS[number];
export type RecorderName = 'sox' | 'arecord';


/** Every recording is 48 kHz mono: the native rate of USB microphones and PulseAudio. */
export const RATE = 48_000;
export const CHANNELS = 1;

/** One program of a capture pipeline; a stage after the first reads the previous one's stdout. */
export interface Stage {
  program: string;
  args: string[];
}

/**
 * The length as sox's `trim` reads it: seconds, not samples, because sox counts trim
 * samples at the device's rate, before its automatic rate conversion. At least 1 ms,
 * so a tiny duration never turns into `trim 0 0`.
 */
export function soxSeconds(duration: number): string {
  return Math.max(duration, 0.001).toFixed(6);
}

/** arecord's `-s` counts frames at the rate it asks for; 0 would mean "forever", hence at least 1. */
export function frames(duration: number): number {
  return Math.max(1, Math.round(duration * RATE));
}

/** sox's options for the output file: mp3 has no bit depth to set (lame chooses). */
function soxOutput(format: AudioFormat, file: string): string[] {
  const depth = format === 'mp3' ? [] : ['-b', '16'];
  return ['-r', String(RATE), '-c', String(CHANNELS), ...depth, '-t', format, file];
}

/** sox captures from ALSA, converts to 48 kHz mono and stops itself after `duration`. */
export function soxCapture(device: string, format: AudioFormat, duration: number, file: string): Stage {
  return {
    program: 'sox',
    args: ['-q', '-t', 'alsa', device, ...soxOutput(format, file), 'trim', '0', soxSeconds(duration)],
  };
}

/** arecord writes a WAV file itself, or raw PCM to stdout when `file` is '-'. */
export function arecordCapture(device: string, duration: number, file: string): Stage {
  const type = file === '-' ? 'raw' : 'wav';
  return {
    program: 'arecord',
    args: ['-q', '-D', device, '-f', 'S16_LE', '-c', String(CHANNELS), '-r', String(RATE),
      '-t', type, '-s', String(frames(duration)), file],
  };
}

/** sox encoding arecord's raw PCM from stdin; it ends when arecord closes the pipe. */
export function soxEncode(format: AudioFormat, file: string): Stage {
  return {
    program: 'sox',
    args: ['-q', '-t', 'raw', '-r', String(RATE), '-e', 'signed-integer', '-b', '16',
      '-c', String(CHANNELS), '-', ...soxOutput(format, file)],
  };
}

/**
 * The pipeline for one recording. arecord writes only WAV, so flac and mp3 go through
 * a sox stage; sox alone does everything.
 */
export function capturePlan(recorder: RecorderName, device: string, format: AudioFormat, duration: number, file: string): Stage[] {
  if (recorder === 'sox') return [soxCapture(device, format, duration, file)];
  if (format === 'wav') return [arecordCapture(device, duration, file)];
  return [arecordCapture(device, duration, '-'), soxEncode(format, file)];
}
