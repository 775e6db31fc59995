// A segment whose encoder died because the disk filled (docs/schedule.md, "Disk"): the
// samples that reached the disk are made a complete, playable file in place, without
// writing more than a few header bytes (there is no room for a copy). sox leaves:
// - wav: its 44-byte header (16-bit PCM, 1 or 2 channels) with RIFF and data sizes counting
//   samples that never reached the disk (soxi gives a length the file does not hold, and
//   a reader stops with "Premature EOF"), and maybe a partial frame at the end;
// - flac: STREAMINFO's total samples 0 (soxi -D says 0) and a last frame cut short (a
//   reader stops on it with LOST_SYNC);
// - mp3: frames, the last maybe cut short, which decoders skip; soxi estimates its length.
import { close, fstat, ftruncate, open, read, stat, write } from '../util/fsp.ts';
import { frameBytes, type AudioFormat, type PcmFormat } from '../audio/argv.ts';

/** The encoder's stderr says the disk is full (lame's does not: the caller asks the file system too). */
export function diskFullText(stderr: string): boolean {
  return /No space left on device|ENOSPC/.test(stderr);
}

/**
 * Makes `file` (a segment's `.part`, cut short by a full disk) complete and playable;
 * resolves with the seconds of sound it holds, `as-is` for an mp3 (kept as it is, with
 * something in it: its length is sox's, read under its final name, as sox knows an mp3
 * by its extension), or null when nothing playable is in it.
 */
export async function salvageSegment(file: string, format: AudioFormat, pcm: PcmFormat): Promise<number | 'as-is' | null> {
  if (format === 'wav') return salvageWav(file, pcm);
  if (format === 'flac') return salvageFlac(file, pcm);
  return (await stat(file)).size > 0 ? 'as-is' : null;
}

