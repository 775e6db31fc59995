// Serving files built into the executable (the web interface at / and Swagger UI at
// /docs), shaped like sirv: a table of precompressed files made once, and one send()
// that negotiates the encoding, answers If-None-Match with 304 and writes the headers.
// Each encoding has its own strong ETag (RFC 9110 §8.8.3: representations that differ in
// Content-Encoding are different representations, so their strong validators differ).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { crypto } from '../util/crypto.ts';

export type Coding = 'br' | 'gzip' | 'identity';

/** A file as the build made it: gzip always, brotli when the build made one. */
export interface BuiltFile {
  type: string;
  gzip: Buffer;
  br?: Buffer;
}

export interface StaticFile {
  type: string;
  /** The body and its ETag in one encoding (the plain bytes are made on first use). */
  body(coding: Coding): { bytes: Buffer; etag: string; coding: Coding };
}

export function staticFile({ type, gzip, br }: BuiltFile): StaticFile {
  const tag = crypto().createHash('sha256').update(gzip).digest('base64url').slice(0, 22);
  const etags = { br: `"${tag}-br"`, gzip: `"${tag}-gz"`, identity: `"${tag}"` };
  let plain: Buffer | undefined;
  return {
    type,
    body: (wanted) => {
      const coding = wanted === 'br' && !br ? 'gzip' : wanted;
      const bytes = coding === 'br' ? br! : coding === 'gzip' ? gzip : (plain ??= gunzipSync(gzip));
      return { bytes, etag: etags[coding], coding };
    },
  };
}

/** The q-value a client gives a coding (RFC 9110 §12.5.3): its own, else `*`'s, else none. */
function quality(header: string, coding: string): number | undefined {
  let star: number | undefined;
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    const v = Number.isFinite(value) ? value : 0;
    if (name === coding) return v;
    if (name === '*') star = v;
  }
  return star;
}

/** Brotli when taken, else gzip, else the plain bytes. */
export function chooseCoding(acceptEncoding: string | undefined): Coding {
  if (!acceptEncoding) return 'identity';
  if ((quality(acceptEncoding, 'br') ?? 0) > 0) return 'br';
  if ((quality(acceptEncoding, 'gzip') ?? 0) > 0) return 'gzip';
  return 'identity';
}

/** If-None-Match holds the current ETag (weak comparison, RFC 9110 §13.1.2) or `*`. */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

/**
 * Answers with `file` in the best encoding the client takes, or 304. `headers` are the
 * caller's (security headers, Cache-Control); Vary, ETag, type and length are added here.
 */
export function sendStatic(req: IncomingMessage, res: ServerResponse, file: StaticFile, headers: Record<string, string>): void {
  const { bytes, etag, coding } = file.body(chooseCoding(req.headers['accept-encoding']));
  const common = { ...headers, ETag: etag, Vary: 'Accept-Encoding' };
  if (notModified(req.headers['if-none-match'], etag)) {
    res.writeHead(304, common);
    res.end();
    return;
  }
  res.writeHead(200, {
    ...common,
    'Content-Type': file.type,
    'Content-Length': bytes.length,
    ...(coding === 'identity' ? {} : { 'Content-Encoding': coding }),
  });
  res.end(bytes);
}
