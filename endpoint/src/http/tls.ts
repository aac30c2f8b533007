/**
 * HTTPS without a proxy: the certificate and key are read from files at start and again on
 * `reload()` (SIGHUP from `serve`), so a renewed certificate (certbot, an ACME client) is taken
 * up without a restart. A reload that fails (a file half-written, a key that does not match)
 * keeps the certificate in use and says why.
 */
import { readFile } from 'node:fs/promises';
import { X509Certificate } from 'node:crypto';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { TrackingEndpointError } from '../errors.js';

/** Where the certificate (PEM, the chain after it) and its private key (PEM) are. */
export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** A certificate read and checked: what the server needs, and what to say about it. */
export interface LoadedTls {
  context: Pick<SecureContextOptions, 'cert' | 'key'>;
  /** The certificate's subject and when it expires, for the log. */
  description: string;
}

async function read(file: string, what: string, flag: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new TrackingEndpointError(`Cannot read the TLS ${what} file ${file}: ${(error as Error).message}. Check ${flag}.`, { cause: error });
  }
}

/** Reads and checks both files. Throws a `TrackingEndpointError` that names the file and what to do. */
export async function loadTls({ certFile, keyFile }: TlsFiles): Promise<LoadedTls> {
  const [cert, key] = await Promise.all([read(certFile, 'certificate', '--tls-cert'), read(keyFile, 'key', '--tls-key')]);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (error) {
    throw new TrackingEndpointError(`The TLS certificate file ${certFile} holds no PEM certificate (${(error as Error).message}). Give the certificate (fullchain.pem), not the key.`, { cause: error });
  }
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    throw new TrackingEndpointError(`The TLS key ${keyFile} cannot be used with the certificate ${certFile} (${(error as Error).message}). Give the private key that belongs to this certificate.`, { cause: error });
  }
  const subject = certificate.subject.replace(/\n/g, ', ');
  return { context: { cert, key }, description: `${subject}, valid until ${new Date(certificate.validTo).toISOString()}` };
}
