// Cheap readings of the running system from /proc, /sys and Node's os module.
// Each is a file read or a libuv call: nothing here spawns a process.
import { readdir, readFile, statfs } from '../util/fsp.ts';
import { cpus, networkInterfaces } from 'node:os';

export interface CpuTimes {
  idle: number;
  total: number;
}

/** Aggregate CPU times from the first line of /proc/stat. */
export function parseProcStat(text: string): CpuTimes | undefined {
  const line = text.split('\n', 1)[0] ?? '';
  if (!line.startsWith('cpu ')) return undefined;
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  if (f.length < 4 || f.some((n) => !Number.isFinite(n))) return undefined;
  // user nice system idle iowait irq softirq steal (guest is already inside user)
  const idle = (f[3] ?? 0) + (f[4] ?? 0);
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  return { idle, total };
}

export function loadPercent(prev: CpuTimes, cur: CpuTimes): number | null {
  const total = cur.total - prev.total;
  if (total <= 0) return null;
  return Math.round(((total - (cur.idle - prev.idle)) / total) * 1000) / 10;
}

export async function readCpuTimes(): Promise<CpuTimes | undefined> {
  try {
    return parseProcStat(await readFile('/proc/stat', 'utf8'));
  } catch {
    return undefined; // not Linux, or /proc hidden: load becomes null
  }
}

export interface Memory {
  totalBytes: number;
  usedBytes: number;
  availableBytes: number;
}

/** MemTotal and MemAvailable from /proc/meminfo (kB); used = total - available. */
export function parseMeminfo(text: string): Memory | undefined {
  const kb = (key: string) => {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  const total = kb('MemTotal');
  const available = kb('MemAvailable') ?? kb('MemFree');
  if (total === undefined || available === undefined) return undefined;
  return { totalBytes: total, usedBytes: total - available, availableBytes: available };
}

export async function readMemory(): Promise<Memory | null> {
  try {
    return parseMeminfo(await readFile('/proc/meminfo', 'utf8')) ?? null;
  } catch {
    return null;
  }
}

export interface Disk {
  path: string;
  totalBytes: number | null;
  usedBytes: number | null;
  availableBytes: number | null;
}

export async function readDisk(path: string): Promise<Disk> {
  try {
    const s = await statfs(path);
    const total = s.blocks * s.bsize;
    return { path, totalBytes: total, usedBytes: (s.blocks - s.bfree) * s.bsize, availableBytes: s.bavail * s.bsize };
  } catch {
    return { path, totalBytes: null, usedBytes: null, availableBytes: null };
  }
}

/** The thermal zone that best stands for the CPU, found once. */
export async function findCpuThermalZone(root = '/sys/class/thermal'): Promise<string | undefined> {
  let zones: string[];
  try {
    zones = (await readdir(root)).filter((z) => z.startsWith('thermal_zone')).sort();
  } catch {
    return undefined;
  }
  let first: string | undefined;
  for (const z of zones) {
    const type = await readFile(`${root}/${z}/type`, 'utf8').then(
      (t) => t.trim(),
      () => '',
    );
    first ??= `${root}/${z}/temp`;
    if (/cpu|soc|x86_pkg|coretemp|k10temp|package/i.test(type)) return `${root}/${z}/temp`;
  }
  return first;
}

export async function readTemperature(file: string | undefined): Promise<number | null> {
  if (!file) return null;
  try {
    const milli = Number((await readFile(file, 'utf8')).trim());
    return Number.isFinite(milli) ? Math.round(milli / 100) / 10 : null;
  } catch {
    return null;
  }
}

export interface Iface {
  iface: string;
  mac: string | null;
  ipv4: string[];
  ipv6: string[];
}

export function readNetwork(): Iface[] {
  const out: Iface[] = [];
  for (const [name, addrs] of Object.entries(networkInterfaces())) {
    if (!addrs || addrs.every((a) => a.internal)) continue; // loopback says nothing about the device
    const mac = addrs.find((a) => a.mac && a.mac !== '00:00:00:00:00:00')?.mac ?? null;
    out.push({
      iface: name,
      mac,
      ipv4: addrs.filter((a) => a.family === 'IPv4').map((a) => a.address),
      ipv6: addrs.filter((a) => a.family === 'IPv6').map((a) => a.address),
    });
  }
  return out;
}

/** NAME and VERSION_ID of os-release(5): "Debian GNU/Linux", "12". */
export function parseOsRelease(text: string): { distro: string; release: string } {
  const field = (key: string) => {
    const m = new RegExp(`^${key}=(.*)$`, 'm').exec(text);
    return m ? m[1]!.trim().replace(/^(["'])(.*)\1$/, '$2') : '';
  };
  return { distro: field('NAME') || 'unknown', release: field('VERSION_ID') || field('BUILD_ID') || 'unknown' };
}

export async function readOsRelease(): Promise<{ distro: string; release: string }> {
  for (const file of ['/etc/os-release', '/usr/lib/os-release']) {
    try {
      return parseOsRelease(await readFile(file, 'utf8'));
    } catch {
      // try the next location (os-release(5) names both)
    }
  }
  return { distro: 'unknown', release: 'unknown' };
}

/** The CPU's name from /proc/cpuinfo: x86 "model name", ARM "Hardware" or the board "Model". */
export function parseCpuModel(text: string): string | undefined {
  for (const key of ['model name', 'Hardware', 'Model', 'cpu model']) {
    const m = new RegExp(`^${key}\\s*:\\s*(.+)$`, 'm').exec(text);
    if (m && m[1]!.trim()) return m[1]!.trim();
  }
  return undefined;
}

export async function readCpuModel(): Promise<string> {
  const text = await readFile('/proc/cpuinfo', 'utf8').catch(() => '');
  return parseCpuModel(text) ?? (cpus()[0]?.model || 'unknown');
}
