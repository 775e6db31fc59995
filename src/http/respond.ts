// Small helpers to send JSON answers.
import type { ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  sendText(res, status, JSON.stringify(body), headers);
}

/** No extra headers: the common header object is then passed as is, not spread. */
const NONE: Record<string, string> = {};

/** The headers of every JSON answer, for a body of `length` bytes. */
export function jsonHeaders(length: number): Record<string, string | number> {
  // Node's writeHead only reads this object: an answer may pass one made for an earlier one.
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': length,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  };
}

/**
 * Sends JSON text. A string, not a Buffer: Node then sends headers and body in one write(2)
 * instead of a writev(2) of two buffers.
 */
function sendText(res: ServerResponse, status: number, body: string, headers: Record<string, string> = NONE): void {
  const common = jsonHeaders(Buffer.byteLength(body));
  res.writeHead(status, headers === NONE ? common : { ...headers, ...common });
  res.end(body);
}
