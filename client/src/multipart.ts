// A multipart/form-data body for POST /api/upload, streamed: the parts' bytes are read
// from their sources as the socket takes them, and the total length is known up front
// (Content-Length), so the agent can refuse an oversized upload before it is sent. A local
// file is read into four buffers used in turn (read ahead while the others are sent), so an
// upload of any size allocates nothing per chunk: buffers that live until the socket took
// them outlived V8's young generation and piled up (a 1 GiB upload over HTTPS peaked at
// 94 MB RSS under Node 24 with a new buffer per chunk).
import { closeSync, openSync, readSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';

/** One file to upload: its name on the device, its size, and where its bytes come from. */
export interface UploadPart {
  /** The file name sent (the base name; the device stores it under saveToPath). */
  name: string;
  size: number;
  /** A local file to read (preferred: read into reused buffers). */
  path?: string;
  /** Else a stream of the bytes, called once, when the part's turn comes. */
  open?(): Readable;
}

const CHUNK = 256 * 1024;
const BUFFERS = 4;

/** Quotes a file name for a Content-Disposition parameter (RFC 7578 §4.2: %-escape ", CR, LF). */
function quoted(name: string): string {
  return name.replace(/[\r\n"%]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** Writes a chunk and resolves once the stream has taken it (its buffer may then be reused). */
function put(out: Writable, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    out.write(chunk, (err) => (err ? reject(err) : resolve()));
  });
}

async function sendFile(out: Writable, part: UploadPart & { path: string }, onBytes: (n: number) => void): Promise<void> {
  // Read on this thread (readSync: a page-cache copy, as downloads write with writeSync):
  // no thread-pool round trip per chunk while the socket waits.
  const fd = openSync(part.path, 'r');
  const buffers = Array.from({ length: BUFFERS }, () => Buffer.allocUnsafeSlow(CHUNK));
  const inFlight: Array<Promise<void> | undefined> = buffers.map(() => undefined);
  try {
    let sent = 0;
    for (let i = 0; ; i = (i + 1) % BUFFERS) {
      await inFlight[i]; // this buffer's last chunk has been taken by the socket
      const bytesRead = readSync(fd, buffers[i]!, 0, CHUNK, sent);
      if (bytesRead === 0) break;
      sent += bytesRead;
      if (sent > part.size) throw new Error(`${part.name} grew while it was being sent`);
      inFlight[i] = put(out, buffers[i]!.subarray(0, bytesRead));
      inFlight[i]!.catch(() => undefined); // awaited in its turn; not an unhandled rejection meanwhile
      onBytes(bytesRead);
    }
    await Promise.all(inFlight);
    if (sent !== part.size) throw new Error(`${part.name} changed while it was being sent (${sent} of ${part.size} bytes)`);
  } finally {
    closeSync(fd);
  }
}

async function sendStream(out: Writable, part: UploadPart, onBytes: (n: number) => void): Promise<void> {
  if (!part.open) throw new TypeError(`upload part ${part.name} has neither path nor open()`);
  let sent = 0;
  for await (const chunk of part.open()) {
    const buf = chunk as Buffer;
    sent += buf.length;
    if (sent > part.size) throw new Error(`${part.name} grew while it was being sent`);
    await put(out, buf);
    onBytes(buf.length);
  }
  if (sent !== part.size) throw new Error(`${part.name} changed while it was being sent (${sent} of ${part.size} bytes)`);
}

/** The body's length and type, and a function that writes it to the request. */
export function multipartBody(
  fields: Record<string, string>,
  parts: UploadPart[],
  onBytes: (n: number) => void,
): { write: (out: Writable) => Promise<void>; length: number; contentType: string } {
  // 128 random bits from Math.random, not node:crypto, whose loading costs some 3 ms of
  // every upload under Node 24: the boundary must not occur in the files, which nobody
  // can aim at without seeing this process's numbers; a collision would fail the form.
  const boundary = `dagent-${Array.from({ length: 4 }, () =>
    Math.floor(Math.random() * 2 ** 32)
      .toString(16)
      .padStart(8, '0'),
  ).join('')}`;
  const fieldBytes = Buffer.concat(
    Object.entries(fields).map(([name, value]) =>
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    ),
  );
  const partHeads = parts.map((p) =>
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="myFile"; filename="${quoted(p.name)}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
  );
  const tail = Buffer.from(`--${boundary}--\r\n`);
  const length = fieldBytes.length + tail.length + parts.reduce((sum, p, i) => sum + partHeads[i]!.length + p.size + 2, 0);
  const write = async (out: Writable) => {
    // The small pieces are never reused: written without waiting for the socket to take them
    // (the first waits for the connection), so the file's first chunk is read meanwhile.
    out.write(fieldBytes);
    for (const [i, part] of parts.entries()) {
      out.write(partHeads[i]!);
      if (part.path !== undefined) await sendFile(out, part as UploadPart & { path: string }, onBytes);
      else await sendStream(out, part, onBytes);
      await put(out, Buffer.from('\r\n'));
    }
    await put(out, tail);
  };
  return { write, length, contentType: `multipart/form-data; boundary=${boundary}` };
}