/** The RIFF chunks up to `data`: where its samples begin, or null (not a wav sox wrote). */
function wavDataOffset(head: Buffer): number | null {
  if (head.length < 12 || head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WAVE') return null;
  for (let at = 12; at + 8 <= head.length; ) {
    const id = head.toString('latin1', at, at + 4);
    if (id === 'data') return at + 8;
    at += 8 + head.readUInt32LE(at + 4) + (head.readUInt32LE(at + 4) & 1);
  }
  return null;
}

async function salvageWav(file: string, pcm: PcmFormat): Promise<number | null> {
  const fd = await open(file, 'r+');
  try {
    const size = (await fstat(fd)).size;
    const head = Buffer.alloc(Math.min(size, 4096));
    await read(fd, head, 0, head.length, 0);
    const data = wavDataOffset(head);
    if (data === null) return null;
    const frame = frameBytes(pcm);
    const bytes = Math.floor(Math.max(0, size - data) / frame) * frame;
    if (bytes === 0) return null;
    // A partial frame at the end goes; the sizes are those of what the file holds.
    if (data + bytes < size) await ftruncate(fd, data + bytes);
    const riff = Buffer.alloc(4);
    riff.writeUInt32LE(data + bytes - 8);
    await write(fd, riff, 0, 4, 4);
    const len = Buffer.alloc(4);
    len.writeUInt32LE(bytes);
    await write(fd, len, 0, 4, data - 4);
    return bytes / (pcm.rate * frame);
  } finally {
    await close(fd);
  }
}

/** CRC-8 of a FLAC frame header (polynomial 0x07). */
function crc8(b: Buffer, from: number, to: number): number {
  let crc = 0;
  for (let i = from; i < to; i++) {
    crc ^= b[i]!;
    for (let k = 0; k < 8; k++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

/** CRC-16 of a whole FLAC frame (polynomial 0x8005). */
function crc16(b: Buffer, from: number, to: number): number {
  let crc = 0;
  for (let i = from; i < to; i++) {
    crc ^= b[i]! << 8;
    for (let k = 0; k < 8; k++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x8005) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** A frame header at `at` (its frame number and samples), if it is one whose CRC-8 holds. */
function flacFrame(b: Buffer, at: number): { number: number; samples: number } | null {
  if (at + 6 > b.length || b[at] !== 0xff || (b[at + 1]! & 0xfe) !== 0xf8) return null;
  const sizeCode = b[at + 2]! >> 4;
  const rateCode = b[at + 2]! & 0x0f;
  const channels = b[at + 3]! >> 4;
  const depth = (b[at + 3]! >> 1) & 7;
  if (sizeCode === 0 || rateCode === 15 || channels > 10 || depth === 3 || depth === 7 || b[at + 3]! & 1) return null;
  let p = at + 4;
  const first = b[p]!;
  const extra =
    first < 0x80 ? 0 : first >= 0xc0 && first < 0xe0 ? 1 : first < 0xf0 ? 2 : first < 0xf8 ? 3 : first < 0xfc ? 4 : first < 0xfe ? 5 : 6;
  if (first >= 0x80 && first < 0xc0) return null;
  let number = extra === 0 ? first : first & (0x3f >> extra);
  p++;
  for (let i = 0; i < extra; i++, p++) {
    if (p >= b.length || (b[p]! & 0xc0) !== 0x80) return null;
    number = number * 64 + (b[p]! & 0x3f);
  }
  let samples: number;
  if (sizeCode === 1) samples = 192;
  else if (sizeCode <= 5) samples = 576 << (sizeCode - 2);
  else if (sizeCode === 6) samples = (b[p++] ?? 0) + 1;
  else if (sizeCode === 7) {
    samples = (((b[p] ?? 0) << 8) | (b[p + 1] ?? 0)) + 1;
    p += 2;
  } else samples = 256 << (sizeCode - 8);
  p += rateCode === 12 ? 1 : rateCode === 13 || rateCode === 14 ? 2 : 0;
  if (p >= b.length || crc8(b, at, p) !== b[p]) return null;
  return { number, samples };
}

/**
 * Keeps the frames that reached the disk whole: frames are found by their header (sync
 * code, CRC-8, the frame number one more than the last), the last one kept only if its
 * CRC-16 holds, the file truncated after it, and STREAMINFO's total samples set to theirs.
 */
async function salvageFlac(file: string, pcm: PcmFormat): Promise<number | null> {
  const fd = await open(file, 'r+');
  try {
    const size = (await fstat(fd)).size;
    const readAt = async (at: number, length: number) => {
      const b = Buffer.alloc(Math.max(0, Math.min(length, size - at)));
      if (b.length > 0) await read(fd, b, 0, b.length, at);
      return b;
    };
    const head = await readAt(0, 8);
    if (head.length < 8 || head.toString('latin1', 0, 4) !== 'fLaC' || (head[4]! & 0x7f) !== 0) return null;
    // The metadata blocks, STREAMINFO first.
    let audio = 4;
    for (;;) {
      const h = await readAt(audio, 4);
      if (h.length < 4) return null;
      audio += 4 + h.readUIntBE(1, 3);
      if (h[0]! & 0x80) break;
    }
    if (audio >= size) return null;
    const CHUNK = 1024 * 1024;
    const starts: { at: number; samples: number }[] = [];
    let expected = 0;
    for (let base = audio; base < size; base += CHUNK) {
      const b = await readAt(base, CHUNK + 32); // a header across the chunk's end is read whole
      const limit = Math.min(CHUNK, b.length);
      for (let i = 0; i < limit; i++) {
        if (b[i] !== 0xff) continue;
        const f = flacFrame(b, i);
        if (!f || f.number !== expected) continue;
        starts.push({ at: base + i, samples: f.samples });
        expected++;
      }
    }
    if (starts.length === 0) return null;
    // The last frame runs to the end of the file: kept if whole (its CRC-16 holds).
    const last = starts[starts.length - 1]!;
    const tail = await readAt(last.at, size - last.at);
    const whole = tail.length > 2 && crc16(tail, 0, tail.length - 2) === tail.readUInt16BE(tail.length - 2);
    if (!whole) {
      starts.pop();
      await ftruncate(fd, last.at);
    }
    const total = starts.reduce((sum, s) => sum + s.samples, 0);
    if (total === 0) return null;
    // STREAMINFO's 36-bit total samples: the low nibble of byte 21, then bytes 22–25.
    const info = await readAt(21, 5);
    info[0] = (info[0]! & 0xf0) | Math.floor(total / 2 ** 32);
    info.writeUInt32BE(total % 2 ** 32, 1);
    await write(fd, info, 0, 5, 21);
    return total / pcm.rate;
  } finally {
    await close(fd);
  }
}
