// GET /api/v1/tls, without a token: what a client needs to trust the device (the web page
// shows it), and whether it must show a certificate of its own. With TLS off: {"enabled": false}.
import { ref } from '../apidocs/responses.ts';
import { toRoute } from '../ops/http.ts';
import { operation } from '../ops/operation.ts';
import type { Route } from '../http/types.ts';
import type { Config } from '../config/config.ts';
import type { CertInfo } from './cert.ts';

export function tlsRoutes({ config, tlsInfo: info }: { config: Config; tlsInfo?: () => CertInfo }): Route[] {
  const clientCertificates = config.tls?.clientCaFile ? 'required' : 'none';
  const tls = operation({
    id: 'tls',
    method: 'GET',
    path: '/api/v1/tls',
    scope: null,
    tags: ['status'],
    summary: 'The HTTPS certificate: fingerprint, SPKI pin, names, validity',
    description:
      'No token: a client reads it to decide whether to trust the device (compare the fingerprint with ' +
      '`device-agent tls show` on the device).',
    answers: { 200: { description: 'the certificate in service, or `{"enabled": false}`', schema: ref('TlsInfo') } },
    run: () => {
      if (!info) return { status: 200, body: { enabled: false } };
      const { fingerprint, spkiPin, names, notBefore, notAfter, selfSigned } = info();
      return { status: 200, body: { enabled: true, fingerprint, spkiPin, names, notBefore, notAfter, selfSigned, clientCertificates } };
    },
  });
  return [toRoute(tls)];
}
