// The web interface's files as answers: each in brotli, gzip and (made on first use)
// plain, served by src/http/static.ts.
import { staticFile, type StaticFile } from '../http/static.ts';
import { pageFiles } from './page-files.ts';
import { PAGE_FILES, TYPES } from './page-names.ts';

/** The page's files by name, made once (loaded through src/util/lazy.ts by the routes). */
export async function pageAssets(): Promise<Map<string, StaticFile>> {
  const files = await pageFiles();
  return new Map(
    PAGE_FILES.map((name) => {
      const encoded = files.get(name);
      if (!encoded) throw new Error(`web interface: ${name} is missing from the build`);
      return [name, staticFile({ type: TYPES[name], gzip: encoded.gzip, br: encoded.br })];
    }),
  );
}
