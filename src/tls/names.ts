// The names a self-signed certificate carries (docs/api.md#https): the short hostname,
// <hostname>.local, localhost, and every address of the device but link-local ones.
import { hostname, networkInterfaces } from 'node:os';

export interface CertNames {
  dns: string[];
  ip: string[];
}

/** fe80::/10 and 169.254.0.0/16 change with every link and name nothing a client dials. */
function linkLocal(address: string): boolean {
  return /^fe[89ab]/i.test(address) || address.startsWith('169.254.');
}

export function deviceNames(host = hostname(), interfaces = networkInterfaces()): CertNames {
  const short = host.split('.')[0]!.toLowerCase();
  const dns = [...new Set([short, `${short}.local`, 'localhost'].filter((n) => /^[a-z0-9.-]+$/.test(n)))];
  const ip = new Set(['127.0.0.1', '::1']);
  for (const list of Object.values(interfaces)) {
    for (const a of list ?? []) {
      if (!linkLocal(a.address)) ip.add(a.address.split('%')[0]!);
    }
  }
  return { dns, ip: [...ip] };
}

/** openssl's subjectAltName value: DNS:a,DNS:b,IP:1.2.3.4 */
export function altNames(names: CertNames): string {
  return [...names.dns.map((n) => `DNS:${n}`), ...names.ip.map((a) => `IP:${a}`)].join(',');
}

/** Names back from X509Certificate.subjectAltName ("DNS:a, IP Address:1.2.3.4"). */
export function parseAltNames(san: string | undefined): CertNames {
  const names: CertNames = { dns: [], ip: [] };
  for (const part of (san ?? '').split(/,\s*/)) {
    if (part.startsWith('DNS:')) names.dns.push(part.slice(4));
    else if (part.startsWith('IP Address:')) names.ip.push(compact(part.slice(11)));
  }
  return names;
}

/** Node spells IPv6 names in full (0:0:0:0:0:0:0:1): the URL parser gives the usual form (::1). */
function compact(address: string): string {
  if (!address.includes(':')) return address;
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address;
  }
}
