// Clients that take their time or give up: uploads sent at a chosen pace, downloads read
// up to a chosen offset, for the fault tests (kills, SIGTERM under load, aborts).
import { connect, type Socket } from 'node:net';
import { BOUNDARY } from './files.ts';

export interface Flow {
  sock: Socket;
  /** Everything the server answered, once the connection is gone. */
  done: Promise<string>;
  bytes(): number;
}

/**
 * A chunked multipart upload of `total` bytes (each byte `fill`) to `savePath`, sent in
 * 64 KiB blocks, one every `everyMs`; `stopAfter` bytes and then silence (the socket stays).
 */
export function paceUpload(
  port: number,
  token: string,
  savePath: string,
  total: number,
  fill: string,
  opts: { everyMs?: number; stopAfter?: number } = {},
): Flow {
  const sock = connect(port, '127.0.0.1');
  let out = '';
  let sent = 0;
  const done = new Promise<string>((resolve) => {
    sock.on('data', (d) => {
      out += d.toString('latin1');
    });
    sock.on('error', () => resolve(out));
    sock.on('close', () => resolve(out));
  });
  const chunk = (b: Buffer) => sock.write(Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]));
  sock.write(
    `POST /api/upload HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nTransfer-Encoding: chunked\r\n\r\n`,
  );
  chunk(
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="saveToPath"\r\n\r\n${savePath}\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="myFile"; filename="f.bin"\r\n\r\n`,
    ),
  );
  const block = Buffer.alloc(64 * 1024, fill);
  const step = () => {
    if (sock.destroyed || out !== '') return;
    if (opts.stopAfter !== undefined && sent >= opts.stopAfter) return;
    if (sent >= total) {
      chunk(Buffer.from(`\r\n--${BOUNDARY}--\r\n`));
      sock.write('0\r\n\r\n');
      return;
    }
    const piece = block.subarray(0, Math.min(block.length, total - sent));
    sent += piece.length;
    const more = chunk(piece);
    if (opts.everyMs) setTimeout(step, opts.everyMs);
    else if (more) setImmediate(step);
    else sock.once('drain', step);
  };
  step();
  return { sock, done, bytes: () => sent };
}

/** A download read until `stopAt` body bytes, then either cut (`abort`) or left unread (paused). */
export function partialDownload(port: number, token: string, filepath: string, stopAt: number, abort: boolean): Flow {
  const sock = connect(port, '127.0.0.1');
  let head = '';
  let body = 0;
  let inBody = false;
  const done = new Promise<string>((resolve) => {
    sock.on('data', (d: Buffer) => {
      if (!inBody) {
        head += d.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        if (end === -1) return;
        inBody = true;
        body = Buffer.byteLength(head.slice(end + 4), 'latin1');
        head = head.slice(0, end);
      } else body += d.length;
      if (body >= stopAt) {
        if (abort) sock.destroy();
        else sock.pause();
      }
    });
    sock.on('error', () => resolve(head));
    sock.on('close', () => resolve(head));
  });
  sock.write(
    `GET /api/download?filepath=${encodeURIComponent(filepath)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n` +
      `Authorization: Bearer ${token}\r\n\r\n`,
  );
  return { sock, done, bytes: () => body };
}
