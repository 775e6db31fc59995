// A multipart/form-data body for POST /api/upload, streamed: the parts' bytes are read
// from their sources as the socket takes them, and the total length is known up front
// (Content-Length), so the agent can refuse an oversized upload before it is sent.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

/** One file to upload: its name on the device, its size, and where its bytes come from. */
export interface UploadPart {
  /** The file name sent (the base name; the device stores it under saveToPath). */
  name: string;
  size: number;
  /** Called once, when the part's turn comes. */
  open(): Readable;
}

/** Quotes a file name for a Content-Disposition parameter (RFC 7578 §4.2: %-escape ", CR, LF). */
function quoted(name: string): string {
  return name.replace(/[\r\n"%]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

export function multipartBody(fields: Record<string, string>, parts: UploadPart[], onBytes: (n: number) => void):
  { body: Readable; length: number; contentType: string } {
  const boundary = `dagent-${randomBytes(16).toString('hex')}`;
  const heads: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    heads.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  const fieldBytes = Buffer.concat(heads);
  const partHeads = parts.map((p) => Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="myFile"; filename="${quoted(p.name)}"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n'));
  const tail = Buffer.from(`--${boundary}--\r\n`);
  const length = fieldBytes.length + tail.length +
    parts.reduce((sum, p, i) => sum + partHeads[i]!.length + p.size + 2, 0);

  async function* generate(): AsyncGenerator<Buffer> {
    yield fieldBytes;
    for (const [i, part] of parts.entries()) {
      yield partHeads[i]!;
      let sent = 0;
      for await (const chunk of part.open()) {
        const buf = chunk as Buffer;
        sent += buf.length;
        if (sent > part.size) throw new Error(`${part.name} grew while it was being sent`);
        onBytes(buf.length);
        yield buf;
      }
      if (sent !== part.size) throw new Error(`${part.name} changed while it was being sent (${sent} of ${part.size} bytes)`);
      yield Buffer.from('\r\n');
    }
    yield tail;
  }
  return { body: Readable.from(generate(), { objectMode: false }), length, contentType: `multipart/form-data; boundary=${boundary}` };
}
