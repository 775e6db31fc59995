// A download into a local file that survives a cut: while it runs, DEST.dagent holds the
// file's ETag and size; a later call finds DEST shorter than that size and asks for the
// rest with Range and If-Range (the ETag), so a file changed on the device meanwhile comes
// whole instead of being spliced. The length is checked before DEST.dagent goes.
import { createWriteStream } from 'node:fs';
import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ConnectionError } from './errors.ts';
import type { DeviceAgent, Progress } from './client.ts';

export interface DownloadToFileOptions {
  onProgress?: Progress;
  /** Resume a partial DEST left by an earlier cut download (default true). */
  resume?: boolean;
  fstype?: string;
  signal?: AbortSignal;
}

export interface SavedFile {
  /** The local file written. */
  path: string;
  /** Its size, equal to the file's on the device. */
  size: number;
  /** Bytes received by this call. */
  transferred: number;
  /** Offset this call resumed from (0: from the start). */
  resumedFrom: number;
}

interface Control {
  filepath: string;
  etag: string;
  total: number;
}

/** The control file beside a partial download. */
export const controlFile = (dest: string) => `${dest}.dagent`;

async function readControl(file: string): Promise<Control | null> {
  try {
    const c = JSON.parse(await readFile(file, 'utf8')) as Partial<Control>;
    if (typeof c.filepath === 'string' && typeof c.etag === 'string' && typeof c.total === 'number') return c as Control;
  } catch {
    // Missing or unreadable: nothing to resume; the download starts over.
  }
  return null;
}

async function sizeOf(file: string): Promise<number | null> {
  try {
    return (await stat(file)).size;
  } catch {
    return null;
  }
}

export async function downloadToFile(agent: DeviceAgent, filepath: string, dest: string, opts: DownloadToFileOptions = {}): Promise<SavedFile> {
  const control = controlFile(dest);
  let offset = 0;
  let etag: string | undefined;
  if (opts.resume !== false) {
    const c = await readControl(control);
    const have = await sizeOf(dest);
    if (c && c.filepath === filepath && have !== null && have > 0 && have < c.total) {
      offset = have;
      etag = c.etag;
    }
  }
  const dl = await agent.download(filepath, {
    fstype: opts.fstype, signal: opts.signal, ...(etag ? { range: { start: offset }, ifRange: etag } : {}),
  });
  // 206 from our offset: append. A 200 (the file changed, or no resume): start over.
  const from = dl.status === 206 && dl.start === offset ? offset : 0;
  if (from === 0) {
    if (dl.etag) await writeFile(control, JSON.stringify({ filepath, etag: dl.etag, total: dl.total }));
    else await unlink(control).catch(() => undefined);
  }
  let received = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      received += chunk.length;
      opts.onProgress?.({ bytes: from + received, total: dl.total });
      done(null, chunk);
    },
  });
  opts.onProgress?.({ bytes: from, total: dl.total });
  try {
    await pipeline(dl.body, count, createWriteStream(dest, { flags: from > 0 ? 'r+' : 'w', start: from }));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.name === 'AbortError') throw err;
    if (e.code && /^E(NOENT|ACCES|PERM|ISDIR|NOSPC|ROFS|NOTDIR|EXIST)$/.test(e.code)) throw err;
    const saved = (await sizeOf(dest)) ?? 0;
    throw new ConnectionError(`the download of ${filepath} was cut after ${saved} of ${dl.total} bytes; ` +
      'run the same command again to resume', e.code ?? 'ECONNRESET', { cause: err });
  }
  const size = await sizeOf(dest);
  if (size !== dl.total) {
    throw new ConnectionError(`${dest} has ${size} bytes, the file on the device ${dl.total}; run the same command again to resume`, 'ESHORT');
  }
  await unlink(control).catch(() => undefined);
  return { path: dest, size, transferred: received, resumedFrom: from };
}
