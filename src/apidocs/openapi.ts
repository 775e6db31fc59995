// The OpenAPI 3.1 document served at /docs/openapi.json, built from the route table: each
// route brings its own operation (src/*/routes.ts), and its `security` and the answers of
// the credential check come from the route's scope here, so the document, the router and
// the check cannot disagree. test/docs-drift.test.ts holds the served document to the app.
import { AUTH_FAILURES, errorResponses } from './responses.ts';
import { Errors } from '../http/errors.ts';
import type { Route, RouteDoc } from '../http/types.ts';
import { VERSION } from '../util/version.ts';
import { schemas } from './schemas.ts';

/** What a client checks before trusting this agent's HTTPS certificate, for the page's top. */
export interface TlsSummary {
  fingerprint: string;
  spkiPin: string;
}

function trustNote(tls: TlsSummary | undefined): string {
  if (!tls) return '';
  return (
    `\n\nHTTPS (same port): certificate SHA-256 fingerprint \`${tls.fingerprint}\`, ` +
    `SPKI pin \`${tls.spkiPin}\` (\`curl --pinnedpubkey\`); also at \`GET /api/v1/tls\`.`
  );
}

/** The router's `/api/:name` is OpenAPI's `/api/{name}`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** One operation: the route's own fragment, its security from the scope, the check's answers. */
function operation(route: Route, doc: RouteDoc): Record<string, unknown> {
  const { responses = {}, ...rest } = doc.operation as { responses?: Record<string, unknown> };
  const scope = route.scope;
  const security = scope === null ? [] : [{ bearerAuth: [scope] }, ...(route.credential ? [{ metricsToken: [] }] : [])];
  const checkErrors = scope === null ? [] : [...AUTH_FAILURES, Errors.insufficientScope(scope)];
  const errors = [...(doc.errors ?? []), ...checkErrors];
  return {
    ...rest,
    ...(scope === null ? {} : { 'x-scope': scope }),
    security,
    responses: { ...responses, ...errorResponses(errors, doc.notes) },
  };
}

export function buildDocument(routes: readonly Route[], tls?: TlsSummary) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const item = (paths[openApiPath(route.path)] ??= {});
    item[route.method.toLowerCase()] = operation(route, route.doc());
    if (route.headDoc) item.head = operation(route, route.headDoc());
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'device-agent',
      version: VERSION,
      description:
        'HTTP API of the device agent. Log in (or make an API token), click **Authorize** and paste the `token`.\n\n' +
        'Every protected route needs one scope (`x-scope`, and the scope named in its `security`); a credential ' +
        'without it gets 403 `insufficient scope: <scope> is required`. ' +
        'Every error is JSON `{"error": "<text>"}`. An unknown path gives 404 `not found`; a known path with ' +
        'another method gives 405 `method not allowed` with an `Allow` header.' +
        trustNote(tls),
    },
    servers: [{ url: '/', description: 'this agent' }],
    tags: [
      { name: 'auth' },
      { name: 'status' },
      { name: 'audio' },
      { name: 'files' },
      { name: 'docs', description: 'this page and its document' },
      { name: 'web', description: 'the web interface (its data comes through the API above)' },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'the `token` of the login answer (a JWT), or an API token (`dat_...`)',
        },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'the text of `metrics.tokenFile`: GET /metrics only' },
      },
    },
  };
}
