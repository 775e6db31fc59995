// The signed apt repository (npm run repo): both architectures indexed, apt in a Debian 12
// root installs from it trusting only its key, upgrades from it, and refuses a tampered Release.
// Which key signs: test/package-repo-key.test.ts.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from './helpers/agent.ts';
import { cannotChroot, freshRoot, type DebianRoot } from './helpers/debian-root.ts';
import { buildPackages, debPath, VERSION } from './helpers/packages.ts';

const run = promisify(execFile);
const KEY_UID = 'device-agent test repository <repo@example.invalid>';
const NEXT = `${VERSION}+repotest1`;

const repo = suite('signed apt repository');
const why = cannotChroot() ?? (['/usr/bin/reprepro', '/usr/bin/gpg'].find((t) => !existsSync(t)) && 'needs reprepro and gpg');
const it = why ? repo.skip : repo;
if (why) console.log(`  repository tests skipped: ${why}`);

let tmp: string;
let gnupg: string;
let dir: string;
let keyId: string;
let root: DebianRoot;

/** npm run repo -- DIR [DEB...], with the test's key in the test's GNUPGHOME. */
function makeRepo(...debs: string[]) {
  return run(process.execPath, [join(ROOT, 'packaging/apt-repo.mjs'), dir, ...debs], {
    cwd: ROOT,
    env: { ...process.env, GNUPGHOME: gnupg, DEVICE_AGENT_REPO_KEY: keyId },
  });
}

/** The repository as the device sees it: a copy at /srv/repo inside the root, served as file:. */
function publish() {
  rmSync(root.file('/srv/repo'), { recursive: true, force: true });
  cpSync(dir, root.file('/srv/repo'), { recursive: true });
}

const stanzas = (text: string) =>
  text
    .trim()
    .split(/\n\n+/)
    .map((s) =>
      Object.fromEntries(
        s
          .split('\n')
          .filter((l) => /^\S/.test(l))
          .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]),
      ),
    );

const candidate = async () => /Candidate: (\S+)/.exec((await root.exec(['apt-cache', 'policy', 'device-agent'])).stdout)?.[1];

repo.before(async () => {
  if (why) return;
  tmp = mkdtempSync(join(tmpdir(), 'da-repo-'));
  gnupg = join(tmp, 'gnupg');
  mkdirSync(gnupg, { mode: 0o700 });
  dir = join(tmp, 'repo');
  await run('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', KEY_UID, 'ed25519', 'sign', 'never'], {
    env: { ...process.env, GNUPGHOME: gnupg },
  });
  const { stdout } = await run('gpg', ['--batch', '--with-colons', '--list-keys', KEY_UID], { env: { ...process.env, GNUPGHOME: gnupg } });
  keyId = /^fpr:+([0-9A-F]{40}):/m.exec(stdout)![1]!;
  await buildPackages();
  root = await freshRoot();
});

