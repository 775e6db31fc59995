// Signing a certificate with the openssl command (a package Depends), the only X.509 work
// the agent does not do with node:crypto. Chosen over @peculiar/x509 (365 KB bundled,
// ~58 ms to load) and node-forge (298 KB, ~25 ms, no ECDSA certificates): 0 bytes in the
// executable, nothing at start, ~6 ms a certificate (docs/decisions.md).
import { execFileSync } from 'node:child_process';
import { lazy } from '../util/lazy.ts';
import { altNames, type CertNames } from './names.ts';

/** How long a certificate the agent makes is valid; it renews it 30 days before the end. */
export const VALID_DAYS = 397;

/** The openssl command, checked once on first use (a start with a valid pair never runs it). */
const openssl = lazy('openssl command', (): string => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
  } catch (err) {
    throw new Error(
      `the openssl command cannot run (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): install the openssl package`,
    );
  }
  return 'openssl';
});

export interface SignRequest {
  /** The private key's file (PEM). */
  keyFile: string;
  /** Subject as openssl -subj takes it: /O=device-agent/CN=host */
  subject: string;
  names: CertNames;
  days?: number;
}

/** A self-signed certificate (PEM) for the key: the same key at creation and renewal. */
export function selfSign(req: SignRequest): string {
  const args = [
    'req',
    '-new',
    '-x509',
    '-key',
    req.keyFile,
    '-sha256',
    '-days',
    String(req.days ?? VALID_DAYS),
    '-subj',
    req.subject,
    '-addext',
    `subjectAltName=${altNames(req.names)}`,
    '-addext',
    'basicConstraints=critical,CA:FALSE',
    '-addext',
    'keyUsage=critical,digitalSignature',
    '-addext',
    'extendedKeyUsage=serverAuth',
  ];
  try {
    return execFileSync(openssl(), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new Error(`openssl req failed: ${(e.stderr || e.message).trim().split('\n')[0]}`);
  }
}
