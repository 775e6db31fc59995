// Repairs the lengths in a canonical 44-byte WAV header after arecord was interrupted.
//
// arecord -s N writes a header for N frames up front; stopped by a signal, alsa-utils
// 1.2.x exits on EINTR without rewriting it, so the header claims the full length.
import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';

const HEADER = 44;

/** Sets the RIFF and data lengths to what the file holds (whole frames); returns the data bytes. */
export function fixWavHeader(path: string): number {
  const fd = openSync(path, 'r+');
  try {
    const head = Buffer.alloc(HEADER);
    if (readSync(fd, head, 0, HEADER, 0) !== HEADER ||
      head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 16) !== 'WAVEfmt ' ||
      head.toString('latin1', 36, 40) !== 'data') {
      throw new Error(`${path} does not start with a canonical WAV header`);
    }
    const blockAlign = head.readUInt16LE(32) || 1;
    const size = fstatSync(fd).size;
    const data = Math.min(Math.floor((size - HEADER) / blockAlign) * blockAlign, 0xffffffff - 36);
    // A half-written frame at the end is noise to a player: cut it.
    if (HEADER + data !== size) ftruncateSync(fd, HEADER + data);
    const lengths = Buffer.alloc(4);
    lengths.writeUInt32LE(36 + data);
    writeSync(fd, lengths, 0, 4, 4);
    lengths.writeUInt32LE(data);
    writeSync(fd, lengths, 0, 4, 40);
    return data;
  } finally {
    closeSync(fd);
  }
}
