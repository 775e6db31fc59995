// Writes (or adds to) a signed apt repository of the agent's packages with reprepro,
// so devices install and upgrade it with apt-get and unattended-upgrades (docs/fleet.md).
//   node packaging/apt-repo.mjs DIR [DEB...]      (npm run repo -- DIR)
//   --key ID      the gpg key that signs Release/InRelease (else env DEVICE_AGENT_REPO_KEY,
//                 else the keyring's only secret key, as reprepro's SignWith: default; with
//                 several it stops and names them); gpg finds it in $GNUPGHOME (default
//                 ~/.gnupg), with no passphrase prompt
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
usage: npm run repo -- DIR [DEB...] [--key ID]   (or DEVICE_AGENT_REPO_KEY=ID, else the keyring's only secret key;
       GNUPGHOME selects the keyring)`);
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

const keyring = () => process.env.GNUPGHOME || '~/.gnupg';

/** The secret keys gpg lists (all, or those `key` names): fingerprint and first user id of each. */
function secretKeys(key) {
  let out;
  try {
    out = execFileSync('gpg', ['--batch', '--with-colons', '--list-secret-keys', ...(key ? [key] : [])], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch {
    return []; // gpg exits non-zero when `key` names no secret key
  }
  const keys = [];
  for (const line of out.split('\n')) {
    const f = line.split(':');
    if (f[0] === 'sec') keys.push({ fpr: null, uid: null });
    const last = keys.at(-1);
    if (!last) continue;
    // The first fpr after sec is the primary key's (a subkey's follows its ssb); colons in a user id are \x3a.
    if (f[0] === 'fpr' && last.fpr === null) last.fpr = f[9];
    if (f[0] === 'uid' && last.uid === null)
      last.uid = f[9].replace(/\\x([0-9a-f]{2})/gi, (_, h) => String.fromCharCode(Number.parseInt(h, 16)));
  }
  return keys;
}

/** The fingerprint of the key that signs: the one `key` names, else the keyring's only secret key. */
export function signingKey(key) {
  if (key) {
    const [named] = secretKeys(key);
    if (!named) usage(`no secret key ${key} in ${keyring()}`);
    return named.fpr;
  }
  const keys = secretKeys();
  if (keys.length === 1) return keys[0].fpr;
  if (keys.length === 0) usage(`no secret key in ${keyring()} to sign with: make one (docs/fleet.md) or pass --key ID`);
  usage(
    `${keys.length} secret keys in ${keyring()}: name the one that signs with --key ID (or DEVICE_AGENT_REPO_KEY): ` +
      keys.map((k) => `${k.fpr} (${k.uid})`).join(', '),
  );
}

/** The repository in `dir` with `debs`, signed by the key of fingerprint `fpr` (signingKey()). */
export function buildRepo(dir, debs, fpr) {
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
  const signer = signingKey(key);
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  const debs = given.length
    ? given.map((d) => resolve(d))
    : ARCHITECTURES.map((arch) => join(root, 'dist', `device-agent_${version}_${arch}.deb`));
  for (const deb of debs) if (!existsSync(deb)) usage(`${deb} is missing: run npm run package`);
  buildRepo(resolve(dir), debs, signer);
  console.log(`repo: ${resolve(dir)} signed by ${signer}; public key ${join(resolve(dir), KEYRING)}`);
}
