// The client package as users get it: its types are those of the document the agent serves
// (regenerated and compared), the README's example program type-checks against the built
// package and runs against a live agent, and `npm pack` gives a tarball that installs a
// working dagent.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, ROOT } from './helpers/agent.ts';
import { ApiError, DeviceAgent } from '../client/src/index.ts';
import { CLIENT, startClientAgent, tempHome, type ClientAgent } from './helpers/dagent.ts';
import { generate } from '../client/scripts/generate.mjs';

const run = promisify(execFile);
type Ctx = { agent: ClientAgent; dir: string };
const pkg = suite<Ctx>('device-agent-client package');
pkg.before(async (ctx) => {
  ctx.agent = await startClientAgent(true);
  ctx.dir = tempHome();
});
pkg.after(async (ctx) => {
  await ctx.agent?.cleanup();
  if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
});

pkg('client/src/openapi.ts is what the served /docs/openapi.json generates (else: npm run gen -w client)', async ({ agent }) => {
  const doc = await (await fetch(`${agent.url}/docs/openapi.json`)).json();
  const fresh = await generate(doc);
  const stored = readFileSync(join(CLIENT, 'src/openapi.ts'), 'utf8');
  if (fresh !== stored) {
    const a = stored.split('\n');
    const b = fresh.split('\n');
    const i = a.findIndex((line, n) => line !== b[n]);
    assert.unreachable(
      `client/src/openapi.ts differs from the served document from line ${i + 1}:\n` +
        `  stored: ${a[i]}\n  served: ${b[i]}\nrun npm run gen -w client`,
    );
  }
});

/** The ```ts block of client/README.md under "An example program". */
function readmeExample(): string {
  const text = readFileSync(join(CLIENT, 'README.md'), 'utf8');
  const from = text.indexOf('### An example program');
  const m = /```ts\n([^]*?)```/.exec(text.slice(from));
  assert.ok(m, 'no example in client/README.md');
  return m![1]!;
}

pkg("the README's example program type-checks (strict) against the built package and runs", async ({ agent, dir }) => {
  const app = join(dir, 'app');
  mkdirSync(join(app, 'node_modules'), { recursive: true });
  symlinkSync(CLIENT, join(app, 'node_modules/device-agent-client'));
  symlinkSync(join(ROOT, 'node_modules/@types'), join(app, 'node_modules/@types'));
  writeFileSync(join(app, 'example.mts'), readmeExample());
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        outDir: 'out',
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        types: ['node'],
        skipLibCheck: false,
      },
      files: ['example.mts'],
    }),
  );
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const checked = await run(process.execPath, [tsc, '-p', app]).then(
    () => '',
    (err) => `${err.stdout}${err.stderr}`,
  );
  assert.is(checked, '', `tsc on the README example:\n${checked}`);

  // What tsc wrote (out/example.mjs), run by plain Node as a user would.
  const out = await run(process.execPath, ['out/example.mjs'], {
    cwd: app,
    env: {
      ...process.env,
      DEVICE_URL: agent.clientUrl,
      DEVICE_PIN: agent.pin!,
      DEVICE_USER: ADMIN.username,
      DEVICE_PASSWORD: ADMIN.password,
    },
  }).catch((err) => ({ stdout: `${err.stdout}`, stderr: `${err.stderr}` }));
  assert.match(out.stdout, /^\S+: [\d.-]+ % CPU, recording idle\n/, out.stderr);
  const saved = readFileSync(join(app, 'take.wav'));
  assert.match(out.stdout, new RegExp(`\\nsaved take\\.wav \\(${saved.length} bytes\\)\\n`));
  assert.match(out.stdout, /\n404: file not found at no\/such\/dir\n$/);
  assert.ok(readFileSync(join(agent.baseDir, 'take-copy.wav')).equals(saved));
});

pkg('npm pack makes a tarball of dist/ and the README; installed from it, dagent runs', async ({ dir }) => {
  const packed = JSON.parse(
    (await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: CLIENT })).stdout,
  )[0];
  const files: string[] = packed.files.map((f: { path: string }) => f.path).sort();
  assert.ok(files.includes('dist/cli/dagent.js') && files.includes('dist/index.d.ts') && files.includes('README.md'), files.join(' '));
  assert.equal(
    files.filter((f) => !f.startsWith('dist/') && f !== 'README.md' && f !== 'package.json'),
    [],
  );
  const prefix = join(dir, 'prefix');
  await run('npm', ['install', '-g', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, join(dir, packed.filename)]);
  const bin = join(prefix, 'bin/dagent');
  assert.ok(existsSync(bin));
  const v = await run(bin, ['--version']);
  assert.is(v.stdout, `dagent ${JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8')).version}\n`);
});

pkg(
  "library: fileInfo is the HEAD answer, openapi() the served document, metrics() the text, ApiError the API's status and text",
  async ({ agent }) => {
    const lib = new DeviceAgent({ url: agent.clientUrl, pin: agent.pin!, token: await agent.login() });
    try {
      writeFileSync(join(agent.baseDir, 'info.txt'), 'twelve bytes');
      const head = await fetch(`${agent.url}/api/download?filepath=info.txt`, {
        method: 'HEAD',
        headers: { Authorization: `Bearer ${lib.token}` },
      });
      assert.equal(await lib.fileInfo('info.txt'), {
        sizeBytes: 12,
        etag: head.headers.get('etag'),
        lastModified: head.headers.get('last-modified'),
        contentType: head.headers.get('content-type'),
      });
      assert.equal(await lib.openapi(), await (await fetch(`${agent.url}/docs/openapi.json`)).json());
      assert.match(await lib.metrics(), /^device_agent_build_info\{version="[^"]+"\} 1$/m);
      let failure: unknown;
      try {
        await lib.list('no/such/dir');
      } catch (err) {
        failure = err;
      }
      assert.instance(failure, ApiError);
      assert.is((failure as ApiError).status, 404);
      assert.is((failure as ApiError).error, 'file not found at no/such/dir');
      assert.is((failure as ApiError).headers['content-type'], 'application/json; charset=utf-8');
      const seen: string[] = [];
      for await (const e of lib.events()) {
        seen.push(e.event);
        if (seen.length === 2) break;
      }
      assert.equal(seen, ['recording', 'status']);
    } finally {
      lib.close();
    }
  },
);

pkg.run();
