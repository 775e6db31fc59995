// Whom the client believes it talks to over HTTPS: the system's CAs, a CA file, or one key
// (its SPKI pin, as curl's --pinnedpubkey takes it). The pin is checked on every new
// connection, before the request leaves: TLS sessions are not cached, so a resumed
// session never skips the check.
import type { X509Certificate } from 'node:crypto';
import type * as HttpTypes from 'node:http';
import type * as HttpsTypes from 'node:https';
import type { Duplex } from 'node:stream';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import { crypto, http, https, tls } from './builtins.ts';
import { ConnectionError, TrustError } from './errors.ts';

/**
 * How to trust the device's certificate. `pin`: this key only (`sha256//<base64>`), whatever
 * the certificate says (a self-signed device). `ca`: PEM text of the CA(s) that issue it,
 * with the usual name check. Neither: the system's CAs.
 */
export interface Trust {
  pin?: string;
  ca?: string;
}

/** SPKI pin of a certificate's public key: `sha256//` and the base64 SHA-256 of its DER SubjectPublicKeyInfo. */
export function spkiPin(cert: X509Certificate): string {
  const der = cert.publicKey.export({ type: 'spki', format: 'der' });
  return `sha256//${crypto().createHash('sha256').update(der).digest('base64')}`;
}

/** A pin as users write it: `sha256//` followed by 44 base64 characters. */
export function isPin(text: string): boolean {
  return /^sha256\/\/[A-Za-z0-9+/]{43}=$/.test(text);
}

/** What a device presents, for a person (or a program) to decide whether to trust it. */
export interface PeerCertificate {
  /** True when the system's CAs (or `ca`) vouch for it and it names the host. */
  authorized: boolean;
  /** OpenSSL's reason when not authorized, e.g. `DEPTH_ZERO_SELF_SIGNED_CERT`. */
  authorizationError: string | null;
  pin: string;
  /** SHA-256 fingerprint of the certificate, colon-separated hex pairs (as browsers show it). */
  fingerprint: string;
  subject: string;
  names: string;
  validTo: string;
}

/** Connects once, without trusting anything, and reports the certificate the device presents. */
export function peerCertificate(url: string | URL, opts: { ca?: string; timeoutMs?: number } = {}): Promise<PeerCertificate> {
  const u = new URL(url);
  if (u.protocol !== 'https:') return Promise.reject(new Error(`${u.origin} is not an https:// URL`));
  return new Promise((resolve, reject) => {
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const socket = tls().connect({
      host,
      port: Number(u.port || 443),
      servername: isIp(host) ? undefined : host,
      rejectUnauthorized: false,
      ...(opts.ca ? { ca: opts.ca } : {}),
    });
    socket.setTimeout(opts.timeoutMs ?? 15_000, () => socket.destroy(new ConnectionError(`${u.host}: timed out`, 'ETIMEDOUT')));
    socket.once('secureConnect', () => {
      const cert = socket.getPeerX509Certificate();
      const authorized = socket.authorized;
      const authorizationError = socket.authorizationError ? String(socket.authorizationError) : null;
      socket.destroy();
      if (!cert) return reject(new TrustError(`${u.host} presented no certificate`));
      resolve({
        authorized,
        authorizationError,
        pin: spkiPin(cert),
        fingerprint: cert.fingerprint256,
        subject: cert.subject.replace(/\n/g, ', '),
        names: cert.subjectAltName ?? '',
        validTo: cert.validTo,
      });
    });
    socket.once('error', (err: NodeJS.ErrnoException) => reject(err instanceof ConnectionError ? err : connectionError(u, err)));
  });
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}

/** A network failure in the words a user reads: which host, what happened. */
export function connectionError(u: URL, err: NodeJS.ErrnoException): ConnectionError {
  const why =
    err.code === 'ECONNREFUSED'
      ? 'connection refused'
      : err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN'
        ? 'host not found'
        : err.code === 'ECONNRESET'
          ? 'connection reset'
          : err.code === 'ETIMEDOUT'
            ? 'timed out'
            : err.message;
  return new ConnectionError(`could not connect to ${u.host}: ${why}`, err.code, { cause: err });
}

/** An https.Agent that accepts the one key of `pin` and nothing else (made on first use: node:https loads then). */
function pinnedAgent(opts: HttpsTypes.AgentOptions, pin: string): HttpsTypes.Agent {
  const Base = https().Agent;
  class PinnedAgent extends Base {
    constructor() {
      super({ ...opts, rejectUnauthorized: false, maxCachedSessions: 0 });
    }

    // Node calls createConnection for every new socket; the check runs in its 'secureConnect',
    // which fires before TLS flushes the request written meanwhile, so a wrong key never sees it.
    override createConnection(options: HttpTypes.ClientRequestArgs, callback?: (err: Error | null, s: Duplex) => void): Duplex {
      const create = Base.prototype.createConnection as unknown as (this: HttpsTypes.Agent, o: unknown, cb?: unknown) => TLSSocket;
      const socket = create.call(this, { ...options, checkServerIdentity: () => undefined }, callback);
      socket.once('secureConnect', () => {
        const refused = checkPin(socket, pin);
        if (refused) socket.destroy(refused);
      });
      return socket;
    }
  }
  return new PinnedAgent();
}

/** Null when the connection's key is the pinned one, else the TrustError naming both pins. */
export function checkPin(socket: TLSSocket, pin: string): TrustError | null {
  const cert = socket.getPeerX509Certificate();
  const presented = cert ? spkiPin(cert) : 'none';
  if (presented === pin) return null;
  return new TrustError(
    `the device's key has changed: trusted ${pin}, presented ${presented}. ` +
      'If the device was reinstalled or its key replaced on purpose, log in again with --pin <new pin> after checking it on the device (device-agent tls show).',
    pin,
    presented,
  );
}

/**
 * The options of tls.connect for a connection of our own with the trust of agentFor(): a
 * pin checks no certificate chain or name (checkPin() then checks the key, before anything
 * is sent); a CA file or the system's CAs check both. No session is cached or resumed.
 */
export function tlsOptionsFor(url: URL, trust: Trust): ConnectionOptions {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const base: ConnectionOptions = { host, port: Number(url.port || 443), servername: isIp(host) ? undefined : host };
  if (trust.pin) return { ...base, rejectUnauthorized: false, checkServerIdentity: () => undefined };
  return { ...base, ...(trust.ca ? { ca: trust.ca } : {}) };
}

/** Throws the TrustError of a pin that is not one (for an https:// URL). */
export function checkTrust(url: URL, trust: Trust): void {
  if (url.protocol === 'https:' && trust.pin && !isPin(trust.pin)) {
    throw new TrustError(`not an SPKI pin: ${trust.pin} (expected sha256//<44 base64 characters>)`);
  }
}

/** The connection pool for a base URL and a trust: keep-alive, and for https the trust above. */
export function agentFor(url: URL, trust: Trust = {}): HttpTypes.Agent {
  const base = { keepAlive: true, maxSockets: 16 };
  if (url.protocol === 'http:') return new (http().Agent)(base);
  checkTrust(url, trust);
  if (trust.pin) return pinnedAgent(base, trust.pin);
  return new (https().Agent)({ ...base, maxCachedSessions: 0, ...(trust.ca ? { ca: trust.ca } : {}) });
}
