// One HTTP exchange with the agent over node:http/https: the bearer header, the trust of
// trust.ts, streaming bodies both ways, and every failure turned into ApiError,
// ConnectionError or TrustError.
import type * as HttpTypes from 'node:http';
import { http, https } from './builtins.ts';
import type { Readable, Writable } from 'node:stream';
import { ApiError, ConnectionError, TrustError } from './errors.ts';
import { agentFor, checkTrust, connectionError, type Trust } from './trust.ts';

export interface Exchange {
  method: string;
  /** Path with its query, e.g. `/api/v1/files/list?path=a`. */
  path: string;
  headers?: Record<string, string | number>;
  /**
   * A whole body, a stream, or a function that writes the body to the request (then
   * ended); the length of the last two is given in headers['Content-Length'].
   */
  body?: string | Buffer | Readable | ((out: Writable) => Promise<void>);
  /** Send no Authorization header (login, health). */
  anonymous?: boolean;
  signal?: AbortSignal;
  /** Idle time on the socket before the exchange fails (ms); 0: none. */
  timeoutMs?: number;
}

/** Failures of a request sent on a reused keep-alive connection (retried once when safe). */
const onReusedSocket = new WeakSet<Error>();

export class Transport {
  readonly base: URL;
  private pooled?: HttpTypes.Agent;

  constructor(
    url: string | URL,
    readonly trust: Trust = {},
    public token?: string,
    readonly timeoutMs = 60_000,
  ) {
    this.base = new URL(url);
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:') throw new TypeError(`not an http(s) URL: ${url}`);
    checkTrust(this.base, trust);
  }

  /** The keep-alive pool of node:http(s), made on first use. */
  private get pool(): HttpTypes.Agent {
    this.pooled ??= agentFor(this.base, this.trust);
    return this.pooled;
  }

  /**
   * Sends the request and resolves with the answer once its head is in: any status. A GET
   * or HEAD that fails on a reused keep-alive connection before any answer is sent once
   * more on a new one: the agent closes idle connections after 5 s, and a request can
   * leave just as the close arrives (Node's `reusedSocket` case).
   */
  async send(ex: Exchange): Promise<HttpTypes.IncomingMessage> {
    try {
      return await this.sendOnce(ex);
    } catch (err) {
      const retry =
        onReusedSocket.has(err as Error) &&
        (ex.method === 'GET' || ex.method === 'HEAD') &&
        err instanceof ConnectionError &&
        !ex.signal?.aborted;
      if (!retry) throw err;
      return this.sendOnce(ex);
    }
  }

  /** The headers every request carries (User-Agent, the bearer token) with the exchange's own. */
  headersOf(ex: Pick<Exchange, 'headers' | 'anonymous'>): Record<string, string | number> {
    const headers: Record<string, string | number> = { 'User-Agent': 'dagent', ...ex.headers };
    if (!ex.anonymous && this.token) headers.Authorization = `Bearer ${this.token}`;
    return headers;
  }

  private sendOnce(ex: Exchange): Promise<HttpTypes.IncomingMessage> {
    const u = new URL(ex.path, this.base);
    const headers = this.headersOf(ex);
    if (typeof ex.body === 'string' || Buffer.isBuffer(ex.body)) headers['Content-Length'] = Buffer.byteLength(ex.body);
    const mod = u.protocol === 'https:' ? https() : http();
    return new Promise((resolve, reject) => {
      const req = mod.request(u, { method: ex.method, headers, agent: this.pool, signal: ex.signal }, resolve);
      const timeout = ex.timeoutMs ?? this.timeoutMs;
      if (timeout > 0) req.setTimeout(timeout, () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
      req.once('error', (err: NodeJS.ErrnoException) => {
        const failure = this.failure(err);
        if (req.reusedSocket) onReusedSocket.add(failure);
        reject(failure);
      });
      if (ex.body === undefined) req.end();
      else if (typeof ex.body === 'string' || Buffer.isBuffer(ex.body)) req.end(ex.body);
      else if (typeof ex.body === 'function')
        ex.body(req).then(
          () => req.end(),
          (err: Error) => req.destroy(err),
        );
      else {
        ex.body.once('error', (err) => req.destroy(err));
        ex.body.pipe(req);
      }
    });
  }

  /** send(), then an ApiError for any status but 2xx (its body read for the `error` text). */
  async ok(ex: Exchange): Promise<HttpTypes.IncomingMessage> {
    const res = await this.send(ex);
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) return res;
    throw await apiError(res);
  }

  /** A JSON exchange: the body sent as JSON, the answer parsed (undefined for 204). */
  async json<T>(method: string, path: string, body?: unknown, opts: { anonymous?: boolean } = {}): Promise<T> {
    const res = await this.ok({
      method,
      path,
      anonymous: opts.anonymous,
      headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await readText(res);
    if (res.statusCode === 204 || text === '') return undefined as T;
    return JSON.parse(text) as T;
  }

  /** Turns a socket-level failure into the error a caller sorts by. */
  failure(err: NodeJS.ErrnoException): Error {
    if (err instanceof TrustError || err instanceof ConnectionError || err instanceof ApiError) return err;
    if (err.name === 'AbortError') return err;
    const code = err.code ?? '';
    // Certificate failures of a CA-trusting connection (expired, unknown issuer, wrong name).
    if (/CERT|SELF_SIGNED|UNABLE_TO|ERR_TLS_CERT|HOSTNAME/.test(code)) {
      return new TrustError(
        `${this.base.host}: the certificate is not trusted (${code}: ${err.message}). ` +
          'Log in with --pin (a self-signed device) or --ca FILE.',
      );
    }
    return connectionError(this.base, err);
  }

  close(): void {
    this.pooled?.destroy();
  }
}

export async function readText(res: HttpTypes.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The ApiError of a non-2xx answer: its JSON `error` text, else the status line. */
export async function apiError(res: HttpTypes.IncomingMessage): Promise<ApiError> {
  const status = res.statusCode ?? 0;
  let text = '';
  try {
    text = await readText(res);
  } catch {
    // The connection broke while reading an error body: the status alone still says what happened.
  }
  return ApiError.of(status, res.statusMessage ?? '', text, res.headers);
}
