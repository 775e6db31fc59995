// The running certificate: loaded at start (made or renewed first when due), reloaded when
// its files change (polled, like the users file) or on demand (SIGHUP), renewed daily.
// A pair that fails to load keeps the old one in service and logs an error naming the file.
import type { SecureContextOptions } from 'node:tls';
import { ConfigError, type TlsConfig } from '../config.ts';
import { fileStamp, fileStampLater } from '../file-stamp.ts';
import type { Log } from '../logger.ts';
import { loadPair, TlsFileError, type CertInfo, type Pair } from './cert.ts';
import { dueForRenewal, ensurePair, renew } from './create.ts';
import { tlsMetrics } from './metrics.ts';

/** TLS 1.2's forward-secret AEAD suites; TLS 1.3's are all of that kind. */
const CIPHERS = [
  'TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305', 'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

export const POLL_MS = 1000;
const DAY_MS = 24 * 3600 * 1000;

/** The pair as the start loads it: a TlsFileError becomes a ConfigError naming the key (exit 78). */
export function loadChecked(cfg: TlsConfig): Pair {
  try {
    return loadPair(cfg.certFile, cfg.keyFile);
  } catch (err) {
    if (err instanceof TlsFileError) throw new ConfigError(`${err.file === cfg.keyFile ? 'tls.keyFile' : 'tls.certFile'}: ${err.message}`);
    throw err;
  }
}

export class TlsService {
  private pair!: Pair;
  private apply: (options: SecureContextOptions) => void = () => {};
  private poller: NodeJS.Timeout | undefined;
  private daily: NodeJS.Timeout | undefined;
  private seen = '';

  constructor(private readonly cfg: TlsConfig, private readonly log: Log) {}

  /** Makes the pair when missing, renews it when due, loads it; a problem is a ConfigError (exit 78). */
  start(): CertInfo {
    if (ensurePair(this.cfg)) this.log.info(`tls: created a self-signed certificate ${this.cfg.certFile} and key ${this.cfg.keyFile}`);
    this.use(loadChecked(this.cfg));
    this.renewIfDue();
    return this.pair.info;
  }

  get info(): CertInfo {
    return this.pair.info;
  }

  /** Options for tls.createServer and setSecureContext: the pair, TLS 1.2+ and the suites. */
  contextOptions(): SecureContextOptions {
    return {
      cert: this.pair.cert,
      key: this.pair.key,
      minVersion: 'TLSv1.2',
      ciphers: CIPHERS,
      honorCipherOrder: true,
    };
  }

  /** Where a reloaded pair goes (the server's setSecureContext). */
  onChange(apply: (options: SecureContextOptions) => void): void {
    this.apply = apply;
  }

  private use(pair: Pair): void {
    this.pair = pair;
    tlsMetrics.certNotAfterSeconds = Math.floor(Date.parse(pair.info.notAfter) / 1000);
  }

  /** Reads the files again; new connections get the new pair, or the old one stays with an error logged. */
  reload(why = 'reload'): boolean {
    let pair: Pair;
    try {
      pair = loadPair(this.cfg.certFile, this.cfg.keyFile);
    } catch (err) {
      this.log.error(`tls: ${why}: ${(err as Error).message}; keeping the certificate in service (${this.pair.info.fingerprint})`);
      return false;
    }
    if (pair.info.fingerprint === this.pair.info.fingerprint && pair.key.equals(this.pair.key)) return true;
    this.use(pair);
    this.apply(this.contextOptions());
    this.log.info(`tls: ${why}: now serving ${this.cfg.certFile} fingerprint ${pair.info.fingerprint} until ${pair.info.notAfter}`);
    return true;
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
   * Polls both files; a change is loaded once they have stayed the same for one more poll,
   * so that a cert and key replaced one after the other load as a pair (within ~2 s).
   */
  watch(): void {
    let polling = false;
    let pending = '';
    const poll = async () => {
      if (polling) return;
      polling = true;
      const key = (await Promise.all([fileStampLater(this.cfg.certFile), fileStampLater(this.cfg.keyFile)])).join('|');
      polling = false;
      if (!this.poller) return;
      if (key === this.seen) { pending = ''; return; }
      if (key !== pending) { pending = key; return; }
      this.seen = key;
      pending = '';
      this.reload('files changed');
    };
    this.seen = [this.cfg.certFile, this.cfg.keyFile].map(fileStamp).join('|');
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
