// The page's only way to the agent: fetch with the bearer header. The token lives in
// sessionStorage alone (docs/api.md#web-interface), never in a URL; any 401 sends the user to the login form.
import type { Me } from './types.ts';

const KEY = 'device-agent.token';
/** Who logged in (login's `user`: role, scopes, directory): what the page offers follows it. */
const USER_KEY = 'device-agent.user';

function storedUser(): Me | null {
  try {
    const u = JSON.parse(sessionStorage.getItem(USER_KEY) ?? 'null') as Me | null;
    return u && typeof u.username === 'string' && Array.isArray(u.scopes) ? u : null;
  } catch {
    return null; // not ours, or from an older page: log in again
  }
}

export const session = {
  token: (): string | null => sessionStorage.getItem(KEY),
  user: storedUser,
  set: (token: string, user: Me) => {
    sessionStorage.setItem(KEY, token);
    sessionStorage.setItem(USER_KEY, JSON.stringify(user));
  },
  clear: () => {
    sessionStorage.removeItem(KEY);
    sessionStorage.removeItem(USER_KEY);
  },
  /** Whether the logged-in user has `scope` (false when no user is known). */
  has: (scope: string): boolean => storedUser()?.scopes.includes(scope) ?? false,
};

/** A refusal from the API, with its own error text. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let unauthorized: () => void = () => {};
/** What a 401 does (the app shows the login form). */
export function onUnauthorized(fn: () => void): void {
  unauthorized = fn;
}

/** The API's `error` text, else the status line. */
async function errorText(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
  } catch {
    // not JSON (a proxy's page): the status line says enough
  }
  return `${res.status} ${res.statusText}`.trim();
}

/** Turns a 401 into a return to the login form, and any other refusal into an ApiError. */
export async function check(res: Response, isLogin = false): Promise<Response> {
  if (res.ok) return res;
  const text = await errorText(res);
  if (res.status === 401 && !isLogin) {
    session.clear();
    unauthorized();
  }
  throw new ApiError(res.status, text);
}

export function authHeaders(extra: Record<string, string> = {}): Record<string, string> {
  const token = session.token();
  return token ? { ...extra, Authorization: `Bearer ${token}` } : extra;
}

export async function request(path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(path, { ...init, headers: authHeaders(init.headers as Record<string, string> | undefined) });
  return check(res);
}

export async function getJson<T>(path: string): Promise<T> {
  return (await request(path, { headers: { Accept: 'application/json' } })).json() as Promise<T>;
}

export async function deleteJson(path: string): Promise<void> {
  await request(path, { method: 'DELETE', headers: { Accept: 'application/json' } });
}

export async function postJson<T>(path: string, body?: unknown): Promise<T> {
  const res = await request(path, {
    method: 'POST',
    headers: { Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return res.json() as Promise<T>;
}

/** A request whose answer has no body worth reading (204), or a refusal as ApiError. */
export async function send(path: string, method: string, body?: unknown): Promise<void> {
  await request(path, {
    method,
    headers: { Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

export async function login(username: string, password: string): Promise<void> {
  const res = await fetch('/api/v1/agentusers/loginusertoagent', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  await check(res, true);
  const { token, user } = (await res.json()) as { token: string; user: Me };
  session.set(token, user);
}

/** A file's bytes, fetched with the bearer header (the token never goes into a URL). */
export async function download(filepath: string): Promise<Blob> {
  return (await request(`/api/download?filepath=${encodeURIComponent(filepath)}`)).blob();
}

/** Offers a Blob as a file to save, through a short-lived blob: URL. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * Sends files into a directory (saveToPath ending in "/": each under its own name, docs/api.md#upload)
 * by XMLHttpRequest, the one browser API that reports upload progress.
 */
export function upload(dir: string, files: readonly File[], progress: (fraction: number) => void): Promise<void> {
  const form = new FormData();
  form.append('saveToPath', dir === '' ? './' : `${dir}/`);
  for (const f of files) form.append('myFile', f, f.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/upload');
    for (const [k, v] of Object.entries(authHeaders({ Accept: 'application/json' }))) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) progress(e.loaded / e.total);
    };
    xhr.onerror = () => reject(new ApiError(0, 'the upload failed: the connection to the agent was lost'));
    xhr.onload = () => {
      const res = new Response(xhr.status === 204 ? null : xhr.responseText, { status: xhr.status, statusText: xhr.statusText });
      check(res).then(() => resolve(), reject);
    };
    xhr.send(form);
  });
}
