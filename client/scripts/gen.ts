// npm run gen -w client [-- URL]: writes src/openapi.ts from the document the agent's sources
// build (no agent needed), or from the one an agent at URL serves.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDocument } from '../../src/docs/openapi.ts';
import { generate } from './generate.mjs';

const url = process.argv[2];
const doc = url ? await (await fetch(new URL('/docs/openapi.json', url))).json() : buildDocument();
const out = join(import.meta.dirname, '../src/openapi.ts');
writeFileSync(out, await generate(doc));
console.log(`gen: wrote ${out}`);
