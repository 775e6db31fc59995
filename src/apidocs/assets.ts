// The files of the /docs page, gzipped once: Swagger UI's and the page's start script.
import { gzipSync } from 'node:zlib';
import { staticFile, type StaticFile } from '../http/static.ts';
import { START_SCRIPT } from './page.ts';
import SWAGGER_FILES from './swagger-files.json' with { type: 'json' };
import { swaggerFileGzip } from './swagger-files.ts';
import { ASSET_NAMES } from './asset-names.ts';

export { ASSET_NAMES };

let assets: Map<string, StaticFile> | undefined;

const typeOf = (name: string) => (name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8');

/** The page's files by name, loaded on the first request for one of them. */
export function docsAssets(): Map<string, StaticFile> {
  if (!assets) {
    assets = new Map(SWAGGER_FILES.map((name) => [name, staticFile({ type: typeOf(name), gzip: swaggerFileGzip(name) })]));
    assets.set('start.js', staticFile({ type: typeOf('start.js'), gzip: gzipSync(START_SCRIPT) }));
  }
  return assets;
}
