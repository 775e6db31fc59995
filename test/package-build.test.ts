// The .deb packages and the systemd unit: contents, control fields, lintian,
// systemd-analyze verify and security, and the arm64 executable under qemu.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, prepareDir, ROOT } from './helpers/agent.ts';
import { eventually } from './helpers/proc.ts';
import { ARM64_BIN, buildPackages, contents, DEB_ARCHES, debPath, field, VERSION } from './helpers/packages.ts';

const run = promisify(execFile);
const UNIT = join(ROOT, 'systemd/device-agent.service');

const debs = suite('deb packages');

debs.before(async () => {
  const t = Date.now();
  await buildPackages();
  console.log(`  (package-build: executables and packages built in ${((Date.now() - t) / 1000).toFixed(1)} s)`);
});

for (const arch of DEB_ARCHES) {
  debs(`the ${arch} package has the control fields a Debian 12 device needs`, async () => {
    const deb = debPath(arch);
    assert.is(await field(deb, 'Package'), 'device-agent');
    assert.is(await field(deb, 'Version'), VERSION);
    assert.is(await field(deb, 'Architecture'), arch);
    const depends = (await field(deb, 'Depends')).split(/,\s*/);
    for (const dep of ['adduser', 'libc6 (>= 2.28)', 'libstdc++6 (>= 7)', 'sox'])
      assert.ok(depends.includes(dep), `Depends lacks ${dep}: ${depends}`);
    const recommends = (await field(deb, 'Recommends')).split(/,\s*/);
    assert.equal(recommends.sort(), ['alsa-utils', 'libsox-fmt-mp3']);
    assert.is(await field(deb, 'Suggests'), 'avahi-daemon');
    assert.ok(Number(await field(deb, 'Installed-Size')) > 100_000, 'Installed-Size in KiB covers the executable');
  });

  debs(`the ${arch} package installs the executable, unit, conffile and docs, all owned by root`, async () => {
    const list = await contents(debPath(arch));
    const files = new Map(list.filter((e) => !e.path.endsWith('/')).map((e) => [e.path, e]));
    assert.equal([...files.keys()].sort(), [
      '/etc/avahi/services/device-agent.service',
      '/etc/device-agent/config.json',
      '/lib/systemd/system/device-agent.service',
      '/usr/bin/device-agent',
      '/usr/lib/modules-load.d/device-agent.conf',
      '/usr/share/doc/device-agent/changelog.gz',
      '/usr/share/doc/device-agent/copyright',
      '/usr/share/lintian/overrides/device-agent',
      '/usr/share/man/man1/device-agent.1.gz',
    ]);
    for (const e of list) assert.is(e.owner, 'root/root', e.path);
    assert.is(files.get('/usr/bin/device-agent')!.mode, '-rwxr-xr-x');
    assert.is(files.get('/etc/device-agent/config.json')!.mode, '-rw-r--r--');
    const { stdout: conffiles } = await run('dpkg-deb', ['--info', debPath(arch), 'conffiles']);
    assert.is(conffiles, '/etc/device-agent/config.json\n/etc/avahi/services/device-agent.service\n');
    assert.is(files.get('/etc/avahi/services/device-agent.service')!.mode, '-rw-r--r--');
  });

  debs(`the ${arch} package carries the maintainer scripts`, async () => {
    const { stdout } = await run('dpkg-deb', ['--info', debPath(arch)]);
    for (const script of ['postinst', 'prerm', 'postrm', 'md5sums', 'conffiles']) assert.match(stdout, new RegExp(`\\s${script}\\b`));
  });
}

