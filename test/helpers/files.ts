// Helpers for the file-route tests: download/upload requests, multipart bodies, directory snapshots.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, lstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { rawRequest } from './http.ts';

export const BOUNDARY = '----da-test-boundary-7MA4YWxkTrZu0gW';

export interface FormPart {
  name: string;
  value: string | Buffer;
  filename?: string;
  extraHeaders?: string;
}

/** A multipart/form-data body with the parts in the given order. */
export function multipart(parts: FormPart[], boundary = BOUNDARY): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const fn = p.filename === undefined ? '' : `; filename="${p.filename}"`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${fn}\r\n${p.extraHeaders ?? ''}` +
          (p.filename === undefined ? '' : 'Content-Type: application/octet-stream\r\n') +
          '\r\n',
      ),
    );
    chunks.push(Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export async function download(
  url: string,
  token: string,
  query: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Response> {
  return fetch(`${url}/api/download${query === '' ? '' : '?' + query}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...headers },
  });
}

export async function upload(url: string, token: string, parts: FormPart[]): Promise<Response> {
  return fetch(`${url}/api/upload`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
    body: new Uint8Array(multipart(parts)),
  });
}

/** Status and body of a raw HTTP answer (from rawRequest). */
export function parseRaw(raw: string): { status: number; headers: string; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  return { status: Number(raw.slice(9, 12)), headers: raw.slice(0, end).toLowerCase(), body: raw.slice(end + 4) };
}

/** A raw multipart POST: the exact head given, then `body`; resolves with what came back. */
export async function rawUpload(port: number, token: string, body: Buffer, extraHead = '', waitMs = 3000) {
  const head =
    `POST /api/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n${extraHead}\r\n`;
  return parseRaw(await rawRequest(port, Buffer.concat([Buffer.from(head), body]), waitMs));
}

/** Every entry below `dir` with its type and content hash: compared before and after. */
export function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      const st = lstatSync(full);
      const r = rel + name;
      if (st.isDirectory()) {
        out.push(`${r}/`);
        walk(full, r + '/');
      } else if (st.isSymbolicLink()) out.push(`${r} -> ${readlinkSync(full)}`);
      else if (st.isFile())
        out.push(
          `${r} ${st.size} ${(st.mode & 0o777).toString(8)} ${createHash('sha256').update(readFileSync(full)).digest('hex').slice(0, 16)}`,
        );
      else out.push(`${r} (special)`);
    }
  };
  walk(dir, '');
  return out;
}
