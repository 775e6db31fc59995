// GET /docs (Swagger UI), /docs/openapi.json and /docs/assets/:file. No token needed:
// they show what the spec already says and nothing about this device.
import type { ServerResponse } from 'node:http';
import { Errors } from '../http/errors.ts';
import { sendStatic } from '../http/static.ts';
import type { Route } from '../http/types.ts';
import { lazy } from '../util/lazy.ts';
import type { TlsSummary } from './openapi.ts';
import { ASSET_NAMES } from './asset-names.ts';

// The page, the document and Swagger UI are loaded on the first request for them: most
// agents are never browsed, and their modules cost start-up time and memory.
const page = lazy('docs page', () => import('./page.ts'));
const openapi = lazy('openapi document', () => import('./openapi.ts'));
const assets = lazy('swagger ui assets', () => import('./assets.ts'));

const COMMON = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function send(res: ServerResponse, type: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(200, { ...COMMON, ...headers, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

export interface DocsRouteDeps {
  /** The app's routes, which the document describes. */
  table: () => readonly Route[];
  /** The certificate in service (its fingerprint heads the document), with TLS on. */
  tlsInfo?: () => TlsSummary;
}

export function docsRoutes({ table, tlsInfo: tls }: DocsRouteDeps): Route[] {
  let documentText: string | undefined;
  let documentFor: string | undefined;
  return [
    {
      method: 'GET',
      path: '/docs',
      scope: null,
      doc: () => ({
        operation: {
          tags: ['docs'],
          operationId: 'docsPage',
          summary: 'This page (Swagger UI)',
          responses: { 200: { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } } },
        },
      }),
      handler: async (_req, res) => {
        const { CSP, PAGE } = await page();
        send(res, 'text/html; charset=utf-8', PAGE, {
          'Content-Security-Policy': CSP,
          'X-Frame-Options': 'DENY',
          'Cache-Control': 'no-cache',
        });
      },
    },
    {
      method: 'GET',
      path: '/docs/openapi.json',
      scope: null,
      doc: () => ({
        operation: {
          tags: ['docs'],
          operationId: 'openapi',
          summary: 'This OpenAPI document',
          responses: { 200: { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      }),
      handler: async (_req, res) => {
        const current = tls?.();
        if (documentText === undefined || documentFor !== current?.fingerprint) {
          documentText = JSON.stringify((await openapi()).buildDocument(table(), current));
          documentFor = current?.fingerprint;
        }
        send(res, 'application/json; charset=utf-8', documentText, { 'Cache-Control': 'no-cache' });
      },
    },
    {
      method: 'GET',
      path: '/docs/assets/:file',
      scope: null,
      doc: () => ({
        operation: {
          tags: ['docs'],
          operationId: 'docsAsset',
          summary: 'A file of the page',
          parameters: [{ name: 'file', in: 'path', required: true, schema: { enum: [...ASSET_NAMES] } }],
          responses: {
            200: {
              description: 'the file',
              content: { 'text/css': { schema: { type: 'string' } }, 'text/javascript': { schema: { type: 'string' } } },
            },
            304: { description: 'not modified (`If-None-Match`)' },
          },
        },
        errors: [Errors.notFound()],
      }),
      handler: async (req, res) => {
        const asset = (await assets()).docsAssets().get(req.params.file ?? '');
        if (!asset) throw Errors.notFound();
        // Revalidated on each load, so a new agent version is picked up at once.
        sendStatic(req, res, asset, { ...COMMON, 'Cache-Control': 'no-cache' });
      },
    },
  ];
}
