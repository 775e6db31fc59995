// TLS helpers for the HTTPS tests: pairs made by the openssl command, the certificate a
// server presents, curl and openssl s_client runs. Real clients only.
import { execFile, execFileSync } from 'node:child_process';
import { createHash, type X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import { connect } from 'node:tls';

type CertOpts = { subject?: string; days?: number; names?: string };
type Ca = { certFile: string; keyFile: string };

/** A new ECDSA P-256 key. */
function newKey(keyFile: string): void {
  execFileSync('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyFile], { stdio: 'ignore' });
}

/** openssl req: a certificate for `keyFile`, self-signed or signed by `ca`, with these extensions (openssl -addext). */
function req(keyFile: string, certFile: string, o: { subject: string; days?: number; ca?: Ca; extensions: string[] }): void {
  const args = [
    'req',
    '-new',
    ...(o.ca ? [] : ['-x509']),
    '-key',
    keyFile,
    '-out',
    certFile,
    '-days',
    String(o.days ?? 30),
    '-subj',
    o.subject,
  ];
  if (o.ca) args.push('-CA', o.ca.certFile, '-CAkey', o.ca.keyFile);
  for (const e of o.extensions) args.push('-addext', e);
  execFileSync('openssl', args, { stdio: 'ignore' });
}

/** A pair made with openssl: ECDSA P-256, `subject` (openssl -subj), `days` valid. */
export function makePair(certFile: string, keyFile: string, opts: CertOpts = {}): void {
  newKey(keyFile);
  certFor(certFile, keyFile, opts);
}

/** A certificate for an existing key. */
export function certFor(certFile: string, keyFile: string, opts: CertOpts = {}): void {
  req(keyFile, certFile, {
    subject: opts.subject ?? '/CN=operator.example',
    ...(opts.days === undefined ? {} : { days: opts.days }),
    extensions: [`subjectAltName=${opts.names ?? 'DNS:localhost,IP:127.0.0.1'}`],
  });
}

/** A CA for client certificates (tls.clientCaFile): ECDSA P-256, CA:TRUE, keyCertSign. */
export function makeCa(certFile: string, keyFile: string, subject = '/CN=Test Client CA'): void {
  newKey(keyFile);
  req(keyFile, certFile, { subject, extensions: ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign'] });
}

/** A client certificate (clientAuth) for a new key, signed by the CA `ca` made by makeCa. */
export function makeClientCert(certFile: string, keyFile: string, ca: Ca, subject = '/CN=client'): void {
  makeSignedCert(certFile, keyFile, ca, subject, ['keyUsage=critical,digitalSignature', 'extendedKeyUsage=clientAuth']);
}

/** A server certificate (serverAuth) for 127.0.0.1 and a new key, signed by the CA `ca` made by makeCa (a broker's, an S3 store's). */
export function makeServerCert(certFile: string, keyFile: string, ca: Ca): void {
  makeSignedCert(certFile, keyFile, ca, '/CN=127.0.0.1', ['subjectAltName=IP:127.0.0.1', 'extendedKeyUsage=serverAuth']);
}

/** A new key and its certificate signed by `ca`: not a CA, with these extensions (openssl -addext). */
function makeSignedCert(certFile: string, keyFile: string, ca: Ca, subject: string, extensions: string[]): void {
  newKey(keyFile);
  req(keyFile, certFile, { subject, ca, extensions: ['basicConstraints=critical,CA:FALSE', ...extensions] });
}

export function spkiPinOf(cert: X509Certificate): string {
  return `sha256//${createHash('sha256')
    .update(cert.publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64')}`;
}

/** The certificate a server presents to a new connection (no verification: the test compares). */
export function peerCert(port: number): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', rejectUnauthorized: false, servername: 'localhost' }, () => {
      const raw = socket.getPeerX509Certificate();
      socket.destroy();
      if (raw) resolve(raw);
      else reject(new Error('no peer certificate'));
    });
    socket.on('error', reject);
  });
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], input = ''): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { encoding: 'utf8', timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
    child.stdin?.end(input);
  });
}

/** One TLS handshake by openssl s_client with the given options; its output. */
export function sClient(port: number, opts: string[]): Promise<Run> {
  return run('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-servername', 'localhost', ...opts], 'Q\n');
}

/** GET over HTTPS with Node's own client, trusting `ca`. */
export function httpsGet(
  url: string,
  ca: Buffer | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}
