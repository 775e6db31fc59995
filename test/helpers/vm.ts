// A throwaway Debian 12 virtual machine with systemd as PID 1, for proving the package
// under the real service manager: debootstrap once into a cache, one ext4 image made from
// it with `mkfs.ext4 -d`, booted by qemu with the root's own kernel and initrd, no
// network device. Each boot runs /payload/run.sh from a second disk (its own small ext4
// image) and sends what it prints back over the second serial port; writes go to a qcow2
// overlay, so the cached image is never changed.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  accessSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CACHE_DIR, SUITE, debootstrapOnce } from './debian-root.ts';

const run = promisify(execFile);
const QEMU = '/usr/bin/qemu-system-x86_64';
const ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8', DEBIAN_FRONTEND: 'noninteractive', HOME: '/root' };

/** minbase plus systemd as init, a kernel, the package's Depends and what the checks use. */
const INCLUDE = [
  'systemd',
  'systemd-sysv',
  'udev',
  'dbus',
  'kmod',
  'linux-image-amd64',
  'adduser',
  'openssl',
  'sox',
  'libsox-fmt-alsa',
  'alsa-utils',
  'curl',
  'procps',
  'e2fsprogs',
];
const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8);
const ROOT_DIR = join(CACHE_DIR, `${SUITE}-vm-${hash(INCLUDE.join(','))}`);

/**
 * The boot's runner: after multi-user.target it mounts the payload disk and runs its
 * run.sh with output on the second serial port, then powers the machine off.
 */
const RUNNER = `[Unit]
Description=device-agent VM test runner
After=multi-user.target

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'mkdir -p /payload && mount -o ro /dev/vdb /payload && exec /bin/sh /payload/run.sh'
StandardOutput=tty
StandardError=inherit
TTYPath=/dev/ttyS1
TTYReset=no
TTYVHangup=no
TimeoutStartSec=infinity
ExecStopPost=/bin/systemctl --no-block poweroff

[Install]
WantedBy=multi-user.target
`;
/** Timers that would take the dpkg lock or the CPU in the middle of a check. */
const MASKED = [
  'apt-daily.timer',
  'apt-daily-upgrade.timer',
  'dpkg-db-backup.timer',
  'man-db.timer',
  'e2scrub_all.timer',
  'fstrim.timer',
  'systemd-tmpfiles-clean.timer',
];
const IMAGE_KEY = hash(`${RUNNER}${MASKED.join(',')}v1`);
const IMAGE = `${ROOT_DIR}-${IMAGE_KEY}.img`;
const KERNEL = `${IMAGE}.vmlinuz`;
const INITRD = `${IMAGE}.initrd`;

/** Why this machine cannot boot the test VM, or undefined when it can. */
export function cannotBootVm(): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return 'needs root on Linux (debootstrap, mkfs.ext4 -d)';
  for (const tool of ['/usr/sbin/debootstrap', '/usr/sbin/chroot', '/usr/sbin/mkfs.ext4', QEMU, '/usr/bin/qemu-img']) {
    if (!existsSync(tool)) return `needs ${tool} (Debian packages debootstrap, e2fsprogs, qemu-system-x86, qemu-utils)`;
  }
  return undefined;
}

/** Apparent size of a directory tree in bytes (for sizing its ext4 image). */
async function treeBytes(dir: string): Promise<number> {
  const { stdout } = await run('du', ['-sb', dir]);
  return Number(stdout.split('\t')[0]);
}

/** An ext4 image of `dir`, with room to spare, by mkfs.ext4 -d (no mount, no loop device). */
async function ext4Image(dir: string, image: string, spareBytes: number): Promise<void> {
  const mib = Math.ceil(((await treeBytes(dir)) * 1.2 + spareBytes) / (1 << 20));
  rmSync(image, { force: true });
  await run('mkfs.ext4', ['-q', '-F', '-L', 'vmtest', '-d', dir, image, `${mib}M`], { env: ENV });
}

