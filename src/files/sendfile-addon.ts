// The sendfile addon's bytes (src/native/sendfile.c) when running from source: the build's
// copy in dist/. The bundler replaces this module (build.mjs, embedSendfile): the
// executable carries the addon as an asset, dist/device-agent.cjs reads it beside itself.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function addonBytes(): Uint8Array {
  return readFileSync(join(import.meta.dirname, '../../dist/sea-assets', `sendfile-${process.arch}.node`));
}
