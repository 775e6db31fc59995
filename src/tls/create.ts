// The pair the agent makes itself (docs/api.md#https): on first start when both files are
// missing, and renewed with the same key and names 30 days before it expires.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { hostname } from 'node:os';
import { replaceFile } from '../util/atomic.ts';
import { ConfigError, type TlsConfig } from '../config/config.ts';
import { crypto } from '../util/crypto.ts';
import { errnoName } from '../util/errno.ts';
import { MADE_BY, type Pair } from './cert.ts';
import { deviceNames, parseAltNames } from './names.ts';
import { selfSign } from './openssl.ts';

export const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;

function subjectFor(host: string): string {
  return `/O=${MADE_BY}/CN=${host.split('.')[0]!.replace(/[/=\\]/g, '-')}`;
}

/** ECDSA P-256 key and self-signed certificate; the key file is 0600 before a byte of it is written. */
export function createPair(cfg: TlsConfig): void {
  for (const file of [cfg.keyFile, cfg.certFile]) {
    try {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new ConfigError(`tls: cannot create ${dirname(file)}: ${errnoName(err)}`);
    }
  }
  const { privateKey } = crypto().generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  try {
    replaceFile(cfg.keyFile, privateKey, { mode: 0o600, create: true });
  } catch (err) {
    throw new ConfigError(`tls.keyFile: cannot write ${cfg.keyFile}: ${errnoName(err)}`);
  }
  try {
    const cert = selfSign({ keyFile: cfg.keyFile, subject: subjectFor(hostname()), names: deviceNames() });
    replaceFile(cfg.certFile, cert, { mode: 0o644, create: true });
  } catch (err) {
    // No key alone left behind: the next start would refuse it as half a pair.
    rmSync(cfg.keyFile, { force: true });
    throw new ConfigError(`tls.certFile: cannot create ${cfg.certFile}: ${(err as Error).message}`);
  }
}

/**
 * Whether the pair is to be made: both files missing with selfSigned. One missing, or both
 * without selfSigned, is a ConfigError naming the file.
 */
export function toBeMade(cfg: TlsConfig): boolean {
  const hasCert = existsSync(cfg.certFile);
  const hasKey = existsSync(cfg.keyFile);
  if (hasCert && hasKey) return false;
  if (hasCert) throw new ConfigError(`tls.keyFile: ${cfg.keyFile} is missing (the certificate ${cfg.certFile} is there)`);
  if (hasKey) throw new ConfigError(`tls.certFile: ${cfg.certFile} is missing (the key ${cfg.keyFile} is there)`);
  if (!cfg.selfSigned) throw new ConfigError(`tls.certFile: ${cfg.certFile} is missing (and tls.selfSigned is false)`);
  return true;
}

/** At start: the pair made when both files are missing (see toBeMade). Returns whether it was made now. */
export function ensurePair(cfg: TlsConfig): boolean {
  if (!toBeMade(cfg)) return false;
  createPair(cfg);
  return true;
}

/** Whether a certificate is the agent's own and due for renewal at `now`. */
export function dueForRenewal(pair: Pair, now = Date.now()): boolean {
  return pair.info.selfSigned && Date.parse(pair.info.notAfter) - now <= RENEW_BEFORE_MS;
}

/**
 * A new certificate for the same key, subject and names, written atomically over the old
 * one. Only for a certificate the agent made; an operator's is never rewritten.
 */
export function renew(cfg: TlsConfig, pair: Pair): void {
  const { x509 } = pair;
  const subject = '/' + x509.subject.split('\n').join('/');
  const cert = selfSign({ keyFile: cfg.keyFile, subject, names: parseAltNames(x509.subjectAltName) });
  replaceFile(cfg.certFile, cert, { mode: 0o644 });
}
