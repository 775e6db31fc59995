// GET /metrics (CONTRACT §10): the Prometheus text, for a valid JWT or the static metrics
// token (Prometheus's authorization.credentials_file). The token opens this route only.
import { crypto } from '../crypto.ts';
import type { Request, Route } from '../http/types.ts';
import type { AgentMetrics } from './agent.ts';
import { CONTENT_TYPE } from './exposition.ts';

const BEARER = /^bearer +(\S+)$/i;

/**
 * Whether the request carries the metrics token. Both sides are hashed first, so the
 * constant-time comparison sees equal lengths and the time tells nothing of the token.
 */
export function tokenMatcher(token: Buffer): (req: Request) => boolean {
  let digest: Buffer | undefined;
  return (req) => {
    const m = BEARER.exec(req.headers.authorization?.trim() ?? '');
    if (!m) return false;
    const c = crypto();
    digest ??= c.createHash('sha256').update(token).digest();
    return c.timingSafeEqual(c.createHash('sha256').update(m[1]!).digest(), digest);
  };
}

export function metricsRoutes(metrics: AgentMetrics, token: Buffer): Route[] {
  return [{
    method: 'GET',
    path: '/metrics',
    auth: true,
    credential: tokenMatcher(token),
    handler: (_req, res) => {
      const body = metrics.render();
      res.writeHead(200, {
        'Content-Type': CONTENT_TYPE,
        'Content-Length': Buffer.byteLength(body),
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
      });
      res.end(body);
    },
  }];
}
