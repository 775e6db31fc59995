// AWS Signature Version 4 for S3 requests (docs/decisions.md, "Signing S3 requests": our own
// ~60 lines rather than aws4). The caller gives the body's real SHA-256: never UNSIGNED-PAYLOAD.
import { createHash, createHmac } from 'node:crypto';
import { isoTime } from '../util/time.ts';

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

export interface ToSign {
  method: string;
  host: string;
  /** The path as sent, already encoded (encodeKeyPath). */
  path: string;
  /** Query parameters, unencoded. */
  query: Record<string, string>;
  headers: Record<string, string>;
  /** Hex SHA-256 of the body. */
  payloadHash: string;
}

/** RFC 3986 encoding as SigV4 wants it: every byte but A-Z a-z 0-9 - . _ ~ percent-encoded. */
export function uriEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** An object key as a request path: each segment encoded, the slashes kept (S3 does not encode twice). */
export const encodeKeyPath = (key: string): string => key.split('/').map(uriEncode).join('/');

export const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data).digest();

/** `20261128T014700Z` */
export const amzDate = (d: Date): string =>
  isoTime(d.getTime())
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

// The signing key changes once a day per region: one kept, as aws4 keeps its cache.
let cachedKey: { id: string; key: Buffer } | undefined;
function signingKey(c: Credentials, day: string): Buffer {
  const id = `${c.secretAccessKey}\n${day}\n${c.region}`;
  if (cachedKey?.id === id) return cachedKey.key;
  const key = hmac(hmac(hmac(hmac(`AWS4${c.secretAccessKey}`, day), c.region), 's3'), 'aws4_request');
  cachedKey = { id, key };
  return key;
}

/** The headers to add: host, x-amz-date, x-amz-content-sha256 and Authorization. */
export function sign(req: ToSign, c: Credentials, now: Date): Record<string, string> {
  const date = amzDate(now);
  const day = date.slice(0, 8);
  const all: Record<string, string> = { host: req.host, 'x-amz-date': date, 'x-amz-content-sha256': req.payloadHash };
  for (const [k, v] of Object.entries(req.headers)) all[k.toLowerCase()] = String(v).trim().replace(/\s+/g, ' ');
  const names = Object.keys(all).sort();
  const signedHeaders = names.join(';');
  const query = Object.keys(req.query)
    .sort()
    .map((k) => `${uriEncode(k)}=${uriEncode(req.query[k]!)}`)
    .join('&');
  const canonical = [req.method, req.path, query, names.map((n) => `${n}:${all[n]}\n`).join(''), signedHeaders, req.payloadHash].join('\n');
  const scope = `${day}/${c.region}/s3/aws4_request`;
  const toSign = `AWS4-HMAC-SHA256\n${date}\n${scope}\n${sha256Hex(canonical)}`;
  const signature = createHmac('sha256', signingKey(c, day)).update(toSign).digest('hex');
  return {
    'x-amz-date': date,
    'x-amz-content-sha256': req.payloadHash,
    Authorization: `AWS4-HMAC-SHA256 Credential=${c.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}
