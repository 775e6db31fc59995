// Raw HTTP helpers for what fetch cannot send (bad framing, exact headers, slow bodies).
import { connect, createServer } from 'node:net';
import { request, type IncomingHttpHeaders } from 'node:http';

/** Sends raw bytes and resolves with everything the server answered before closing or `waitMs`. */
export function rawRequest(port: number, data: string | Buffer, waitMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    let out = '';
    const timer = setTimeout(() => {
      sock.destroy();
      resolve(out);
    }, waitMs);
    sock.on('data', (d) => {
      out += d.toString('latin1');
    });
    sock.on('error', (err) => {
      clearTimeout(timer);
      out ? resolve(out) : reject(err);
    });
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    sock.write(data);
  });
}

/**
 * Writes `head` and the whole `body` at once on a fresh connection, without waiting for
 * an answer, and resolves with all that came back when the connection ends; `cut` closes
 * it 30 ms (or, given a number, that many ms) after the body was handed to the kernel.
 */
export function sendRaw(port: number, head: string, body: Buffer, cut: boolean | number = false): Promise<string> {
  const after = cut === true ? 30 : cut === false ? undefined : cut;
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    let out = '';
    sock.on('data', (d) => {
      out += d.toString('latin1');
    });
    sock.on('error', () => resolve(out));
    sock.on('close', () => resolve(out));
    sock.write(head);
    sock.write(body, () => {
      if (after !== undefined) setTimeout(() => sock.destroy(), after);
    });
  });
}

export function jsonPost(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

/** A GET whose body is the bytes as sent (fetch always asks for gzip and inflates). */
export function getRaw(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

/** A loopback port free at this moment (listened on, then closed), for a program that takes a port number. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
