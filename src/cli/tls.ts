// `device-agent tls show`: the certificate the agent serves, read from its files, with
// what a client needs to trust it (fingerprint, SPKI pin for curl --pinnedpubkey).
import { ConfigError, type Config } from '../config.ts';
import { readCert, describe, TlsFileError } from '../tls/cert.ts';

export function tlsShow(config: Config, out: (line: string) => void): void {
  if (!config.tls) throw new ConfigError('tls: not configured (the agent speaks plain HTTP only); set "tls": {} to turn HTTPS on');
  let info;
  try {
    info = describe(readCert(config.tls.certFile).x509);
  } catch (err) {
    if (err instanceof TlsFileError) throw new ConfigError(`tls.certFile: ${err.message}`);
    throw err;
  }
  out(`certificate: ${config.tls.certFile}`);
  out(`subject:     ${info.subject}`);
  out(`names:       ${info.names.join(', ')}`);
  out(`not before:  ${info.notBefore}`);
  out(`not after:   ${info.notAfter}`);
  out(`self-signed: ${info.selfSigned ? 'yes, made by device-agent (renewed with the same key 30 days before it expires)' : 'no (brought by the operator; never rewritten)'}`);
  out(`sha256 fingerprint: ${info.fingerprint}`);
  out(`spki pin:    ${info.spkiPin}`);
}
