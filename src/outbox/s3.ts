// The S3 target (docs/outbox.md, "S3"): a PUT below 16 MiB, a multipart upload of 8 MiB parts
// from 16 MiB on, continued from the journal's last acknowledged part after a restart; each
// request signed with the body's real SHA-256 and carrying Content-MD5; a HEAD checks the size.
import type { S3Target } from './config.ts';
import { encodeKeyPath, sha256Hex, sign } from './sigv4.ts';
import { type Job, type MultipartState, type Target, TargetError, storeText } from './target.ts';
import { type Answer, caOf, type Digests, digestRange, RateLimit, type Sending, send } from './transfer.ts';
import { createHash } from 'node:crypto';

export const MULTIPART_FROM = 16 * 1024 * 1024;
export const PART_BYTES = 8 * 1024 * 1024;

const EMPTY_SHA = sha256Hex('');

export class S3 implements Target {
  constructor(
    private readonly t: S3Target,
    private readonly secret: string,
    private readonly deviceId: string,
  ) {}

  keyOf(rel: string): string {
    return this.t.prefix.replaceAll('{deviceId}', this.deviceId) + rel;
  }

  private urlOf(key: string, query: Record<string, string>): URL {
    const base = new URL(this.t.endpoint);
    const basePath = base.pathname.replace(/\/+$/, '');
    if (!this.t.pathStyle) base.hostname = `${this.t.bucket}.${base.hostname}`;
    base.pathname = `${basePath}${this.t.pathStyle ? `/${this.t.bucket}` : ''}/${encodeKeyPath(key)}`;
    const qs = Object.entries(query)
      .map(([k, v]) => (v === '' ? encodeURIComponent(k) : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`))
      .join('&');
    base.search = qs;
    return base;
  }

  private request(
    job: Pick<Job, 'signal' | 'limit' | 'onBytes'>,
    method: string,
    key: string,
    query: Record<string, string>,
    body: Sending['body'],
    digests: { sha256: string; md5?: string },
  ): Promise<Answer> {
    const url = this.urlOf(key, query);
    const headers: Record<string, string> = {};
    if (digests.md5) headers['content-md5'] = digests.md5;
    if (method === 'PUT' && !query.partNumber) headers['content-type'] = 'application/octet-stream';
    const signed = sign(
      { method, host: url.host, path: url.pathname, query, headers, payloadHash: digests.sha256 },
      { accessKeyId: this.t.accessKeyId, secretAccessKey: this.secret, region: this.t.region },
      new Date(),
    );
    return send({
      method,
      url,
      headers: { ...headers, ...signed },
      body,
      ca: caOf(this.t.caFile),
      limit: job.limit,
      signal: job.signal,
      onBytes: body && !Buffer.isBuffer(body) ? (n) => job.onBytes(n) : undefined,
    });
  }

  async ship(job: Job): Promise<string> {
    const key = this.keyOf(job.rel);
    if (job.size >= MULTIPART_FROM) await this.multipart(job, key);
    else {
      const d = await job.digests();
      const a = await this.request(job, 'PUT', key, {}, { file: job.abs, start: 0, end: job.size }, d);
      if (a.status < 200 || a.status > 299) throw storeText(a.status, a.body);
    }
    await this.checkSize(job, key);
    return key;
  }

  /** The stored object's size must be the file's: a mismatch leaves the file pending. */
  private async checkSize(job: Job, key: string): Promise<void> {
    const a = await this.request(job, 'HEAD', key, {}, undefined, { sha256: EMPTY_SHA });
    if (a.status < 200 || a.status > 299) throw new TargetError(`${a.status} HEAD ${key} after upload`, a.status);
    const stored = Number(a.headers['content-length']);
    if (stored !== job.size) throw new TargetError(`stored size ${stored} differs from the file's ${job.size}`);
  }

  private async start(job: Job, key: string): Promise<MultipartState> {
    const a = await this.request(job, 'POST', key, { uploads: '' }, undefined, { sha256: EMPTY_SHA });
    const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(a.body)?.[1];
    if (a.status !== 200 || !uploadId) throw storeText(a.status, a.body);
    const state = { key, uploadId, size: job.size, mtimeMs: job.mtimeMs, parts: [] };
    job.saveMultipart(state);
    return state;
  }

  private async multipart(job: Job, key: string): Promise<void> {
    let state = job.multipart;
    // A journal's upload for another version of the file (or another key) is not continued.
    if (state && (state.key !== key || state.size !== job.size || state.mtimeMs !== job.mtimeMs)) {
      await this.abort(job, state);
      state = undefined;
    }
    state ??= await this.start(job, key);
    const count = Math.ceil(job.size / PART_BYTES);
    for (let retried = false; ; ) {
      try {
        const rangeOf = (n: number) => ({ file: job.abs, start: (n - 1) * PART_BYTES, end: Math.min(job.size, n * PART_BYTES) });
        let next: Promise<Digests> | undefined;
        for (let n = state.parts.length + 1; n <= count; n++) {
          const range = rangeOf(n);
          const d = await (next ?? digestRange(range));
          // The next part's digests are taken while this one travels and the store stores it
          // (a read of the file and the hashing, beside the socket's and the store's work).
          next = n < count ? digestRange(rangeOf(n + 1)) : undefined;
          next?.catch(() => {}); // a part that fails ends the loop; the next one's digests are dropped
          const a = await this.request(job, 'PUT', key, { partNumber: String(n), uploadId: state.uploadId }, range, d);
          if (a.status !== 200) throw storeText(a.status, a.body);
          const etag = a.headers.etag;
          if (typeof etag !== 'string') throw new TargetError(`part ${n}: no ETag in the answer`);
          state = { ...state, parts: [...state.parts, etag] };
          job.saveMultipart(state);
        }
        await this.complete(job, state);
        job.saveMultipart(undefined);
        return;
      } catch (err) {
        // The store forgot the upload (expired, aborted by a lifecycle rule): a new one, once.
        if (!(err instanceof TargetError) || err.code !== 'NoSuchUpload' || retried) throw err;
        retried = true;
        await this.abort(job, state);
        state = await this.start(job, key);
      }
    }
  }

  private async complete(job: Job, state: MultipartState): Promise<void> {
    const xml = Buffer.from(
      `<CompleteMultipartUpload>${state.parts.map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${etag}</ETag></Part>`).join('')}</CompleteMultipartUpload>`,
    );
    const md5 = createHash('md5').update(xml).digest('base64');
    const a = await this.request(job, 'POST', state.key, { uploadId: state.uploadId }, xml, { sha256: sha256Hex(xml), md5 });
    // S3 may answer 200 with an error document when the completion fails late.
    if (a.status !== 200 || a.body.includes('<Error>')) throw storeText(a.status, a.body);
  }

  async abandon(state: MultipartState): Promise<void> {
    const io = { signal: AbortSignal.timeout(60_000), limit: new RateLimit(null), onBytes: () => {} };
    await this.request(io, 'DELETE', state.key, { uploadId: state.uploadId }, undefined, { sha256: EMPTY_SHA }).catch(() => {});
  }

  /** Aborts where possible; a store that refuses changes nothing for the file. */
  private async abort(job: Job, state: MultipartState): Promise<void> {
    try {
      await this.request(job, 'DELETE', state.key, { uploadId: state.uploadId }, undefined, { sha256: EMPTY_SHA });
    } catch {
      // An upload left behind costs the store space until its lifecycle rule ends it; the file ships regardless.
    }
    job.saveMultipart(undefined);
  }
}
