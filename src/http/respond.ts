// Small helpers to send JSON answers.
import type { ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

/** No extra headers: the common header object is then passed as is, not spread. */
const NONE: Record<string, string> = {};

/**
 * Sends JSON that is already serialised (a cached body). A string, not a Buffer: Node
 * then sends headers and body in one write(2) instead of a writev(2) of two buffers.
 */
export function sendJsonText(res: ServerResponse, status: number, body: string, headers: Record<string, string> = NONE,
  length = Buffer.byteLength(body)): void {
  const common = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': length,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  };
  res.writeHead(status, headers === NONE ? common : { ...headers, ...common });
  res.end(body);
}