repo.after(async () => {
  root?.remove();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

it('indexes both architectures, each entry naming a pool file with its SHA-256', async () => {
  const { stdout } = await makeRepo();
  assert.match(stdout, `signed by ${keyId}`);
  for (const arch of ['amd64', 'arm64'] as const) {
    const [entry, ...more] = stanzas(readFileSync(join(dir, `dists/stable/main/binary-${arch}/Packages`), 'utf8'));
    assert.is(more.length, 0);
    assert.is(entry!.Package, 'device-agent');
    assert.is(entry!.Version, VERSION);
    assert.is(entry!.Architecture, arch);
    const pooled = readFileSync(join(dir, entry!.Filename!));
    assert.is(entry!.SHA256, createHash('sha256').update(pooled).digest('hex'));
    assert.ok(pooled.equals(readFileSync(debPath(arch))), `${arch}: the pool holds the built package`);
  }
  const release = stanzas(readFileSync(join(dir, 'dists/stable/Release'), 'utf8'))[0]!;
  assert.equal(
    [release.Origin, release.Label, release.Suite, release.Codename, release.Architectures, release.Components],
    ['device-agent', 'device-agent', 'stable', 'stable', 'amd64 arm64', 'main'],
  );
  const verify = await run('gpgv', ['--keyring', join(dir, 'device-agent-archive-keyring.gpg'), join(dir, 'dists/stable/InRelease')]);
  assert.match(verify.stderr, `Good signature from "${KEY_UID}"`);
});

it('apt-get update && apt-get install device-agent, trusting only the repository key (signed-by)', async () => {
  publish();
  // No other source and no other trusted key: what apt accepts can only come from this key.
  rmSync(root.file('/etc/apt/trusted.gpg.d'), { recursive: true, force: true });
  mkdirSync(root.file('/etc/apt/trusted.gpg.d'));
  mkdirSync(root.file('/etc/apt/keyrings'), { recursive: true });
  cpSync(join(dir, 'device-agent-archive-keyring.gpg'), root.file('/etc/apt/keyrings/device-agent-archive-keyring.gpg'));
  writeFileSync(
    root.file('/etc/apt/sources.list'),
    'deb [signed-by=/etc/apt/keyrings/device-agent-archive-keyring.gpg] file:/srv/repo stable main\n',
  );
  const update = await root.exec(['apt-get', 'update', '--error-on=any']);
  assert.not.match(update.stdout + update.stderr, /^[WE]:/m);
  await root.exec(['apt-get', 'install', '-y', '--no-install-recommends', 'device-agent']);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format, not a template
  const { stdout: status } = await root.exec(['dpkg-query', '-W', '-f=${Status} ${Version}', 'device-agent']);
  assert.is(status, `install ok installed ${VERSION}`);
  assert.is((await root.exec(['device-agent', '--version'])).stdout.trim(), VERSION);
  // What unattended-upgrades' Origins-Pattern matches (docs/fleet.md).
  const { stdout: policy } = await root.exec(['apt-cache', 'policy']);
  assert.match(policy, 'release o=device-agent,a=stable,n=stable,l=device-agent,c=main,b=amd64');
});

it('a tampered Release is refused: BADSIG, the newer version it offers is never a candidate', async () => {
  // A newer package in the repository, then its Release edited after signing.
  const stage = join(tmp, 'next');
  await run('dpkg-deb', ['-R', debPath('amd64'), stage]);
  const control = join(stage, 'DEBIAN/control');
  writeFileSync(control, readFileSync(control, 'utf8').replace(/^Version: .*$/m, `Version: ${NEXT}`));
  const next = join(tmp, `device-agent_${NEXT}_amd64.deb`);
  await run('dpkg-deb', ['--root-owner-group', '-Znone', '-b', stage, next]);
  rmSync(stage, { recursive: true });
  await makeRepo(next);
  publish();
  for (const name of ['InRelease', 'Release']) {
    const file = root.file(`/srv/repo/dists/stable/${name}`);
    writeFileSync(file, readFileSync(file, 'utf8').replace('Description: device-agent,', 'Description: tampered,'));
  }
  const refused = await root.exec(['apt-get', 'update', '--error-on=any']).then(
    () => undefined,
    (e: Error) => e.message,
  );
  assert.ok(refused, 'apt-get update must fail');
  assert.match(refused!, `The following signatures were invalid: BADSIG ${keyId.slice(-16)} ${KEY_UID}`);
  assert.is(await candidate(), VERSION, 'the index of the tampered Release is not used');
});

it('the untouched repository upgrades the installed agent (apt-get upgrade)', async () => {
  publish();
  await root.exec(['apt-get', 'update', '--error-on=any']);
  assert.is(await candidate(), NEXT);
  await root.exec(['apt-get', 'upgrade', '-y']);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format, not a template
  const { stdout } = await root.exec(['dpkg-query', '-W', '-f=${Version}', 'device-agent']);
  assert.is(stdout, NEXT);
  assert.equal(
    readdirSync(join(dir, 'pool/main/d/device-agent')).sort(),
    [`device-agent_${NEXT}_amd64.deb`, `device-agent_${VERSION}_arm64.deb`],
    'the older amd64 package left the pool',
  );
});

repo.run();
