// `device-agent tls show`: the certificate the agent serves, read from its files, with
// what a client needs to trust it (fingerprint, SPKI pin for curl --pinnedpubkey), and
// whether clients must show a certificate of their own (tls.clientCaFile).
import { ConfigError, type Config } from '../config/config.ts';
import { readCert, describe } from '../tls/cert.ts';
import { issuedBy } from '../tls/client-ca.ts';
import { asConfigError, loadClientCaChecked } from '../tls/service.ts';

export function tlsShow(config: Config, out: (line: string) => void): void {
  const tls = config.tls;
  if (!tls) throw new ConfigError('tls: not configured (the agent speaks plain HTTP only); set "tls": {} to turn HTTPS on');
  const info = asConfigError(
    () => describe(readCert(tls.certFile).x509),
    () => 'tls.certFile',
  );
  const clientCertificates = tls.clientCaFile
    ? `required, ${issuedBy(loadClientCaChecked(tls.clientCaFile))}`
    : 'not requested (tls.clientCaFile is not set)';
  out(`certificate: ${tls.certFile}`);
  out(`subject:     ${info.subject}`);
  out(`names:       ${info.names.join(', ')}`);
  out(`not before:  ${info.notBefore}`);
  out(`not after:   ${info.notAfter}`);
  out(
    `self-signed: ${info.selfSigned ? 'yes, made by device-agent (renewed with the same key 30 days before it expires)' : 'no (brought by the operator; never rewritten)'}`,
  );
  out(`sha256 fingerprint: ${info.fingerprint}`);
  out(`spki pin:    ${info.spkiPin}`);
  out(`client certificates: ${clientCertificates}`);
}
