// The running certificate (and, with tls.clientCaFile, the CAs of client certificates):
// loaded at start (made or renewed first when due), reloaded when its files change
// (polled, like the users file) or on demand (SIGHUP), renewed daily. A pair or CA file
// that fails to load keeps the old one in service and logs an error naming the file.
import type { SecureContextOptions, TlsOptions } from 'node:tls';
import { ConfigError, type TlsConfig } from '../config/config.ts';
import { fileStamp, fileStampLater } from '../util/file-stamp.ts';
import type { Log } from '../util/logger.ts';
import { loadPair, TlsFileError, type CertInfo, type Pair } from './cert.ts';
import { issuedBy, loadClientCa, sameCa, type ClientCa } from './client-ca.ts';
import { dueForRenewal, ensurePair, renew } from './create.ts';
import { tlsMetrics } from './metrics.ts';

/**
 * OpenSSL's SSL_OP_NO_RENEGOTIATION (crypto.constants has it; node:crypto is not loaded
 * for one number: test/tls-input.test.ts checks the two agree).
 */
export const SSL_OP_NO_RENEGOTIATION = 0x40000000;

/** TLS 1.2's forward-secret AEAD suites; TLS 1.3's are all of that kind. */
const CIPHERS = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

export const POLL_MS = 1000;
const DAY_MS = 24 * 3600 * 1000;

/** A load at start or in a CLI command: a TlsFileError becomes a ConfigError naming the key (exit 78). */
export function asConfigError<T>(load: () => T, keyOf: (file: string) => string): T {
  try {
    return load();
  } catch (err) {
    if (err instanceof TlsFileError) throw new ConfigError(`${keyOf(err.file)}: ${err.message}`);
    throw err;
  }
}

/** The pair as the start loads it (a ConfigError naming tls.certFile or tls.keyFile). */
export function loadChecked(cfg: TlsConfig): Pair {
  return asConfigError(
    () => loadPair(cfg.certFile, cfg.keyFile),
    (file) => (file === cfg.keyFile ? 'tls.keyFile' : 'tls.certFile'),
  );
}

/** The client CA file as the start loads it (a ConfigError naming tls.clientCaFile). */
export function loadClientCaChecked(file: string): ClientCa {
  return asConfigError(
    () => loadClientCa(file),
    () => 'tls.clientCaFile',
  );
}

export class TlsService {
  private pair!: Pair;
  /** With tls.clientCaFile: the CAs a client certificate must chain to. */
  private ca: ClientCa | undefined;
  private apply: (options: SecureContextOptions) => void = () => {};
  private poller: NodeJS.Timeout | undefined;
  private daily: NodeJS.Timeout | undefined;
  private seen = '';

  constructor(
    private readonly cfg: TlsConfig,
    private readonly log: Log,
  ) {}

  /** Makes the pair when missing, renews it when due, loads it; a problem is a ConfigError (exit 78). */
  start(): CertInfo {
    // The CA file first: a bad one stops the start before a pair is made.
    if (this.cfg.clientCaFile) this.ca = loadClientCaChecked(this.cfg.clientCaFile);
    if (ensurePair(this.cfg)) this.log.info(`tls: created a self-signed certificate ${this.cfg.certFile} and key ${this.cfg.keyFile}`);
    this.use(loadChecked(this.cfg));
    if (this.ca) this.log.info(`tls: client certificates required, ${issuedBy(this.ca)}`);
    this.renewIfDue();
    return this.pair.info;
  }

  get info(): CertInfo {
    return this.pair.info;
  }

  /**
   * Options for setSecureContext: the pair, the client CAs, TLS 1.2+ and the suites. A
   * reloaded context must carry `ca` again: setSecureContext drops what it is not given.
   */
  contextOptions(): SecureContextOptions {
    return {
      cert: this.pair.cert,
      key: this.pair.key,
      ...(this.ca && { ca: this.ca.pems }),
      minVersion: 'TLSv1.2',
      ciphers: CIPHERS,
      honorCipherOrder: true,
      // A client may not renegotiate (TLS 1.2; 1.3 has none): each renegotiation is a
      // full handshake the client can ask for at will, a CPU cost with no use here.
      secureOptions: SSL_OP_NO_RENEGOTIATION,
    };
  }

