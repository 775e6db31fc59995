// The addon's bytes (src/native/addon.c) when running from source: the build's
// copy in dist/. The bundler replaces this module (build.mjs, embedAddon): the
// executable carries the addon as an asset, dist/device-agent.cjs reads it beside itself.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function addonBytes(): Uint8Array {
  const file = join(import.meta.dirname, '../../dist/sea-assets', `addon-${process.arch}.node`);
  try {
    return readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`${file} is not built yet: npm run build compiles it`);
    throw err;
  }
}
