// Installs the amd64 package for real in a throwaway Debian 12 root (never on the machine
// running the tests): first install, the service user running it, upgrade, remove, purge.
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cannotChroot, freshRoot, startInstalled, type DebianRoot } from './helpers/debian-root.ts';
import { bearer, jsonPost } from './helpers/http.ts';
import { buildPackages, debPath } from './helpers/packages.ts';

const execFileP = promisify(execFile);
const STATE = '/var/lib/device-agent';
const CONFIG = '/etc/device-agent/config.json';

const install = suite('install in a Debian 12 root');
const why = cannotChroot();
/** Without root or debootstrap every case is reported as skipped (uvu counts it), not as passed. */
const it = why ? install.skip : install;
if (why) console.log(`  install tests skipped: ${why}`);
let root: DebianRoot;
let agent: { child: ChildProcess; url: string } | undefined;
const kept: { password?: string; token?: string; users?: string; secret?: string; fingerprint?: string } = {};

async function stopInstalled(): Promise<void> {
  if (!agent) return;
  const { child } = agent;
  agent = undefined;
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function login(url: string, password: string): Promise<string> {
  const res = await jsonPost(`${url}/api/v1/agentusers/loginusertoagent`, { username: 'admin', password });
  assert.is(res.status, 200, await res.clone().text());
  return ((await res.json()) as { token: string }).token;
}

const inside = (path: string) => root.file(path);
const uidOf = (name: string) =>
  Number(
    readFileSync(inside('/etc/passwd'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${name}:`))
      ?.split(':')[2],
  );

install.before(async () => {
  if (why) return;
  await buildPackages();
  const t = Date.now();
  root = await freshRoot();
  console.log(`  (package-install: Debian root ready in ${((Date.now() - t) / 1000).toFixed(1)} s)`);
});

install.after(async () => {
  await stopInstalled();
  root?.remove();
});

it('dpkg -i creates the service user, the state directory, the admin and the enable link', async () => {
  const deb = '/tmp/device-agent.deb';
  writeFileSync(inside(deb), readFileSync(debPath('amd64')));
  const { stdout } = await root.exec(['dpkg', '-i', deb]);
  assert.match(stdout, `its password is in ${STATE}/initial-admin-password`);
  const { stdout: id } = await root.exec(['id', 'device-agent']);
  assert.match(id, /groups=\d+\(device-agent\),\d+\(audio\)/);
  const uid = uidOf('device-agent');
  const st = statSync(inside(STATE));
  assert.is(st.uid, uid);
  assert.is(st.mode & 0o777, 0o750);
  const pw = statSync(inside(`${STATE}/initial-admin-password`));
  assert.is(pw.uid, 0);
  assert.is(pw.mode & 0o777, 0o600);
  const users = statSync(inside(`${STATE}/users.json`));
  assert.is(users.uid, uid, 'the users file belongs to the service user, which must read it');
  assert.is(users.mode & 0o777, 0o600);
  // An absolute link, valid inside the root: read it, do not follow it from outside.
  const link = readlinkSync(inside('/etc/systemd/system/multi-user.target.wants/device-agent.service'));
  assert.is(link, '/lib/systemd/system/device-agent.service', 'deb-systemd-helper enabled the unit');
  kept.password = readFileSync(inside(`${STATE}/initial-admin-password`), 'utf8').trim();
  assert.ok(kept.password.length >= 16);
});

it('the installed executable serves the packaged config as device-agent: login and status', async () => {
  // The admin's edit of the conffile: loopback and any free port, so the test clashes with nothing.
  const config = JSON.parse(readFileSync(inside(CONFIG), 'utf8'));
  writeFileSync(inside(CONFIG), JSON.stringify({ ...config, host: '127.0.0.1', port: 0 }, null, 2));
  agent = await startInstalled(root, CONFIG);
  const token = await login(agent.url, kept.password!);
  const res = await fetch(`${agent.url}/api/v1/devicestatus/get`, { headers: bearer(token) });
  assert.is(res.status, 200);
  const status = (await res.json()) as Record<string, any>;
  assert.match(status.distro, /Debian/);
  assert.is(status.disk.path, `${STATE}/files`);
  assert.type(status.memory.totalBytes, 'number');
  assert.type(status.cpu.cores, 'number');
  const secret = statSync(inside(`${STATE}/jwt.secret`));
  assert.is(secret.uid, uidOf('device-agent'), 'the service created its secret');
  assert.is(secret.mode & 0o777, 0o600);
  kept.token = token;
  // Data of the device that must survive an upgrade.
  writeFileSync(inside(`${STATE}/files/kept.txt`), 'kept across upgrades\n');
});

it('HTTPS with no step by the operator: tls show gives the pin, curl --pinnedpubkey reaches the agent', async () => {
  const key = statSync(inside(`${STATE}/tls/key.pem`));
  assert.is(key.uid, uidOf('device-agent'), 'the service made its key');
  assert.is(key.mode & 0o777, 0o600);
  assert.is(statSync(inside(`${STATE}/tls`)).mode & 0o777, 0o700);
  const { stdout: show } = await root.exec(['device-agent', 'tls', 'show']);
  const pin = /^spki pin: +(\S+)$/m.exec(show)?.[1];
  assert.ok(pin, show);
  kept.fingerprint = /^sha256 fingerprint: (\S+)$/m.exec(show)?.[1];
  const https = agent!.url.replace('http:', 'https:') + '/api/v1/health';
  const curl = await execFileP('curl', ['-sS', '-k', '--pinnedpubkey', pin!, https]);
  assert.equal(JSON.parse(curl.stdout).status, 'ok');
  const info = (await (await fetch(`${agent!.url}/api/v1/tls`)).json()) as { fingerprint: string; selfSigned: boolean };
  assert.is(info.fingerprint, kept.fingerprint);
  assert.is(info.selfSigned, true);
});

it('the installed service uploads into and downloads from its files directory', async () => {
  const form = new FormData();
  form.append('saveToPath', 'hello.txt');
  form.append('myFile', new Blob(['hello from the test\n']), 'hello.txt');
  const up = await fetch(`${agent!.url}/api/upload`, { method: 'POST', headers: bearer(kept.token!), body: form });
  assert.is(up.status, 200);
  assert.equal(await up.json(), { message: 'Uploaded successfully' });
  const st = statSync(inside(`${STATE}/files/hello.txt`));
  assert.is(st.uid, uidOf('device-agent'));
  assert.is(st.mode & 0o777, 0o644);
  const down = await fetch(`${agent!.url}/api/download?filepath=hello.txt`, { headers: bearer(kept.token!) });
  assert.is(down.status, 200);
  assert.is(await down.text(), 'hello from the test\n');
});

it('an upgrade over itself keeps users, secret, conffile edits and data', async () => {
  await stopInstalled();
  kept.users = readFileSync(inside(`${STATE}/users.json`), 'utf8');
  kept.secret = readFileSync(inside(`${STATE}/jwt.secret`), 'utf8');
  const { stdout } = await root.exec(['dpkg', '-i', '/tmp/device-agent.deb']);
  assert.not.match(stdout, 'created user');
  assert.is(readFileSync(inside(`${STATE}/users.json`), 'utf8'), kept.users);
  assert.is(readFileSync(inside(`${STATE}/jwt.secret`), 'utf8'), kept.secret);
  assert.is(readFileSync(inside(`${STATE}/initial-admin-password`), 'utf8').trim(), kept.password);
  assert.is(readFileSync(inside(`${STATE}/files/kept.txt`), 'utf8'), 'kept across upgrades\n');
  assert.is(JSON.parse(readFileSync(inside(CONFIG), 'utf8')).port, 0, 'the edited conffile stays');
  assert.match(
    (await root.exec(['device-agent', 'tls', 'show'])).stdout,
    `sha256 fingerprint: ${kept.fingerprint}`,
    'the certificate stays',
  );
  agent = await startInstalled(root, CONFIG);
  // A token from before the upgrade still verifies: same secret, same user.
  const res = await fetch(`${agent.url}/api/v1/devicestatus/get`, { headers: bearer(kept.token!) });
  assert.is(res.status, 200);
  await login(agent.url, kept.password!);
  await stopInstalled();
});

it('remove keeps config and state; purge leaves nothing of the package behind', async () => {
  await root.exec(['dpkg', '--remove', 'device-agent']);
  assert.not.ok(existsSync(inside('/usr/bin/device-agent')));
  assert.ok(existsSync(inside(CONFIG)));
  assert.ok(existsSync(inside(`${STATE}/users.json`)));
  await root.exec(['dpkg', '--purge', 'device-agent']);
  const left: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.name.includes('device-agent') && p !== inside('/tmp/device-agent.deb')) left.push(p.slice(root.path.length));
      if (e.isDirectory() && !['/proc', '/sys', '/dev'].includes(p.slice(root.path.length))) walk(p);
    }
  };
  walk(root.path);
  assert.equal(left, [], `left after purge: ${left.join(', ')}`);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format, not a template
  const { stdout } = await root.exec(['dpkg-query', '-W', '-f=${Status}', 'device-agent']).catch((e) => ({ stdout: String(e) }));
  assert.not.match(stdout, /ok installed|config-files/);
});

install.run();
