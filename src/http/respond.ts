// Small helpers to send JSON answers.
import type { ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

/**
 * Sends JSON that is already serialised (a cached body). A string, not a Buffer: Node
 * then sends headers and body in one write(2) instead of a writev(2) of two buffers.
 */
export function sendJsonText(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {},
  length = Buffer.byteLength(body)): void {
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': length,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(body);
}
