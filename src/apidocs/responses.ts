// Building blocks of the document's responses: error answers grouped by status, with the
// exact texts taken from the one catalogue (src/http/errors.ts), never copied.
import { Errors, TOKEN_REFUSALS, type HttpError, type TokenRefusal } from '../http/errors.ts';

type Obj = Record<string, unknown>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export const json = (schema: Obj, extra: Obj = {}) => ({ 'application/json': { schema, ...extra } });

const header = (description: string, schema: Obj = { type: 'string' }) => ({ description, schema });

/** The texts of a 401: every reason the bearer check gives (src/http/errors.ts). */
export const AUTH_FAILURES = (Object.keys(TOKEN_REFUSALS) as TokenRefusal[]).map((why) => Errors.unauthorized(why));

const REASONS: Record<number, string> = {
  400: 'Bad request',
  401: 'Missing, malformed, forged, expired or revoked token',
  403: 'Forbidden (the credential lacks the scope, or the path is outside its directory)',
  404: 'Not found',
  409: 'Conflict',
  412: 'Precondition failed',
  413: 'Too large',
  416: 'Range not satisfiable',
  429: 'Too many failed logins',
  500: 'Unexpected failure (detail only in the log)',
  503: 'Unavailable',
  507: 'Insufficient storage',
};

const HEADER_DOCS: Record<string, string> = {
  'WWW-Authenticate': '`Bearer` on a 401; `Bearer error="insufficient_scope", scope="<scope>"` on a 403 of scope (RFC 6750)',
  'Retry-After': 'seconds to wait before trying again',
  'Content-Range': '`bytes */<size>`',
  Allow: 'the methods the path accepts',
};

/**
 * One response per status, each listing its texts as examples (`<...>` marks the
 * variable part) and the headers those errors carry.
 */
export function errorResponses(errors: HttpError[], notes: Record<number, string> = {}): Obj {
  const byStatus = new Map<number, HttpError[]>();
  for (const err of [...errors, Errors.internal()]) {
    const list = byStatus.get(err.status) ?? [];
    if (!list.some((e) => e.message === err.message)) list.push(err);
    byStatus.set(err.status, list);
  }
  const out: Obj = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const texts = list.map((e) => `\`${e.message}\``).join('; ');
    const headers: Obj = {};
    for (const e of list) {
      for (const name of Object.keys(e.headers)) {
        // A header that only some of this status's errors carry is not required of the answer.
        const always = list.every((x) => name in x.headers);
        headers[name] = { ...header(HEADER_DOCS[name] ?? name), ...(always ? {} : { required: false }) };
      }
    }
    const examples: Obj = {};
    list.forEach((e, i) => {
      examples[`e${i + 1}`] = { summary: e.message, value: { error: e.message } };
    });
    out[String(status)] = {
      description: `${notes[status] ?? REASONS[status] ?? 'Error'}: ${texts}`,
      ...(Object.keys(headers).length ? { headers } : {}),
      content: json(ref('Error'), { examples }),
    };
  }
  return out;
}

/** The file's validators (RFC 9110 §8.8), on 200, 206 and 304 answers to a download. */
export const VALIDATOR_HEADERS = {
  ETag: header('strong entity tag of the file (inode, size, modification time)'),
  'Last-Modified': header("HTTP-date of the file's last modification"),
};

/** The headers of a successful download (docs/api.md#download). */
export const DOWNLOAD_HEADERS = {
  ...VALIDATOR_HEADERS,
  'Content-Disposition': header('`attachment; filename="<file_name>"`, plus `filename*=UTF-8\'\'...` for a name outside printable ASCII'),
  'Content-Type': header('the type derived from the file extension; `application/octet-stream` when none'),
  'Content-Length': header('size in bytes of the body', { type: 'integer' }),
  'Content-Description': header('`File Transfer`', { const: 'File Transfer' }),
  'Content-Transfer-Encoding': header('`binary`', { const: 'binary' }),
};

export const RANGE_HEADERS = {
  ...DOWNLOAD_HEADERS,
  'Content-Range': header('`bytes <first>-<last>/<size>`'),
};
