// One access-log line per request: method, path without query, status, bytes, ms, user.
// Never the query string, a header or a body, so no token or password reaches the log.
import type { ServerResponse } from 'node:http';
import type { Request } from './types.ts';

export type LogLine = (line: string) => void;

/** Control characters and spaces in a client-chosen path would forge log fields. */
function clean(path: string): string {
  return path.replace(/[\u0000-\u0020\u007f-\u009f"\\]/g, (c) => '%' + c.charCodeAt(0).toString(16).padStart(2, '0'));
}

export function pathOf(url: string | undefined): string {
  const raw = url ?? '';
  const q = raw.indexOf('?');
  return clean(q === -1 ? raw : raw.slice(0, q)).slice(0, 512);
}

/** Counts body bytes and writes the line when the response ends or the client goes away. */
export function accessLog(log: LogLine) {
  return (req: Request, res: ServerResponse, next: () => void): void => {
    const start = process.hrtime.bigint();
    let bytes = 0;
    const write = res.write;
    const end = res.end;
    res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      if (chunk) bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Uint8Array).length;
      return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof res.write;
    res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      if (chunk && typeof chunk !== 'function') {
        bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Uint8Array).length;
      }
      return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as typeof res.end;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      if (req.method === "HEAD") bytes = 0;
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const status = res.writableFinished ? res.statusCode : `${res.statusCode}-aborted`;
      log(`${req.method} ${pathOf(req.originalUrl ?? req.url)} ${status} ${bytes} ${ms.toFixed(1)}ms ${req.user?.username ?? '-'}`);
    };
    res.once('finish', finish);
    res.once('close', finish);
    next();
  };
}
