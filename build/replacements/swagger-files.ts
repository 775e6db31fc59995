// Bundled in place of src/apidocs/swagger-files.ts (build/embed-plugin.mjs): Swagger UI's
// gzipped files from the executable's SEA assets, or, when dist/device-agent.cjs runs under
// a plain node, from dist/sea-assets/ beside it. Type-checked with the sources.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function swaggerFileGzip(name: string): Buffer {
  const sea = process.getBuiltinModule('node:sea');
  if (sea.isSea()) return Buffer.from(sea.getAsset(`${name}.gz`));
  return readFileSync(join(__dirname, 'sea-assets', `${name}.gz`));
}
