// What every target does: ship one file and say, verified, where it went.
import type { Digests, RateLimit } from './transfer.ts';

/** A multipart upload under way, kept in the journal so that a restart continues it. */
export interface MultipartState {
  key: string;
  uploadId: string;
  size: number;
  mtimeMs: number;
  /** ETags of the parts acknowledged, in order: part n is parts[n-1]. */
  parts: string[];
}

export interface Job {
  /** Path relative to baseDir (the key's and the collector's path). */
  rel: string;
  abs: string;
  size: number;
  mtimeMs: number;
  multipart: MultipartState | undefined;
  /** Records progress durably (the journal's write-then-rename) before the next part goes. */
  saveMultipart(state: MultipartState | undefined): void;
  digests(): Promise<Digests>;
  signal: AbortSignal;
  limit: RateLimit;
  onBytes(n: number): void;
}

export interface Target {
  /** Resolves with the audit key (object key, or URL without its query) once verified; throws TargetError. */
  ship(job: Job): Promise<string>;
  /** Lets go of a multipart upload no file will continue (S3: aborted, its parts freed); never rejects. */
  abandon?(state: MultipartState): Promise<void>;
}

/** A failure with the store's own text (`lastError`). */
export class TargetError extends Error {
  constructor(
    message: string,
    readonly status = 0,
    readonly code = '',
  ) {
    super(message);
  }
}

/** `<Code>` and `<Message>` of an S3 error document, else the body's first line. */
export function storeText(status: number, body: string): TargetError {
  const code = /<Code>([^<]*)<\/Code>/.exec(body)?.[1] ?? '';
  const message = /<Message>([^<]*)<\/Message>/.exec(body)?.[1] ?? '';
  let text = code ? `${code}: ${message}` : '';
  if (!text) {
    try {
      const e = (JSON.parse(body) as { error?: unknown }).error;
      if (typeof e === 'string') text = e;
    } catch {
      // not JSON: the body's first line stands for itself
    }
  }
  if (!text) text = body.split('\n')[0]!.slice(0, 200);
  return new TargetError(`${status}${text ? ` ${text}` : ''}`, status, code);
}
