// The document's part for CONTRACT §10: GET /metrics, opened by a login token or the
// metrics token (a second bearer scheme, declared in openapi.ts).
import { AUTH_FAILURES, errorResponses } from './responses.ts';

export const METRICS_SCHEME = { type: 'http', scheme: 'bearer', description: 'the text of `metrics.tokenFile`: GET /metrics only' };

export function metricsPaths() {
  return {
    '/metrics': {
      get: {
        tags: ['status'], operationId: 'metrics', summary: 'Prometheus metrics (text format 0.0.4)',
        description: 'For a scraper: the bearer token of a login, or the text of `metrics.tokenFile` ' +
          '(which opens this route and no other). Absent (404) when `metrics.enabled` is false.',
        security: [{ bearerAuth: [] }, { metricsToken: [] }],
        responses: {
          200: { description: 'the metrics', content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } },
          ...errorResponses(AUTH_FAILURES),
        },
      },
    },
  };
}
