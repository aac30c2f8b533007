/** Test certificates made with the machine's openssl: a private CA and server certificates it signs for 127.0.0.1. */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface Certificates {
  /** The CA's certificate: what a client trusts (NODE_EXTRA_CA_CERTS). */
  caFile: string;
  certFile: string;
  keyFile: string;
  /** The server certificate's SHA-256 fingerprint, as Node writes it. */
  fingerprint: string;
}

const openssl = (cwd: string, ...args: string[]) => execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });

/** A CA in `dir` (made once per dir), and a server certificate named `name` for 127.0.0.1 and localhost, signed by it. */
export async function makeCertificates(dir: string, name: string): Promise<Certificates> {
  const caFile = join(dir, 'ca.pem');
  try {
    await readFile(caFile);
  } catch {
    openssl(dir, 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Test CA');
  }
  const keyFile = join(dir, `${name}-key.pem`);
  const certFile = join(dir, `${name}.pem`);
  openssl(dir, 'req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', keyFile, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
  await writeFile(join(dir, `${name}.ext`), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-out', certFile, '-days', '2', '-extfile', `${name}.ext`);
  return { caFile, certFile, keyFile, fingerprint: new X509Certificate(await readFile(certFile)).fingerprint256 };
}
