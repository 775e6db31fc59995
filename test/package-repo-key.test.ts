// npm run repo's signing key (docs/fleet.md): --key, else the keyring's only secret key (as
// reprepro's SignWith: default); several, or none, stop it before anything is written, naming
// them. A one-file .deb made here stands in for the agent's: no package build, no root.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from './helpers/agent.ts';

const run = promisify(execFile);
const keys = suite('npm run repo: the signing key');
const why = ['/usr/bin/reprepro', '/usr/bin/gpg', '/usr/bin/gpgv', '/usr/bin/dpkg-deb'].find((t) => !existsSync(t));
const it = why ? keys.skip : keys;
if (why) console.log(`  repository key tests skipped: needs ${why}`);

let tmp: string;
let deb: string;
const homes: string[] = [];

/** A GNUPGHOME of its own holding a secret key for each user id (ed25519, no passphrase); their fingerprints. */
async function keyring(name: string, uids: string[]): Promise<{ home: string; fprs: string[] }> {
  const home = join(tmp, name);
  mkdirSync(home, { mode: 0o700 });
  homes.push(home);
  const env = { ...process.env, GNUPGHOME: home };
  const fprs: string[] = [];
  for (const uid of uids) {
    await run('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', uid, 'ed25519', 'sign', 'never'], { env });
    const { stdout } = await run('gpg', ['--batch', '--with-colons', '--list-keys', uid], { env });
    fprs.push(/^fpr:+([0-9A-F]{40}):/m.exec(stdout)![1]!);
  }
  return { home, fprs };
}

/** npm run repo -- DIR DEB [ARGS], with this keyring and no DEVICE_AGENT_REPO_KEY; exit code and output. */
function repo(home: string, dir: string, ...args: string[]) {
  return run(process.execPath, [join(ROOT, 'packaging/apt-repo.mjs'), dir, deb, ...args], {
    cwd: ROOT,
    env: { ...process.env, GNUPGHOME: home, DEVICE_AGENT_REPO_KEY: '' },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

/** The key that signed the repository's InRelease, as gpgv reports it with the repository's own public key. */
async function signer(dir: string): Promise<string> {
  const { stderr } = await run('gpgv', ['--keyring', join(dir, 'device-agent-archive-keyring.gpg'), join(dir, 'dists/stable/InRelease')]);
  return /using \S+ key ([0-9A-F]+)/.exec(stderr)![1]!;
}

keys.before(async () => {
  if (why) return;
  tmp = mkdtempSync(join(tmpdir(), 'da-repo-key-'));
  const pkg = join(tmp, 'pkg');
  mkdirSync(join(pkg, 'DEBIAN'), { recursive: true });
  mkdirSync(join(pkg, 'usr/share/doc/device-agent'), { recursive: true });
  writeFileSync(join(pkg, 'usr/share/doc/device-agent/README'), 'a stand-in\n');
  writeFileSync(
    join(pkg, 'DEBIAN/control'),
    'Package: device-agent\nVersion: 0.0.1\nArchitecture: amd64\nSection: admin\nPriority: optional\n' +
      'Maintainer: test <test@example.invalid>\nDescription: a stand-in for the key tests\n',
  );
  deb = join(tmp, 'device-agent_0.0.1_amd64.deb');
  await run('dpkg-deb', ['--root-owner-group', '--build', pkg, deb]);
});

keys.after(async () => {
  // Each keyring started a gpg-agent of its own.
  for (const home of homes) await run('gpgconf', ['--kill', 'gpg-agent'], { env: { ...process.env, GNUPGHOME: home } }).catch(() => {});
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

it("without --key, the keyring's only secret key signs (SignWith names it)", async () => {
  const { home, fprs } = await keyring('one', ['only <only@example.invalid>']);
  const dir = join(tmp, 'repo-one');
  const r = await repo(home, dir);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, `signed by ${fprs[0]}`);
  assert.match(readFileSync(join(dir, 'conf/distributions'), 'utf8'), `\nSignWith: ${fprs[0]}\n`);
  assert.is(await signer(dir), fprs[0]);
});

it('several secret keys and no --key: exit 2 naming each (fingerprint and user id), nothing written; --key chooses', async () => {
  const { home, fprs } = await keyring('two', ['first <first@example.invalid>', 'second <second@example.invalid>']);
  const dir = join(tmp, 'repo-two');
  const r = await repo(home, dir);
  assert.is(r.code, 2, r.stderr);
  assert.ok(
    r.stderr.startsWith(
      `apt-repo: 2 secret keys in ${home}: name the one that signs with --key ID (or DEVICE_AGENT_REPO_KEY): ` +
        `${fprs[0]} (first <first@example.invalid>), ${fprs[1]} (second <second@example.invalid>)\n`,
    ),
    r.stderr,
  );
  assert.not.ok(existsSync(dir));
  const chosen = await repo(home, dir, '--key', 'second@example.invalid');
  assert.is(chosen.code, 0, chosen.stderr);
  assert.is(await signer(dir), fprs[1]);
});

it('no secret key: exit 2 saying so, nothing written', async () => {
  const { home } = await keyring('none', []);
  const dir = join(tmp, 'repo-none');
  const r = await repo(home, dir);
  assert.is(r.code, 2);
  assert.ok(r.stderr.startsWith(`apt-repo: no secret key in ${home} to sign with: make one (docs/fleet.md) or pass --key ID\n`), r.stderr);
  assert.not.ok(existsSync(dir));
  const named = await repo(home, dir, '--key', 'nobody@example.invalid');
  assert.is(named.code, 2);
  assert.ok(named.stderr.startsWith(`apt-repo: no secret key nobody@example.invalid in ${home}\n`), named.stderr);
});

keys.run();