debs('the packaged config listens on 0.0.0.0:5050 and keeps state under /var/lib/device-agent', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'da-deb-'));
  try {
    await run('dpkg-deb', ['--extract', debPath('amd64'), dir]);
    const config = JSON.parse(readFileSync(join(dir, 'etc/device-agent/config.json'), 'utf8'));
    assert.is(config.host, '0.0.0.0');
    assert.is(config.port, 5050);
    for (const key of ['baseDir', 'usersFile', 'jwtSecretFile']) assert.match(config[key], /^\/var\/lib\/device-agent\//);
    // Avahi announces the agent on the config's port, as itself and as HTTPS (one port serves both).
    const avahi = readFileSync(join(dir, 'etc/avahi/services/device-agent.service'), 'utf8');
    const services = [...avahi.matchAll(/<service>\s*<type>([^<]+)<\/type>\s*<port>(\d+)<\/port>/g)].map((m) => [m[1], Number(m[2])]);
    assert.equal(services, [
      ['_device-agent._tcp', config.port],
      ['_https._tcp', config.port],
    ]);
    await run('xmllint', ['--noout', join(dir, 'etc/avahi/services/device-agent.service')]).catch((err) => {
      throw new Error(`avahi service file: not well-formed XML (xmllint, libxml2-utils): ${err.stderr ?? err.message}`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

debs('lintian finds no error and no unexplained warning in either package', async () => {
  // Exit status 0 with --fail-on=error,warning: overrides in the package carry the reasons.
  const { stdout } = await run('lintian', ['--fail-on=error,warning', debPath('amd64'), debPath('arm64')], { maxBuffer: 16 << 20 }).catch(
    (err) => {
      throw new Error(`lintian failed:\n${err.stdout}${err.stderr}`);
    },
  );
  assert.not.match(stdout, /^[EW]: /m, stdout);
});

debs('the arm64 executable runs under qemu-aarch64-static and prints the version', async () => {
  // The arm64 C and C++ runtimes come from Debian's libc6-arm64-cross and libstdc++6-arm64-cross.
  const { stdout } = await run('qemu-aarch64-static', ['-L', '/usr/aarch64-linux-gnu', ARM64_BIN, '--version']);
  assert.is(stdout, `${VERSION}\n`);
});

debs('the arm64 executable serves a download by its own sendfile addon under qemu, byte for byte', async () => {
  const { dir } = await prepareDir();
  const child = spawn('qemu-aarch64-static', ['-L', '/usr/aarch64-linux-gnu', ARM64_BIN, 'serve', '--config', join(dir, 'config.json')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  try {
    const data = randomBytes(3 * 1024 * 1024 + 5);
    writeFileSync(join(dir, 'files/a.bin'), data);
    assert.ok(await eventually(() => /listening on http/.test(out), 30_000), out);
    const url = `http://127.0.0.1:${/listening on http:\/\/[^:]+:(\d+)/.exec(out)![1]}`;
    const login = await fetch(`${url}/api/v1/agentusers/loginusertoagent`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const { token } = (await login.json()) as { token: string };
    const res = await fetch(`${url}/api/download?filepath=a.bin`, { headers: { Authorization: `Bearer ${token}` } });
    assert.is(res.status, 200);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(data));
    assert.ok(await eventually(() => /GET \/api\/download 200 /.test(out), 5000), out);
    assert.not.match(out, /copied through user space/);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
});

debs.run();

const unit = suite('systemd unit');

unit('systemd-analyze verify finds nothing to complain about', async () => {
  // Against the unpacked package, so ExecStart= and the man page it names exist; the
  // host's own units (sysinit.target and the rest) go beside it under usr/lib.
  const dir = mkdtempSync(join(tmpdir(), 'da-unit-'));
  try {
    await run('dpkg-deb', ['--extract', debPath('amd64'), dir]);
    await run('mkdir', ['-p', join(dir, 'usr/lib/systemd')]);
    await run('cp', ['-a', '/lib/systemd/system', join(dir, 'usr/lib/systemd/')]);
    // ExecReload= runs /bin/sh, which every Debian has (Essential: yes).
    await run('mkdir', ['-p', join(dir, 'bin')]);
    await run('cp', ['-L', '/bin/sh', join(dir, 'bin/sh')]);
    const { stdout, stderr } = await run(
      'systemd-analyze',
      ['verify', `--root=${dir}`, join(dir, 'lib/systemd/system/device-agent.service')],
      { env: { ...process.env, MANPATH: join(dir, 'usr/share/man') } },
    );
    assert.is(stdout + stderr, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

unit('systemd-analyze security rates the exposure at 1.3 or less', async () => {
  const { stdout } = await run('systemd-analyze', ['security', '--offline=true', '--no-pager', UNIT], { cwd: tmpdir() });
  const m = /Overall exposure level for device-agent\.service: (\d+\.\d)/.exec(stdout);
  assert.ok(m, stdout);
  console.log(`  (systemd-analyze security: exposure ${m![1]})`);
  assert.ok(Number(m![1]) <= 1.3, `exposure ${m![1]}:\n${stdout}`);
});

unit('the unit keeps what the agent needs and says why for what it leaves out', async () => {
  const text = readFileSync(UNIT, 'utf8');
  for (const line of [
    'User=device-agent',
    'SupplementaryGroups=audio',
    'StateDirectory=device-agent',
    'Restart=on-failure',
    'RestartPreventExitStatus=78',
    'DevicePolicy=closed',
    'DeviceAllow=char-alsa rw',
    'ProtectProc=invisible',
    'PrivateUsers=yes',
    // docs/api.md#systemd: readiness, watchdog, reload, and the listening socket kept across restarts.
    'Type=notify',
    'NotifyAccess=main',
    'WatchdogSec=30s',
    "ExecReload=/bin/sh -c 'kill -HUP $MAINPID'",
    'FileDescriptorStoreMax=1',
  ]) {
    assert.ok(text.split('\n').includes(line), `missing ${line}`);
  }
  const stop = Number(/^TimeoutStopSec=(\d+)s?$/m.exec(text)?.[1]);
  assert.ok(stop > 10, "the stop timeout exceeds the agent's 10 s drain");
  for (const left of ['MemoryDenyWriteExecute', 'PrivateDevices', 'ProcSubset']) {
    assert.not.match(text, new RegExp(`^${left}=`, 'm'));
    assert.match(text, new RegExp(`^# ${left}=yes|^# ${left}=pid`, 'm'), `no comment for ${left}`);
  }
});

unit.run();