/** What the booted image needs beyond the debootstrapped root (written into a copy of it). */
function configure(root: string): void {
  const put = (path: string, text: string) => writeFileSync(join(root, path), text);
  put('etc/hostname', 'da-vm\n');
  put('etc/hosts', '127.0.0.1 localhost\n127.0.1.1 da-vm\n::1 localhost\n');
  put('etc/fstab', '/dev/vda / ext4 rw,errors=remount-ro 0 1\n');
  // A machine id makes every boot a normal one: no first-boot prompts on the console.
  put('etc/machine-id', `${hash('device-agent-vm')}${hash('machine-id')}${hash('vm')}${hash('id')}\n`);
  const units = join(root, 'etc/systemd/system');
  for (const unit of MASKED) {
    rmSync(join(units, unit), { force: true });
    symlinkSync('/dev/null', join(units, unit));
  }
  put('etc/systemd/system/vm-test.service', RUNNER);
  mkdirSync(join(units, 'multi-user.target.wants'), { recursive: true });
  symlinkSync('/etc/systemd/system/vm-test.service', join(units, 'multi-user.target.wants/vm-test.service'));
}

/** The cached disk image, kernel and initrd; built on first use (debootstrap and all). */
export async function vmImage(): Promise<{ image: string; kernel: string; initrd: string; created: boolean }> {
  const made = { image: IMAGE, kernel: KERNEL, initrd: INITRD };
  if (existsSync(IMAGE) && existsSync(KERNEL) && existsSync(INITRD)) return { ...made, created: false };
  await debootstrapOnce(ROOT_DIR, INCLUDE);
  const tmp = `${IMAGE}.tmp-${process.pid}`;
  const copy = `${tmp}.root`;
  rmSync(copy, { recursive: true, force: true });
  try {
    await run('cp', ['-a', '--reflink=auto', ROOT_DIR, copy]);
    configure(copy);
    const boot = readdirSync(join(copy, 'boot'));
    const kernel = boot.find((f) => f.startsWith('vmlinuz-'));
    const initrd = boot.find((f) => f.startsWith('initrd.img-'));
    if (!kernel || !initrd) throw new Error(`no kernel or initrd in ${copy}/boot: ${boot.join(' ')}`);
    copyFileSync(join(copy, 'boot', kernel), KERNEL);
    copyFileSync(join(copy, 'boot', initrd), INITRD);
    // Room for two packages, 50 MB transfers and the journal.
    await ext4Image(copy, tmp, 1536 << 20);
    renameSync(tmp, IMAGE);
  } finally {
    rmSync(copy, { recursive: true, force: true });
    rmSync(tmp, { force: true });
  }
  return { ...made, created: true };
}

export type Accel = 'kvm' | 'tcg';

const accelArgs = (accel: Accel) => (accel === 'kvm' ? ['-accel', 'kvm', '-cpu', 'host'] : ['-accel', 'tcg,thread=multi', '-cpu', 'max']);

export interface Boot {
  /** `@ key value` lines of the runner, by key (the last one wins). */
  results: Map<string, string>;
  /** Everything the runner printed. */
  output: string;
  /** The kernel's and systemd's console (first serial port). */
  console: string;
  seconds: number;
  timedOut: boolean;
}

export interface BootOptions {
  /** qcow2 overlay over the cached image: what one boot writes, the next one sees. */
  overlay: string;
  /** Directory copied onto the payload disk; must hold run.sh. */
  payload: string;
  /** Extra kernel command line words (the runner can read them in /proc/cmdline). */
  append?: string;
  accel: Accel;
  timeoutMs: number;
  onLine?: (line: string) => void;
}

/** A qcow2 file backed by the cached image. */
export async function overlayOf(image: string, file: string): Promise<void> {
  rmSync(file, { force: true });
  await run('qemu-img', ['create', '-q', '-f', 'qcow2', '-b', image, '-F', 'raw', file]);
}

