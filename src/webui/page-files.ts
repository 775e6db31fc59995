// The web interface's files, compressed, built from src/browser/ on first use when running from
// source (npm start: esbuild is there, ~0.3 s once). The bundler replaces this module by a
// reader of the files build.mjs compressed into the executable (build/replacements/page-files.ts).
import { buildPage, compress } from '../../build/web-page.mjs';

export interface Encoded {
  gzip: Buffer;
  br: Buffer;
}

export async function pageFiles(): Promise<Map<string, Encoded>> {
  const files = await buildPage();
  return new Map([...files].map(([name, plain]) => [name, compress(plain)]));
}
