// The web interface's files as answers: each in brotli, gzip and (made on first use) plain,
// with a strong ETag per encoding (RFC 9110 §8.8.3: representations that differ in
// Content-Encoding are different representations, so their strong validators differ).
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { pageFiles } from './page-files.ts';
import { PAGE_FILES, TYPES, type PageFile } from './page-names.ts';

export type Coding = 'br' | 'gzip' | 'identity';

export interface Asset {
  type: string;
  /** The body and its ETag in one encoding. */
  body(coding: Coding): { bytes: Buffer; etag: string };
}

function asset(name: PageFile, gzip: Buffer, br: Buffer): Asset {
  const tag = createHash('sha256').update(gzip).digest('base64url').slice(0, 22);
  const etags = { br: `"${tag}-br"`, gzip: `"${tag}-gz"`, identity: `"${tag}"` };
  let plain: Buffer | undefined;
  return {
    type: TYPES[name],
    body: (coding) => ({
      bytes: coding === 'br' ? br : coding === 'gzip' ? gzip : (plain ??= gunzipSync(gzip)),
      etag: etags[coding],
    }),
  };
}

/** The page's files by name, made once (loaded through src/util/lazy.ts by the routes). */
export async function pageAssets(): Promise<Map<string, Asset>> {
  const files = await pageFiles();
  return new Map(PAGE_FILES.map((name) => {
    const encoded = files.get(name);
    if (!encoded) throw new Error(`web interface: ${name} is missing from the build`);
    return [name, asset(name, encoded.gzip, encoded.br)];
  }));
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
