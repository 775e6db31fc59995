// GET / (the web interface) and GET /ui/:file (its script and sheet). No token needed: the
// page holds nothing about the device; everything it shows comes through the API.
import type { Request, Response, Route } from '../http/types.ts';
import { Errors } from '../http/errors.ts';
import { sendStatic } from '../http/static.ts';
import { lazy } from '../util/lazy.ts';
import { PAGE_FILES } from './page-names.ts';

// Most agents are never opened in a browser: the files are read (and, from source, built)
// on the first request for one of them (the idle RSS budget: +2 MB at most, docs/performance.md).
const assets = lazy('web interface assets', () => import('./assets.ts').then((m) => m.pageAssets()));

/** No inline script or style, nothing from another host; blob: for downloads and the player. */
export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const HEADERS = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
  // Revalidated on each load (a 304 when unchanged), so an upgraded agent's page is used at once.
  'Cache-Control': 'no-cache',
};

async function serve(name: string, req: Request, res: Response): Promise<void> {
  const file = (await assets()).get(name);
  if (!file) throw Errors.notFound();
  sendStatic(req, res, file, HEADERS);
}

const text = { schema: { type: 'string' } };
const revalidated = { 304: { description: 'not modified (`If-None-Match` holds the ETag of this encoding)' } };

export function uiRoutes(): Route[] {
  return [
    {
      method: 'GET',
      path: '/',
      scope: null,
      handler: (req, res) => serve('index.html', req, res),
      doc: () => ({
        operation: {
          tags: ['web'],
          operationId: 'webPage',
          summary: 'The web interface (no token: it logs in through the API)',
          responses: {
            200: { description: 'HTML page; brotli or gzip as Accept-Encoding allows', content: { 'text/html': text } },
            ...revalidated,
          },
        },
      }),
    },
    {
      method: 'GET',
      path: '/ui/:file',
      scope: null,
      handler: (req, res) => serve(req.params.file ?? '', req, res),
      doc: () => ({
        operation: {
          tags: ['web'],
          operationId: 'webFile',
          summary: 'A file of the web interface',
          parameters: [{ name: 'file', in: 'path', required: true, schema: { enum: PAGE_FILES.filter((f) => f !== 'index.html') } }],
          responses: {
            200: {
              description: 'the file; brotli or gzip as Accept-Encoding allows',
              content: { 'text/css': text, 'text/javascript': text },
            },
            ...revalidated,
          },
        },
        errors: [Errors.notFound()],
      }),
    },
  ];
}
