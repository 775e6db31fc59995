// The document's part for the web interface (CONTRACT §12): the page and its files.
import { Errors } from '../http/errors.ts';
import { PAGE_FILES } from '../ui/page-names.ts';
import { errorResponses } from './responses.ts';

const text = { schema: { type: 'string' } };
const revalidated = {
  304: { description: 'not modified (`If-None-Match` holds the ETag of this encoding)' },
};

export function webPaths() {
  return {
    '/': {
      get: {
        tags: ['web'], operationId: 'webPage', summary: 'The web interface (no token: it logs in through the API)', security: [],
        responses: { 200: { description: 'HTML page; brotli or gzip as Accept-Encoding allows', content: { 'text/html': text } }, ...revalidated },
      },
    },
    '/ui/{file}': {
      get: {
        tags: ['web'], operationId: 'webFile', summary: 'A file of the web interface', security: [],
        parameters: [{ name: 'file', in: 'path', required: true, schema: { enum: PAGE_FILES.filter((f) => f !== 'index.html') } }],
        responses: {
          200: { description: 'the file; brotli or gzip as Accept-Encoding allows', content: { 'text/css': text, 'text/javascript': text } },
          ...revalidated,
          ...errorResponses([Errors.notFound()]),
        },
      },
    },
  };
}
