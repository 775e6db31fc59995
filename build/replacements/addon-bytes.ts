// Bundled in place of src/native/addon-bytes.ts (build.mjs, embedAddon): the
// addon's bytes from the executable's SEA asset, or, when dist/device-agent.cjs runs under a
// plain node, from dist/sea-assets/ beside it. Type-checked with the sources.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function addonBytes(): Uint8Array {
  const sea = process.getBuiltinModule('node:sea');
  if (sea.isSea()) return new Uint8Array(sea.getRawAsset('addon.node'));
  return readFileSync(join(__dirname, 'sea-assets', `addon-${process.arch}.node`));
}