  /**
   * Options for tls.createServer: the context's and, with client CAs, requestCert and
   * rejectUnauthorized (every client shows a certificate that chains to one of them).
   * Those two are the server's, read by each new connection: setSecureContext keeps them.
   */
  serverOptions(): TlsOptions {
    return { ...this.contextOptions(), ...(this.ca && { requestCert: true, rejectUnauthorized: true }) };
  }

  /** Where a reloaded pair or CA file goes (the server's setSecureContext). */
  onChange(apply: (options: SecureContextOptions) => void): void {
    this.apply = apply;
  }

  private use(pair: Pair): void {
    this.pair = pair;
    tlsMetrics.certNotAfterSeconds = Math.floor(Date.parse(pair.info.notAfter) / 1000);
  }

  /**
   * Reads the files again; new connections get what changed. The pair and the CA file
   * each load or stay: one that fails keeps the one in service, with an error logged.
   */
  reload(why = 'reload'): boolean {
    const news: string[] = [];
    let failed = false;
    try {
      const pair = loadPair(this.cfg.certFile, this.cfg.keyFile);
      if (pair.info.fingerprint !== this.pair.info.fingerprint || !pair.key.equals(this.pair.key)) {
        this.use(pair);
        news.push(`now serving ${this.cfg.certFile} fingerprint ${pair.info.fingerprint} until ${pair.info.notAfter}`);
      }
    } catch (err) {
      this.log.error(`tls: ${why}: ${(err as Error).message}; keeping the certificate in service (${this.pair.info.fingerprint})`);
      failed = true;
    }
    if (this.ca) {
      try {
        const ca = loadClientCa(this.ca.file);
        if (!sameCa(ca, this.ca)) {
          this.ca = ca;
          news.push(`client certificates required, now ${issuedBy(ca)}`);
        }
      } catch (err) {
        this.log.error(`tls: ${why}: ${(err as Error).message}; keeping the client CAs in service (${this.ca.subjects.join('; ')})`);
        failed = true;
      }
    }
    if (news.length === 0) return !failed;
    this.apply(this.contextOptions()); // before the log line: a client that reads it gets the new context
    for (const line of news) this.log.info(`tls: ${why}: ${line}`);
    return !failed;
  }

  /** Renews the agent's own certificate within 30 days of its end (never an operator's). */
  renewIfDue(now = Date.now()): void {
    if (!dueForRenewal(this.pair, now)) return;
    try {
      renew(this.cfg, this.pair);
    } catch (err) {
      this.log.error(`tls: cannot renew ${this.cfg.certFile}: ${(err as Error).message}; it expires ${this.pair.info.notAfter}`);
      return;
    }
    this.reload('renewed with the same key');
  }

  /**
   * Polls the pair's files and the CA file; a change is loaded once they have stayed the
   * same for one more poll, so that a cert and key replaced one after the other load as a
   * pair (within ~2 s).
   */
  watch(): void {
    const files = [this.cfg.certFile, this.cfg.keyFile, ...(this.cfg.clientCaFile ? [this.cfg.clientCaFile] : [])];
    let polling = false;
    let pending = '';
    const poll = async () => {
      if (polling) return;
      polling = true;
      const key = (await Promise.all(files.map(fileStampLater))).join('|');
      polling = false;
      if (!this.poller) return;
      if (key === this.seen) {
        pending = '';
        return;
      }
      if (key !== pending) {
        pending = key;
        return;
      }
      this.seen = key;
      pending = '';
      this.reload('files changed');
    };
    this.seen = files.map(fileStamp).join('|');
    this.poller = setInterval(() => void poll(), POLL_MS);
    this.poller.unref();
    this.daily = setInterval(() => this.renewIfDue(), DAY_MS);
    this.daily.unref();
  }

  stop(): void {
    clearInterval(this.poller);
    clearInterval(this.daily);
    this.poller = undefined;
  }
}
