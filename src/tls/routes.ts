// GET /api/v1/tls, without a token: what a client needs to trust the device (the web page
// shows it), and whether it must show a certificate of its own. With TLS off: {"enabled": false}.
import { json, ref } from '../apidocs/responses.ts';
import { sendJson } from '../http/respond.ts';
import type { Route } from '../http/types.ts';
import type { CertInfo } from './cert.ts';

export function tlsRoutes(info: (() => CertInfo) | undefined, clientCertificates: 'required' | 'none'): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/tls',
      scope: null,
      doc: () => ({
        operation: {
          tags: ['status'],
          operationId: 'tls',
          summary: 'The HTTPS certificate: fingerprint, SPKI pin, names, validity',
          description:
            'No token: a client reads it to decide whether to trust the device (compare the fingerprint with ' +
            '`device-agent tls show` on the device).',
          responses: { 200: { description: 'the certificate in service, or `{"enabled": false}`', content: json(ref('TlsInfo')) } },
        },
      }),
      handler: (_req, res) => {
        if (!info) return sendJson(res, 200, { enabled: false });
        const { fingerprint, spkiPin, names, notBefore, notAfter, selfSigned } = info();
        sendJson(res, 200, { enabled: true, fingerprint, spkiPin, names, notBefore, notAfter, selfSigned, clientCertificates });
      },
    },
  ];
}
