// 16-bit PCM arithmetic: peak and RMS levels in dBFS, and the header of an endless WAV stream. Pure.
import type { PcmFormat } from './argv.ts';

/** The floor reported for digital silence (16 bits reach about -90.3 dBFS; silence has no logarithm). */
export const SILENCE_DBFS = -120;

/** Peak, sum of squares and sample count, accumulated over as many chunks as a window takes. */
export class LevelMeter {
  private peak = 0;
  private squares = 0;
  private count = 0;
  private clip = false;
  /** A sample cut by a frame split across chunks waits here for its other byte. */
  private odd: number | null = null;

  /**
   * Adds a chunk of 16-bit little-endian PCM. One tight loop over an Int16Array view (the
   * hot path: every chunk of every capture, and of the recording, passes here); a sample
   * split across chunks is joined first.
   */
  add(chunk: Buffer): void {
    let i = 0;
    if (this.odd !== null && chunk.length > 0) {
      this.sample((chunk[0]! << 24 >> 16) | this.odd);
      this.odd = null;
      i = 1;
    }
    const n = (chunk.length - i) >> 1;
    const start = chunk.byteOffset + i;
    // An Int16Array needs an even offset (and the host's little-endian order, which every
    // platform Node runs on has); a chunk at an odd offset takes the slower reads.
    const view = (start & 1) === 0 ? new Int16Array(chunk.buffer, start, n) : null;
    let peak = this.peak;
    let squares = 0;
    let clip = this.clip;
    for (let k = 0; k < n; k++) {
      const s = view ? view[k]! : chunk.readInt16LE(i + 2 * k);
      const a = s < 0 ? -s : s;
      if (a > peak) peak = a;
      if (a >= 32767) clip = true;
      squares += s * s;
    }
    this.peak = peak;
    this.squares += squares;
    this.clip = clip;
    this.count += n;
    if (i + 2 * n < chunk.length) this.odd = chunk[chunk.length - 1]!;
  }

  private sample(s: number): void {
    const a = s < 0 ? -s : s;
    if (a > this.peak) this.peak = a;
    if (a >= 32767) this.clip = true;
    this.squares += s * s;
    this.count++;
  }

  get samples(): number {
    return this.count;
  }

  /** The window's figures, rounded to 0.1 dB; the meter starts a new window. */
  take(): { peakDbfs: number; rmsDbfs: number; clipped: boolean } {
    const rms = this.count === 0 ? 0 : Math.sqrt(this.squares / this.count);
    const out = { peakDbfs: dbfs(this.peak), rmsDbfs: dbfs(rms), clipped: this.clip };
    this.peak = this.squares = this.count = 0;
    this.clip = false;
    return out;
  }
}

/** Full scale is 32768 (a sine whose peaks touch ±32767 reads 0.0). */
export function dbfs(amplitude: number): number {
  if (amplitude <= 0) return SILENCE_DBFS;
  return Math.max(SILENCE_DBFS, Math.round(200 * Math.log10(amplitude / 32768)) / 10);
}

/**
 * A WAV header for a stream whose length nobody knows yet: the RIFF and data lengths are
 * 0xFFFFFFFF, which players (sox, ffplay, mpv, VLC, browsers) read as "until the end".
 */
export function streamingWavHeader(f: PcmFormat): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(0xffffffff, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(f.channels, 22);
  h.writeUInt32LE(f.rate, 24);
  h.writeUInt32LE(f.rate * f.channels * 2, 28);
  h.writeUInt16LE(f.channels * 2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(0xffffffff, 40);
  return h;
}
