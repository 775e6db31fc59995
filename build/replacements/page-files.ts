// Bundled in place of src/webui/page-files.ts (build/embed-plugin.mjs): the web interface's
// files as build.mjs compressed them, from the executable's SEA assets, or, when
// dist/device-agent.cjs runs under a plain node, from dist/sea-assets/ beside it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Encoded } from '../../src/webui/page-files.ts';
import { PAGE_FILES } from '../../src/webui/page-names.ts';

function read(name: string): Buffer {
  const sea = process.getBuiltinModule('node:sea');
  if (sea.isSea()) return Buffer.from(sea.getAsset(`web/${name}`));
  return readFileSync(join(__dirname, 'sea-assets', 'web', name));
}

export async function pageFiles(): Promise<Map<string, Encoded>> {
  return new Map(PAGE_FILES.map((name) => [name, { gzip: read(`${name}.gz`), br: read(`${name}.br`) }]));
}
