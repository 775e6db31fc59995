// npm run gen -w client [-- URL]: writes src/openapi.ts from the document an agent serves:
// one started in this process from the repository's sources (a throwaway directory, plain
// HTTP on a free port), or the one running at URL.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/files.ts';
import { startAgent } from '../../src/serve.ts';
import { generate } from './generate.mjs';

async function servedDocument(url: string | undefined): Promise<unknown> {
  if (url) return (await fetch(new URL('/docs/openapi.json', url))).json();
  const dir = mkdtempSync(join(tmpdir(), 'dagent-gen-'));
  const quiet = { error: () => {}, warn: () => {}, info: () => {} };
  try {
    writeFileSync(join(dir, 'users.json'), '{"users": []}');
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        host: '127.0.0.1',
        port: 0,
        baseDir: dir,
        usersFile: 'users.json',
        jwtSecretFile: 'jwt.secret',
        audio: { device: 'null' },
      }),
    );
    const agent = await startAgent(loadConfig(join(dir, 'config.json')), { firstRunAdmin: false, log: quiet, announce: () => {} });
    try {
      return await (await fetch(`http://127.0.0.1:${agent.port}/docs/openapi.json`)).json();
    } finally {
      await agent.stop(0);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const out = join(import.meta.dirname, '../src/openapi.ts');
writeFileSync(out, await generate(await servedDocument(process.argv[2])));
console.log(`gen: wrote ${out}`);
