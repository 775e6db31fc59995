// Strict query-string reading for the file routes: each key once, escapes well formed, no NUL.
import { Errors } from '../http/errors.ts';

/** Longest path accepted from a client (Linux PATH_MAX); longer ones can only be refused later. */
export const MAX_PATH_BYTES = 4096;

function decode(raw: string, what: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    // A lone '%', '%zz' or bytes that are not UTF-8: URIError. querystring would pass them through.
    throw Errors.badField(what, 'has a malformed percent escape');
  }
}

/** Parses `?a=1&b=2` once; a repeated key is refused (querystring would hand over an array). */
export function parseQuery(search: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const text = (search ?? '').replace(/^\?/, '');
  if (text === '') return out;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decode(eq === -1 ? pair : pair.slice(0, eq), 'query');
    const value = decode(eq === -1 ? '' : pair.slice(eq + 1), key);
    if (out.has(key)) throw Errors.badField(key, 'must be given once');
    out.set(key, value);
  }
  return out;
}

/** A client path must be usable as one: no NUL, not longer than PATH_MAX. */
export function checkClientPath(value: string, field: string): string {
  if (value.includes('\0')) throw Errors.badField(field, 'must not contain NUL');
  if (Buffer.byteLength(value) > MAX_PATH_BYTES) throw Errors.badField(field, `must be at most ${MAX_PATH_BYTES} bytes`);
  return value;
}

/** Only the native file system exists; anything else is 412 as the contract says. */
export function checkFsType(value: string | undefined): void {
  if (value === undefined || value === '' || value === 'OsFs') return;
  throw Errors.noFileSystem(`unknown file system type ${JSON.stringify(value.slice(0, 64))}, only "OsFs" exists`);
}
