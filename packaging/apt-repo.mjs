// Writes (or adds to) a signed apt repository of the agent's packages with reprepro,
// so devices install and upgrade it with apt-get and unattended-upgrades (docs/fleet.md).
//   node packaging/apt-repo.mjs DIR [DEB...]      (npm run repo -- DIR)
//   --key ID      the gpg key that signs Release/InRelease (else env DEVICE_AGENT_REPO_KEY);
//                 gpg finds it in $GNUPGHOME (default ~/.gnupg), with no passphrase prompt
// Without DEB arguments it takes dist/device-agent_<version>_{amd64,arm64}.deb (npm run package).
// Run it again on the same DIR with newer packages: the index then offers the new version.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);

/** The fields apt shows as o=, l=, n=, a=: what unattended-upgrades' Origins-Pattern matches. */
export const ORIGIN = 'device-agent';
export const CODENAME = 'stable';
export const COMPONENT = 'main';
export const ARCHITECTURES = ['amd64', 'arm64'];
/** The public key beside dists/ and pool/, for /etc/apt/keyrings/ (signed-by). */
export const KEYRING = 'device-agent-archive-keyring.gpg';

function usage(message) {
  console.error(`apt-repo: ${message}
usage: npm run repo -- DIR [DEB...] [--key ID]   (or DEVICE_AGENT_REPO_KEY=ID; GNUPGHOME selects the keyring)`);
  process.exit(2);
}

function distributions(key) {
  return `Origin: ${ORIGIN}
Label: ${ORIGIN}
Suite: ${CODENAME}
Codename: ${CODENAME}
Architectures: ${ARCHITECTURES.join(' ')}
Components: ${COMPONENT}
Description: device-agent, a small hardened HTTP agent for Linux devices
SignWith: ${key}
`;
}

/** The fingerprint of the secret key `key` names, or a message saying why there is none. */
function fingerprint(key) {
  let out;
  try {
    out = execFileSync('gpg', ['--batch', '--with-colons', '--list-secret-keys', key], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch {
    usage(`no secret key ${key} in ${process.env.GNUPGHOME || '~/.gnupg'}`);
  }
  return /^fpr:+([0-9A-F]{40,64}):/m.exec(out)[1];
}

export function buildRepo(dir, debs, key) {
  const fpr = fingerprint(key);
  mkdirSync(join(dir, 'conf'), { recursive: true });
  writeFileSync(join(dir, 'conf/distributions'), distributions(fpr));
  // reprepro keeps one version per package and architecture: adding a newer .deb replaces
  // the older in the index (its file leaves pool/), which is what an upgrade needs.
  for (const deb of debs) {
    execFileSync('reprepro', ['--basedir', dir, '--silent', 'includedeb', CODENAME, deb], { stdio: ['ignore', 'inherit', 'inherit'] });
  }
  // Signatures are made at export; running it again re-signs with the key named now.
  execFileSync('reprepro', ['--basedir', dir, '--silent', 'export', CODENAME], { stdio: ['ignore', 'inherit', 'inherit'] });
  writeFileSync(join(dir, KEYRING), execFileSync('gpg', ['--batch', '--export', fpr]));
  return { fingerprint: fpr };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  let key = process.env.DEVICE_AGENT_REPO_KEY;
  const k = args.indexOf('--key');
  if (k >= 0) {
    key = args[k + 1];
    args.splice(k, 2);
  }
  const [dir, ...given] = args;
  if (!dir) usage('no repository directory given');
  if (!key) usage('no signing key: pass --key ID or set DEVICE_AGENT_REPO_KEY');
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  const debs = given.length
    ? given.map((d) => resolve(d))
    : ARCHITECTURES.map((arch) => join(root, 'dist', `device-agent_${version}_${arch}.deb`));
  for (const deb of debs) if (!existsSync(deb)) usage(`${deb} is missing: run npm run package`);
  const { fingerprint: fpr } = buildRepo(resolve(dir), debs, key);
  console.log(`repo: ${resolve(dir)} signed by ${fpr}; public key ${join(resolve(dir), KEYRING)}`);
}
