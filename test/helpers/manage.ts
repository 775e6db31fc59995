// Calls of the file-managing routes (DELETE /api/v1/files, POST .../mkdir, .../move) with one token.
import * as assert from 'uvu/assert';

export interface Answer {
  status: number;
  text: string;
  json: unknown;
  headers: Headers;
}

export interface Call {
  del(path: string, query?: string): Promise<Answer>;
  mkdir(path: string): Promise<Answer>;
  move(body: Record<string, unknown>): Promise<Answer>;
  /** A POST to /api/v1/files/<what> with this body (a string is sent as is). */
  post(what: 'mkdir' | 'move', body: unknown): Promise<Answer>;
  raw(method: string, pathAndQuery: string): Promise<Answer>;
  /** Asserts the exact status and `{"error": text}`. */
  expect(pending: Promise<Answer>, status: number, error: string, what?: string): Promise<void>;
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, headers: res.headers };
}

export function manage(url: string, token: string): Call {
  const auth = { Authorization: `Bearer ${token}` };
  const call: Call = {
    del: async (path, query = '') =>
      answer(
        await fetch(`${url}/api/v1/files?path=${encodeURIComponent(path)}${query ? '&' + query : ''}`, { method: 'DELETE', headers: auth }),
      ),
    mkdir: (path) => call.post('mkdir', { path }),
    move: (body) => call.post('move', body),
    post: async (what, body) =>
      answer(
        await fetch(`${url}/api/v1/files/${what}`, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        }),
      ),
    raw: async (method, pathAndQuery) => answer(await fetch(`${url}${pathAndQuery}`, { method, headers: auth })),
    async expect(pending, status, error, what = '') {
      const r = await pending;
      assert.is(r.status, status, `${what}: ${r.status} ${r.text}`);
      assert.equal(r.json, { error }, what);
    },
  };
  return call;
}