/** Boots the image once; resolves when the machine powers off (or is killed at the timeout). */
export async function boot(opts: BootOptions): Promise<Boot> {
  const { kernel, initrd } = await vmImage();
  const payloadImage = `${opts.overlay}.payload.img`;
  await ext4Image(opts.payload, payloadImage, 16 << 20);
  const consoleLog = `${opts.overlay}.console.log`;
  const started = Date.now();
  const child = spawn(
    QEMU,
    [
      '-nodefaults',
      '-display',
      'none',
      '-nic',
      'none',
      '-no-reboot',
      ...accelArgs(opts.accel),
      '-smp',
      '2',
      '-m',
      '2048',
      '-kernel',
      kernel,
      '-initrd',
      initrd,
      '-append',
      `root=/dev/vda rw console=ttyS0 quiet loglevel=4 systemd.show_status=0 panic=-1 ${opts.append ?? ''}`,
      '-drive',
      `file=${opts.overlay},format=qcow2,if=virtio`,
      '-drive',
      `file=${payloadImage},format=raw,if=virtio,readonly=on`,
      '-serial',
      `file:${consoleLog}`,
      '-serial',
      'stdio',
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let output = '';
  let pending = '';
  const results = new Map<string, string>();
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8').replace(/\r/g, '');
    output += text;
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const m = /^@ (\S+) ?(.*)$/.exec(line);
      if (m) results.set(m[1]!, m[2]!);
      opts.onLine?.(line);
    }
  });
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, opts.timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  rmSync(payloadImage, { force: true });
  const consoleText = existsSync(consoleLog) ? readFileSync(consoleLog, 'utf8') : '';
  if (code !== 0 && !timedOut) throw new Error(`qemu exited ${code}: ${stderr}\n${consoleText.slice(-4000)}`);
  return { results, output, console: consoleText, seconds: (Date.now() - started) / 1000, timedOut };
}

/** The same package with a lower version (`<version>~previous`), to upgrade from. */
export async function previousDeb(deb: string, out: string, dir: string): Promise<string> {
  const tree = join(dir, 'previous-deb');
  rmSync(tree, { recursive: true, force: true });
  await run('dpkg-deb', ['-R', deb, tree]);
  const control = join(tree, 'DEBIAN/control');
  const text = readFileSync(control, 'utf8');
  const version = /^Version: (.+)$/m.exec(text)![1]!;
  writeFileSync(control, text.replace(/^Version: .+$/m, `Version: ${version}~previous`));
  await run('dpkg-deb', ['--root-owner-group', '-Zxz', '-z1', '-b', tree, out]);
  rmSync(tree, { recursive: true, force: true });
  return `${version}~previous`;
}

const PROBE_FILE = join(CACHE_DIR, 'vm-accel');

/**
 * KVM when it boots this kernel, else QEMU's software emulation. Some machines offer a
 * nested /dev/kvm on which the stock kernel hangs at boot: a short probe boot (cached
 * per image) tells. DEVICE_AGENT_VM_ACCEL=kvm|tcg skips the probe.
 */
export async function chooseAccel(dir: string, log: (s: string) => void): Promise<Accel> {
  const forced = process.env.DEVICE_AGENT_VM_ACCEL;
  if (forced === 'kvm' || forced === 'tcg') return forced;
  try {
    accessSync('/dev/kvm', constants.R_OK | constants.W_OK);
  } catch {
    return 'tcg';
  }
  const key = `${IMAGE_KEY} ${statSync(IMAGE).mtimeMs}`;
  const cached = existsSync(PROBE_FILE) ? readFileSync(PROBE_FILE, 'utf8').split('\n') : [];
  if (cached[0] === key && (cached[1] === 'kvm' || cached[1] === 'tcg')) return cached[1];
  const payload = join(dir, 'probe');
  mkdirSync(payload, { recursive: true });
  writeFileSync(join(payload, 'run.sh'), 'echo "@ probe up"\n');
  const overlay = join(dir, 'probe.qcow2');
  await overlayOf(IMAGE, overlay);
  const probe = await boot({ overlay, payload, accel: 'kvm', timeoutMs: 60_000 }).catch(() => undefined);
  rmSync(overlay, { force: true });
  const accel: Accel = probe?.results.get('probe') === 'up' ? 'kvm' : 'tcg';
  log(`KVM probe: ${accel === 'kvm' ? `booted in ${probe!.seconds.toFixed(1)} s` : 'no boot within 60 s'}: using ${accel}`);
  writeFileSync(PROBE_FILE, `${key}\n${accel}\n`);
  return accel;
}
