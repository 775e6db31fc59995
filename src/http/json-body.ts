// Reads a small JSON object body with a hard size limit.
//
// Our own rather than @polka/parse, which calls next(err) once per chunk past its limit,
// keeps reading the body, and takes a body without Content-Type as JSON.
import type { IncomingMessage } from 'node:http';
import { ClientGone, Errors } from './errors.ts';

function isJsonType(value: string | undefined): boolean {
  if (!value) return false;
  const type = value.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** Resolves to the body as a plain object; rejects with one HttpError (400 or 413). */
export function readJsonObject(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(Errors.bodyTooLarge(limit));
  if (!isJsonType(req.headers['content-type'])) return Promise.reject(Errors.bodyNotJson());

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      req.removeListener('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      stop();
      // Stop reading: the answer goes out now and the connection closes after it.
      req.pause();
      reject(Errors.bodyTooLarge(limit));
    };
    const onEnd = () => {
      stop();
      let value: unknown;
      try {
        // fatal: broken UTF-8 is not JSON.
        const text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
        value = JSON.parse(text);
      } catch {
        return reject(Errors.bodyNotJson());
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return reject(Errors.bodyNotJson());
      resolve(value as Record<string, unknown>);
    };
    // A client that goes away mid-body (Node destroys the request with 'aborted', or it
    // just closes): nobody is left to answer, but the promise must settle.
    const onError = () => {
      stop();
      reject(new ClientGone());
    };
    const onClose = () => {
      stop();
      reject(new ClientGone());
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
