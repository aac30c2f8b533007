/**
 * `loadTls` on its own, in this process: what it gives the server for good files (the files'
 * bytes, and the subject and expiry to log), and the typed error naming the file and what to do
 * for each bad one. (tls.test.ts serves and reloads certificates end to end.)
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrackingEndpointError } from '../../src/index.js';
import { loadTls } from '../../src/http/tls.js';
import { makeCertificates, type Certificates } from '../helpers/certificates.js';
import { tempDir } from '../helpers.js';

let folder: { dir: string; cleanup: () => Promise<void> };
let first: Certificates;
let second: Certificates;
/** A self-signed certificate whose subject has two parts (organisation and common name). */
let twoPart: { certFile: string; keyFile: string };

beforeAll(async () => {
  folder = await tempDir();
  first = await makeCertificates(folder.dir, 'first');
  second = await makeCertificates(folder.dir, 'second');
  twoPart = { certFile: join(folder.dir, 'two-part.pem'), keyFile: join(folder.dir, 'two-part-key.pem') };
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', twoPart.keyFile, '-out', twoPart.certFile, '-days', '2', '-subj', '/O=Pizza Shop/CN=tracking.example'], { stdio: ['ignore', 'ignore', 'pipe'] });
});
afterAll(() => folder.cleanup());

/** The error `loadTls` rejects with. */
async function refusal(files: { certFile: string; keyFile: string }): Promise<TrackingEndpointError> {
  const error = await loadTls(files).then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(TrackingEndpointError);
  return error as TrackingEndpointError;
}

describe('loadTls', () => {
  it('gives the server both files as read, and says whose certificate it is and until when it is valid', async () => {
    const loaded = await loadTls({ certFile: first.certFile, keyFile: first.keyFile });
    expect(loaded.context.cert).toEqual(await readFile(first.certFile));
    expect(loaded.context.key).toEqual(await readFile(first.keyFile));
    const validTo = new Date(new X509Certificate(await readFile(first.certFile)).validTo).toISOString();
    expect(loaded.description).toBe(`CN=first, valid until ${validTo}`);
  });

  it('writes a subject of several parts on one line, the parts separated by commas', async () => {
    const loaded = await loadTls(twoPart);
    expect(loaded.description).toMatch(/^O=Pizza Shop, CN=tracking\.example, valid until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
  });

  it('names the certificate file it cannot read, with the reason and the flag to check', async () => {
    const missing = join(folder.dir, 'nowhere.pem');
    const error = await refusal({ certFile: missing, keyFile: first.keyFile });
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(error.message).toBe(`Cannot read the TLS certificate file ${missing}: ${(error.cause as Error).message}. Check --tls-cert.`);
  });

  it('names the key file it cannot read, with the reason and the flag to check', async () => {
    const missing = join(folder.dir, 'no-key.pem');
    const error = await refusal({ certFile: first.certFile, keyFile: missing });
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(error.message).toBe(`Cannot read the TLS key file ${missing}: ${(error.cause as Error).message}. Check --tls-key.`);
  });

  it('says a certificate file holding no certificate (the key given twice) is not one, and what to give', async () => {
    const error = await refusal({ certFile: first.keyFile, keyFile: first.keyFile });
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.message).toBe(`The TLS certificate file ${first.keyFile} holds no PEM certificate (${(error.cause as Error).message}). Give the certificate (fullchain.pem), not the key.`);
  });

  it('says a key that is not the certificate\'s cannot be used with it', async () => {
    const error = await refusal({ certFile: first.certFile, keyFile: second.keyFile });
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.message).toBe(`The TLS key ${second.keyFile} cannot be used with the certificate ${first.certFile} (${(error.cause as Error).message}). Give the private key that belongs to this certificate.`);
  });
});
