// Response header values for downloads: Content-Disposition (RFC 6266/8187) and Range (RFC 9110 §14).

/** `attachment; filename="..."`, plus `filename*=UTF-8''...` for a name outside printable ASCII. */
export function contentDisposition(name: string): string {
  const plain = /^[\x20-\x7e]*$/.test(name);
  // The quoted fallback must stay ASCII (Node's setHeader throws otherwise) with `"` and `\` escaped.
  const fallback = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '\\$&');
  let value = `attachment; filename="${fallback}"`;
  if (!plain) {
    const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
    value += `; filename*=UTF-8''${encoded}`;
  }
  return value;
}

export interface ByteRange {
  start: number;
  end: number;
}

/**
 * One `bytes=` range against a size. null: no usable Range (absent, malformed or several
 * ranges), so the whole file goes out with 200, as RFC 9110 allows. 'unsatisfiable': 416.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | null | 'unsatisfiable' {
  if (header === undefined) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const last = m[2] === '' ? size - 1 : Number(m[2]);
  if (m[2] !== '' && last < start) return null; // "bytes=5-2" is invalid syntax, not unsatisfiable
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(last, size - 1) };
}
