// How long a recording on disk really lasts, read from the file itself, so that a capture
// program stopped from outside (it exits 0 on SIGTERM/SIGINT) cannot pass for a complete one.
import { execFile } from 'node:child_process';
import { CHANNELS, RATE } from './argv.ts';

/** Seconds of 16-bit PCM in `dataBytes` (arecord's WAV, after its header was repaired). */
export function pcmSeconds(dataBytes: number): number {
  return dataBytes / (RATE * CHANNELS * 2);
}

/** What sox reads from the file's header (`sox --i -D`), or null when sox cannot tell. */
export function soxSeconds(file: string): Promise<number | null> {
  return new Promise((resolve) => {
    execFile('sox', ['--i', '-D', file], { timeout: 10_000 }, (err, stdout) => {
      const seconds = Number(stdout.trim());
      // Without an answer the check is skipped: the program's own exit status already passed.
      resolve(err || !Number.isFinite(seconds) ? null : seconds);
    });
  });
}

/** CONTRACT §5: a kept recording matches the asked duration within 0.25 s. */
export const LENGTH_TOLERANCE = 0.25;
