// tls.clientCaFile (mutual TLS): the CAs a client certificate must chain to. Each
// certificate of the PEM file is parsed here, so that a bad file stops the start (or is
// kept out of a reload) with its name, rather than as an OpenSSL error in the listener.
import { crypto } from '../util/crypto.ts';
import { readTlsFile, subjectOf, TlsFileError } from './cert.ts';

export interface ClientCa {
  file: string;
  /** The file's certificates, each a PEM block, as a secure context's `ca` takes them. */
  pems: string[];
  /** Their subjects, one line each, for `tls show` and the log. */
  subjects: string[];
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]*-----END CERTIFICATE-----/g;

/** Reads the CA file; a TlsFileError naming it when it holds no certificate or a broken one. */
export function loadClientCa(file: string): ClientCa {
  const pems = readTlsFile(file).toString('latin1').match(PEM_CERTIFICATE) ?? [];
  if (pems.length === 0) throw new TlsFileError(file, 'holds no PEM certificate');
  const subjects = pems.map((pem) => {
    try {
      return subjectOf(new (crypto().X509Certificate)(pem));
    } catch (err) {
      throw new TlsFileError(file, `not a PEM certificate (${(err as Error).message})`);
    }
  });
  return { file, pems, subjects };
}

/** Where client certificates must come from, for tls show, config check and the log. */
export function issuedBy(ca: ClientCa): string {
  return `issued by a CA in ${ca.file} (${ca.subjects.join('; ')})`;
}

/** Whether two loads hold the same certificates (a reload then changes nothing). */
export function sameCa(a: ClientCa | undefined, b: ClientCa | undefined): boolean {
  return a?.pems.join('') === b?.pems.join('');
}
