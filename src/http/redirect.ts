// tls.plainHttp "redirect" (docs/api.md#https): a plain-HTTP request gets 308 to the same URL
// with https://, before its body is read or its token checked.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { lingerAfterAnswer } from './linger.ts';
import { hasUnreadBody } from './request.ts';

/** Host header as sent (an HTTP/1.0 request without one: the address it reached). */
function hostOf(req: IncomingMessage): string {
  const host = req.headers.host;
  if (host && !/[\s/\\?#@]/.test(host)) return host;
  const { localAddress, localPort } = req.socket;
  return localAddress?.includes(':') ? `[${localAddress}]:${localPort}` : `${localAddress}:${localPort}`;
}

export function redirectToHttps(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '/';
  const location = `https://${hostOf(req)}${url.startsWith('/') ? url : '/'}`;
  const headers: Record<string, string | number> = { Location: location, 'Content-Length': 0, 'Cache-Control': 'no-store' };
  // A body is not read: the connection closes after the answer, lingering so the client reads it.
  if (hasUnreadBody(req)) {
    headers.Connection = 'close';
    lingerAfterAnswer(req);
  }
  res.writeHead(308, headers);
  res.end();
}
