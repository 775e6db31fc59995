// The files of the /docs page, gzipped once: Swagger UI's and the page's start script.
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { START_SCRIPT } from './page.ts';
import SWAGGER_FILES from './swagger-files.json' with { type: 'json' };
import { swaggerFileGzip } from './swagger-files.ts';
import { ASSET_NAMES } from './asset-names.ts';

export { ASSET_NAMES };

export interface Asset {
  type: string;
  etag: string;
  gzip: Buffer;
  /** For the rare client that does not take gzip; made on first use. */
  plain(): Buffer;
}

function asset(name: string, gzip: Buffer): Asset {
  let plain: Buffer | undefined;
  return {
    type: name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
    etag: `"${createHash('sha256').update(gzip).digest('base64url').slice(0, 22)}"`,
    gzip,
    plain: () => (plain ??= gunzipSync(gzip)),
  };
}

let assets: Map<string, Asset> | undefined;

/** The page's files by name, loaded on the first request for one of them. */
export function docsAssets(): Map<string, Asset> {
  if (!assets) {
    assets = new Map(SWAGGER_FILES.map((name) => [name, asset(name, swaggerFileGzip(name))]));
    assets.set('start.js', asset('start.js', gzipSync(START_SCRIPT)));
  }
  return assets;
}
