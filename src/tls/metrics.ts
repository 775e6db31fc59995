// What /metrics reads of TLS (docs/api.md#metrics): one small object, updated in place by the
// listener (src/http/sniff.ts) and the certificate service (src/tls/service.ts).
export const tlsMetrics = {
  /** TLS handshakes that failed (bad records, refused versions or suites, timeouts). */
  failedHandshakes: 0,
  /** The served certificate's notAfter, seconds since the epoch; 0 with TLS off. */
  certNotAfterSeconds: 0,
};
