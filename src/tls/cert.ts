// Reading a certificate and key pair: what a client needs to trust it (fingerprint, SPKI
// pin, names, validity), whether the agent made it, and whether the key matches.
import { readFileSync } from 'node:fs';
import type { X509Certificate } from 'node:crypto';
import { errnoName } from '../util/errno.ts';
import { crypto } from '../util/crypto.ts';
import { parseAltNames } from './names.ts';
import { isoTime } from '../util/time.ts';

/** The organisation a certificate made by the agent names: with its self-signature, the mark of "ours". */
export const MADE_BY = 'device-agent';

export interface CertInfo {
  subject: string;
  names: string[];
  notBefore: string;
  notAfter: string;
  /** SHA-256 of the certificate (DER), colon-separated hex pairs. */
  fingerprint: string;
  /** SHA-256 of the public key (SPKI, DER) as curl's --pinnedpubkey takes it. */
  spkiPin: string;
  /** Made by the agent (self-signed, O=device-agent): renewed by it. */
  selfSigned: boolean;
}

export interface Pair {
  cert: Buffer;
  key: Buffer;
  x509: X509Certificate;
  info: CertInfo;
}

/** A pair that does not load; the message names the file at fault. */
export class TlsFileError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'TlsFileError';
  }
}

/** The file's bytes; a TlsFileError naming it when it cannot be read. */
export function readTlsFile(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new TlsFileError(file, `cannot read: ${errnoName(err)}`);
  }
}

/** The subject on one line: `O=device-agent, CN=gateway-1`. */
export function subjectOf(x509: X509Certificate): string {
  return x509.subject.replaceAll('\n', ', ');
}

export function describe(x509: X509Certificate): CertInfo {
  const spki = x509.publicKey.export({ type: 'spki', format: 'der' });
  const names = parseAltNames(x509.subjectAltName);
  return {
    subject: subjectOf(x509),
    names: [...names.dns, ...names.ip],
    notBefore: isoTime(Date.parse(x509.validFrom)),
    notAfter: isoTime(Date.parse(x509.validTo)),
    fingerprint: x509.fingerprint256,
    spkiPin: `sha256//${crypto().createHash('sha256').update(spki).digest('base64')}`,
    selfSigned: x509.subject === x509.issuer && x509.subject.split('\n').includes(`O=${MADE_BY}`) && x509.verify(x509.publicKey),
  };
}

/** Parses the first certificate of a PEM chain; a TlsFileError naming the file when it is none. */
export function readCert(file: string): { pem: Buffer; x509: X509Certificate } {
  const pem = readTlsFile(file);
  try {
    return { pem, x509: new (crypto().X509Certificate)(pem) };
  } catch (err) {
    throw new TlsFileError(file, `not a PEM certificate (${(err as Error).message})`);
  }
}

/** Reads and checks a pair: both parse, and the key is the certificate's. */
export function loadPair(certFile: string, keyFile: string): Pair {
  const { pem: cert, x509 } = readCert(certFile);
  const key = readTlsFile(keyFile);
  let matches: boolean;
  try {
    matches = x509.checkPrivateKey(crypto().createPrivateKey(key));
  } catch (err) {
    throw new TlsFileError(keyFile, `not a PEM private key (${(err as Error).message})`);
  }
  if (!matches) throw new TlsFileError(keyFile, `is not the key of the certificate in ${certFile}`);
  return { cert, key, x509, info: describe(x509) };
}
