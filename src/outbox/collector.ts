// The `http` and `presigned` targets (docs/outbox.md): a PUT of the file's bytes with
// Content-MD5, to a URL made from the config's template (`http`), or to a URL the collector
// presigns for this file (`presigned`: no storage credential on the device, and its clock
// does not matter). A 2xx verifies the upload.
import type { UrlTarget } from './config.ts';
import { type Job, type Target, TargetError, storeText } from './target.ts';
import { caOf, send } from './transfer.ts';

const withoutQuery = (url: string) => url.replace(/[?#].*$/, '');

/** `{deviceId}` and `{path}` filled, each path segment percent-encoded. */
export function fillUrl(template: string, deviceId: string, rel: string): string {
  return template
    .replaceAll('{deviceId}', encodeURIComponent(deviceId))
    .replaceAll('{path}', rel.split('/').map(encodeURIComponent).join('/'));
}

interface Presigned {
  url: string;
  method: string;
  headers: Record<string, string>;
  expiresAtMs: number;
  /** The file version it was asked for (size and modification time). */
  version: string;
}

export class Collector implements Target {
  /** Presigned URLs kept until their expiresAt, one per file. */
  private readonly presigned = new Map<string, Presigned>();

  constructor(
    private readonly t: UrlTarget,
    private readonly token: string,
    private readonly deviceId: string,
  ) {}

  async ship(job: Job): Promise<string> {
    const d = await job.digests();
    if (this.t.type === 'http') {
      const url = fillUrl(this.t.url, this.deviceId, job.rel);
      await this.put(job, url, 'PUT', { authorization: `Bearer ${this.token}` }, d.md5);
      return withoutQuery(url);
    }
    for (let fresh = false; ; fresh = true) {
      const p = await this.presign(job, d, fresh);
      try {
        await this.put(job, p.url, p.method, p.headers, d.md5);
        this.presigned.delete(job.rel);
        return withoutQuery(p.url);
      } catch (err) {
        // A 403 from the store: the URL expired early or was revoked; one new URL per attempt.
        // Any other failure keeps the URL for the next attempt, until its expiresAt.
        const refused = err instanceof TargetError && err.status === 403;
        if (refused) this.presigned.delete(job.rel);
        if (fresh || !refused) throw err;
      }
    }
  }

  private async put(job: Job, url: string, method: string, headers: Record<string, string>, md5: string): Promise<void> {
    const a = await send({
      method,
      url: new URL(url),
      headers: { 'content-type': 'application/octet-stream', 'content-md5': md5, ...headers },
      body: { file: job.abs, start: 0, end: job.size },
      ca: caOf(this.t.caFile),
      limit: job.limit,
      signal: job.signal,
      onBytes: (n) => job.onBytes(n),
    });
    if (a.status < 200 || a.status > 299) throw storeText(a.status, a.body);
  }

  private async presign(job: Job, d: { sha256: string; md5: string }, fresh: boolean): Promise<Presigned> {
    const version = `${job.size}:${job.mtimeMs}`;
    const kept = this.presigned.get(job.rel);
    if (!fresh && kept && kept.version === version && kept.expiresAtMs > Date.now() + 5_000) return kept;
    const body = Buffer.from(
      JSON.stringify({ deviceId: this.deviceId, path: job.rel, sizeBytes: job.size, sha256: d.sha256, contentMd5: d.md5 }),
    );
    const a = await send({
      method: 'POST',
      url: new URL(this.t.url),
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
      body,
      ca: caOf(this.t.caFile),
      limit: job.limit,
      signal: job.signal,
    });
    if (a.status < 200 || a.status > 299) throw storeText(a.status, a.body);
    let answer: { url?: unknown; method?: unknown; headers?: unknown; expiresAt?: unknown };
    try {
      answer = JSON.parse(a.body) as typeof answer;
    } catch {
      throw new TargetError(`the collector's answer is not JSON: ${a.body.slice(0, 100)}`);
    }
    if (typeof answer.url !== 'string' || !/^https?:\/\//.test(answer.url)) throw new TargetError('the collector answered no url');
    const headers: Record<string, string> = {};
    if (answer.headers && typeof answer.headers === 'object') {
      for (const [k, v] of Object.entries(answer.headers)) if (typeof v === 'string') headers[k.toLowerCase()] = v;
    }
    const expiresAtMs = typeof answer.expiresAt === 'string' ? Date.parse(answer.expiresAt) : Number.NaN;
    const p: Presigned = {
      url: answer.url,
      method: answer.method === 'POST' ? 'POST' : 'PUT',
      headers,
      expiresAtMs: Number.isNaN(expiresAtMs) ? Date.now() + 60_000 : expiresAtMs,
      version,
    };
    this.presigned.set(job.rel, p);
    return p;
  }
}
