// Builds dist/device-agent_<version>_<arch>.deb for amd64 and arm64 from the executables
// build.mjs made, with dpkg-deb --root-owner-group (no root or fakeroot needed).
//   node packaging/build-deb.mjs            both architectures
//   node packaging/build-deb.mjs amd64      one
//   --fast                                  xz -1 instead of -6: 5x faster, 15% larger (tests)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { executableFor } from '../build.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const dist = join(root, 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Debian architecture → Node's name for it. */
export const ARCHES = { amd64: 'x64', arm64: 'arm64' };
export const MAINTAINER = 'device-agent maintainers <device-agent@example.org>';
export const UNIT_DIR = 'lib/systemd/system';
/** Files in /etc: the admin's edits survive upgrades (site settings belong in config.d/ instead). */
export const CONFFILES = ['/etc/device-agent/config.json', '/etc/avahi/services/device-agent.service']; // Debian 12: units live in /lib (merged /usr moves them later)

export function debFile(arch) {
  return join(dist, `device-agent_${pkg.version}_${arch}.deb`);
}

/** The changelog's newest version must be the one being packaged. */
function checkChangelog(text) {
  const m = /^device-agent \(([^)]+)\)/.exec(text);
  if (m?.[1] !== pkg.version) throw new Error(`packaging/changelog starts with ${m?.[1]}, package.json says ${pkg.version}`);
}

function put(stage, path, data, mode) {
  const file = join(stage, path);
  mkdirSync(dirname(file), { recursive: true, mode: 0o755 });
  if (Buffer.isBuffer(data) || typeof data === 'string') writeFileSync(file, data);
  else copyFileSync(data.from, file);
  chmodSync(file, mode);
}

/** gzip -9n: maximum compression, no name or time stamp (reproducible, as lintian wants). */
const gz = (file) => gzipSync(readFileSync(file), { level: 9 });

function walk(dir, dirs = false) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? [...(dirs ? [join(dir, e.name)] : []), ...walk(join(dir, e.name), dirs)] : dirs ? [] : [join(dir, e.name)],
  );
}

function stageTree(arch, stage) {
  const src = (name) => join(here, name);
  const exe = executableFor(ARCHES[arch]);
  if (!existsSync(exe)) throw new Error(`${exe} is missing: run node build.mjs --arch ${ARCHES[arch]} (or npm run package)`);
  put(stage, 'usr/bin/device-agent', { from: exe }, 0o755);
  put(stage, `${UNIT_DIR}/device-agent.service`, { from: join(root, 'systemd/device-agent.service') }, 0o644);
  put(stage, 'etc/device-agent/config.json', { from: src('config.json') }, 0o644);
  // Read by avahi-daemon when it is installed (Suggests:); nothing else reads it.
  put(stage, 'etc/avahi/services/device-agent.service', { from: src('avahi.service') }, 0o644);
  put(stage, 'usr/lib/modules-load.d/device-agent.conf', { from: src('modules-load.conf') }, 0o644);
  put(stage, 'usr/share/doc/device-agent/copyright', { from: src('copyright') }, 0o644);
  put(stage, 'usr/share/doc/device-agent/changelog.gz', gz(src('changelog')), 0o644);
  put(stage, 'usr/share/man/man1/device-agent.1.gz', gz(src('device-agent.1')), 0o644);
  put(stage, 'usr/share/lintian/overrides/device-agent', { from: src('lintian-overrides') }, 0o644);
}

function control(arch, stage) {
  const files = walk(stage);
  const installedKiB = files.reduce((sum, f) => sum + Math.ceil(statSync(f).size / 1024), 0);
  const text = readFileSync(join(here, 'control.in'), 'utf8')
    .replaceAll('@VERSION@', pkg.version)
    .replaceAll('@ARCH@', arch)
    .replaceAll('@MAINTAINER@', MAINTAINER)
    .replaceAll('@INSTALLED_SIZE@', String(installedKiB));
  const md5sums = files.map((f) => `${createHash('md5').update(readFileSync(f)).digest('hex')}  ${relative(stage, f)}\n`).join('');
  put(stage, 'DEBIAN/control', text, 0o644);
  put(stage, 'DEBIAN/md5sums', md5sums, 0o644);
  put(stage, 'DEBIAN/conffiles', CONFFILES.map((f) => `${f}\n`).join(''), 0o644);
  for (const script of ['postinst', 'prerm', 'postrm']) put(stage, `DEBIAN/${script}`, { from: join(here, script) }, 0o755);
}

export function buildDeb(arch, { fast = false } = {}) {
  if (!ARCHES[arch]) throw new Error(`unknown architecture ${arch}: use ${Object.keys(ARCHES).join(' or ')}`);
  checkChangelog(readFileSync(join(here, 'changelog'), 'utf8'));
  const stage = join(dist, `deb-${arch}`);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { mode: 0o755 });
  chmodSync(stage, 0o755); // dpkg-deb refuses a control directory with a umask-dependent mode
  stageTree(arch, stage);
  control(arch, stage);
  for (const d of walk(stage, true)) chmodSync(d, 0o755); // whatever the umask
  const out = debFile(arch);
  execFileSync('dpkg-deb', ['--root-owner-group', '-Zxz', `-z${fast ? 1 : 6}`, '--build', stage, out], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  rmSync(stage, { recursive: true, force: true });
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const fast = process.argv.includes('--fast');
  const wanted = process.argv.slice(2).filter((a) => a !== '--fast');
  for (const arch of wanted.length ? wanted : Object.keys(ARCHES)) {
    const t = Date.now();
    const out = buildDeb(arch, { fast });
    console.log(`package: ${relative(root, out)} (${(statSync(out).size / 1048576).toFixed(1)} MiB, ${Date.now() - t} ms)`);
  }
}
