// A real S3 store for the outbox tests: s3rver (npm) behind a strict checking proxy of our own,
// and rclone (Debian) as an independent client to read back what landed. s3rver checks the
// signature but neither the payload hash nor Content-MD5; the proxy checks all three, the
// signature recomputed by aws4 (another implementation than the agent's) from the secret.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import aws4 from 'aws4';
import S3rver from 's3rver';
import { rcloneEnv } from '../../bench/rclone.mjs';

export const ACCESS_KEY = 'S3RVER';
export const SECRET = 'S3RVER';
export const BUCKET = 'field';

export interface Seen {
  method: string;
  url: string;
  bodyBytes: number;
  status: number;
}

export interface Store {
  /** The proxy's URL: the agent's endpoint. */
  endpoint: string;
  /** s3rver's own URL (rclone reads it directly). */
  direct: string;
  seen: Seen[];
  /** Refusals of the proxy's checks (should stay empty). */
  refused: string[];
  /** Answer every request with this status (503 SlowDown) until set back to 0. */
  failWith: number;
  /** Called before a request is forwarded; may wait (holding a part), cut it, or answer an S3 error instead. */
  hold?: (method: string, url: string) => Promise<'pass' | 'cut' | { status: number; code: string; message: string }>;
  close(): Promise<void>;
}

const MIN_PART = 5 * 1024 * 1024;

function verify(method: string, url: string, headers: Record<string, string | string[] | undefined>, body: Buffer): string | undefined {
  const auth = String(headers.authorization ?? '');
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return `unsigned or malformed Authorization: ${auth}`;
  const [, key, , region, signedHeaders, signature] = m;
  const hash = String(headers['x-amz-content-sha256'] ?? '');
  if (hash !== createHash('sha256').update(body).digest('hex')) return `payload hash ${hash} is not the body's SHA-256`;
  if (body.length > 0 || method === 'PUT') {
    const md5 = headers['content-md5'];
    if (md5 !== createHash('md5').update(body).digest('base64')) return `Content-MD5 ${md5} does not match the body`;
  }
  const signed: Record<string, string> = {};
  for (const name of signedHeaders!.split(';')) signed[name] = String(headers[name] ?? '');
  const again = aws4.sign(
    { method, host: signed.host, path: url, service: 's3', region, headers: signed },
    { accessKeyId: key!, secretAccessKey: SECRET },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(again.headers!.Authorization))?.[1];
  if (expected !== signature) return 'signature does not match';
  return undefined;
}

const xmlError = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;

export async function startStore(): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), 'da-s3rver-'));
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, directory: dir, silent: true, configureBuckets: [{ name: BUCKET }] });
  const info = (await s3.run()) as AddressInfo;
  const direct = `http://127.0.0.1:${info.port}`;
  const partSizes = new Map<string, number[]>();
  const store: Store = {
    endpoint: '',
    direct,
    seen: [],
    refused: [],
    failWith: 0,
    async close() {
      await new Promise((r) => proxy.close(r));
      proxy.closeAllConnections();
      await s3.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const proxy: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const method = req.method!;
      const url = req.url!;
      const seen: Seen = { method, url, bodyBytes: body.length, status: 0 };
      store.seen.push(seen);
      const answer = (status: number, text: string) => {
        seen.status = status;
        res.writeHead(status, { 'content-type': 'application/xml' }).end(text);
      };
      if (store.failWith) return answer(store.failWith, xmlError('SlowDown', 'Please reduce your request rate.'));
      const wrong = verify(method, url, req.headers, body);
      if (wrong) {
        store.refused.push(`${method} ${url}: ${wrong}`);
        return answer(403, xmlError('SignatureDoesNotMatch', wrong));
      }
      const q = new URL(url, 'http://x').searchParams;
      const uploadId = q.get('uploadId');
      if (uploadId && q.get('partNumber')) partSizes.set(uploadId, [...(partSizes.get(uploadId) ?? []), body.length]);
      if (uploadId && method === 'POST') {
        const sizes = partSizes.get(uploadId) ?? [];
        if (sizes.slice(0, -1).some((s) => s < MIN_PART))
          return answer(400, xmlError('EntityTooSmall', 'a part but the last is under 5 MiB'));
      }
      const held = store.hold ? await store.hold(method, url) : 'pass';
      if (held === 'cut') {
        seen.status = -1;
        req.socket.destroy();
        return;
      }
      if (held !== 'pass') return answer(held.status, xmlError(held.code, held.message));
      const fwd = request(`${direct}${url}`, { method, headers: req.headers }, (up) => {
        seen.status = up.statusCode ?? 0;
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      fwd.on('error', () => res.destroy());
      fwd.end(body);
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  store.endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  return store;
}

/** rclone against s3rver directly, configured by environment (no config file). --fast-list: s3rver's
 * delimited listing leaves out some prefixes (dev-1/ was missing from a plain copy). */
export function rclone(store: Store, args: string[]): Promise<string> {
  const env = rcloneEnv(store.direct, ACCESS_KEY, SECRET);
  return new Promise((resolve, reject) =>
    execFile('rclone', args, { env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`rclone ${args.join(' ')}: ${stderr}`)) : resolve(stdout),
    ),
  );
}

/** What landed: object key -> MD5 (hex) of its bytes, as rclone reads them back. */
export async function landed(store: Store): Promise<Map<string, string>> {
  const out = mkdtempSync(join(tmpdir(), 'da-landed-'));
  try {
    await rclone(store, ['copy', '--fast-list', `store:${BUCKET}`, out]);
    const list = await rclone(store, ['lsf', '-R', '--fast-list', '--files-only', `store:${BUCKET}`]);
    const { readFileSync } = await import('node:fs');
    const map = new Map<string, string>();
    for (const key of list.split('\n').filter(Boolean))
      map.set(
        key,
        createHash('md5')
          .update(readFileSync(join(out, key)))
          .digest('hex'),
      );
    return map;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
