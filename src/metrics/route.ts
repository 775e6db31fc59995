// GET /metrics (docs/api.md, "Metrics"): the Prometheus text, for a credential with scope metrics or the static metrics
// token (Prometheus's authorization.credentials_file). The token opens this route only.
import { crypto } from '../util/crypto.ts';
import type { Principal } from '../auth/scopes.ts';
import type { Request, Route } from '../http/types.ts';
import type { AgentMetrics } from './agent.ts';
import { CONTENT_TYPE } from './exposition.ts';

const BEARER = /^bearer +(\S+)$/i;

/** The metrics token's principal: `metrics` and nothing else. */
const METRICS_PRINCIPAL: Principal = { id: '', username: '', scopes: new Set(['metrics']), directory: null, credential: 'metrics' };

/**
 * The metrics principal when the request carries the metrics token. Both sides are hashed
 * first, so the constant-time comparison sees equal lengths and the time tells nothing of the token.
 */
export function metricsToken(token: Buffer): (req: Request) => Principal | undefined {
  let digest: Buffer | undefined;
  return (req) => {
    const m = BEARER.exec(req.headers.authorization?.trim() ?? '');
    if (!m) return undefined;
    const c = crypto();
    digest ??= c.createHash('sha256').update(token).digest();
    return c.timingSafeEqual(c.createHash('sha256').update(m[1]!).digest(), digest) ? METRICS_PRINCIPAL : undefined;
  };
}

/** `metricsToken`: the scrape token; undefined when metrics are off, and then no route. */
export function metricsRoutes({ metrics, metricsToken: token }: { metrics: AgentMetrics; metricsToken: Buffer | undefined }): Route[] {
  if (!token) return [];
  return [
    {
      method: 'GET',
      path: '/metrics',
      scope: 'metrics',
      credential: metricsToken(token),
      doc: () => ({
        operation: {
          tags: ['status'],
          operationId: 'metrics',
          summary: 'Prometheus metrics (text format 0.0.4)',
          description:
            'For a scraper: a credential with scope `metrics`, or the text of `metrics.tokenFile` ' +
            '(which opens this route and no other). Absent (404) when `metrics.enabled` is false.',
          responses: { 200: { description: 'the metrics', content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } } },
        },
      }),
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
    },
  ];
}
