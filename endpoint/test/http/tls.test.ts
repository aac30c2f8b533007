/**
 * HTTPS without a proxy: the endpoint serves a certificate from files, a bot's client reaches it
 * with a private CA through NODE_EXTRA_CA_CERTS, and a renewed certificate is taken up on reload
 * (SIGHUP in `serve`) without a restart; a bad one is refused at start and kept out on reload.
 */
import { execFile } from 'node:child_process';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TrackingEndpointError, type TrackingEndpoint } from '../../src/index.js';
import { makeCertificates, type Certificates } from '../helpers/certificates.js';
import { KEY, Q, message, start, tempDir } from '../helpers.js';
import { runCli, spawnCli } from '../cli/helpers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

let folder: { dir: string; cleanup: () => Promise<void> };
let first: Certificates;
let second: Certificates;
beforeAll(async () => {
  folder = await tempDir();
  first = await makeCertificates(folder.dir, 'first');
  second = await makeCertificates(folder.dir, 'second');
});
afterAll(() => folder.cleanup());

let endpoint: TrackingEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

/** POSTs a universal incoming record over HTTPS, trusting `ca`; the status. */
function post(url: string, ca: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${url}/track?${new URLSearchParams(Q.universalIn)}`, { method: 'POST', ca, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(JSON.stringify(message('u1', 'over https')));
  });
}

/** The SHA-256 fingerprint of the certificate a new TLS connection to `port` is given. */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerX509Certificate()!.fingerprint256);
      socket.end();
    });
    socket.on('error', reject);
  });
}

/** Runs the bot's client in a process of its own (NODE_EXTRA_CA_CERTS is read at start): logs one record, awaits it; what it got. */
function clientProcess(baseUrl: string, env: Record<string, string>): Promise<string> {
  const script = `
    const { TrackingClient } = await import(${JSON.stringify(pathToFileURL(`${ROOT}dist/index.js`).href)});
    const client = new TrackingClient({ maxAttempts: 1, logger: { warn() {}, error() {}, info() {}, debug() {} } });
    const outcome = await client.sms.logIncoming({ text: 'hello over https', userId: '+15550100' }).then(() => 'delivered', (error) => 'failed: ' + error.message);
    await client.close();
    console.log(outcome);`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH, TRACKING_BASE_URL: baseUrl, TRACKING_API_KEY: KEY, ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(stdout.trim());
    });
  });
}

describe('HTTPS', () => {
  it('serves the certificate, and a bot\'s client delivers through it with the CA in NODE_EXTRA_CA_CERTS (and not without)', async () => {
    endpoint = await start({ tlsCertFile: first.certFile, tlsKeyFile: first.keyFile });
    expect(endpoint.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(endpoint.tls).toMatch(/^CN=first, valid until \d{4}-\d\d-\d\dT/);
    expect(await servedFingerprint(endpoint.port)).toBe(first.fingerprint);
    expect(await post(endpoint.url, await readFile(first.caFile))).toBe(200);
    expect(await clientProcess(endpoint.url, { NODE_EXTRA_CA_CERTS: first.caFile })).toBe('delivered');
    const refused = await clientProcess(endpoint.url, {});
    expect(refused).toMatch(/^failed: /);
    expect(refused).toMatch(/certificate/i);
    const stored = await endpoint.store.records({ limit: 10 });
    expect(stored.map((r) => (r.body as { text: string }).text)).toEqual(['over https', 'hello over https']);
  });

  it('answers no plain-HTTP request on the HTTPS port, and goes on serving', async () => {
    endpoint = await start({ tlsCertFile: first.certFile, tlsKeyFile: first.keyFile });
    await expect(fetch(endpoint.url.replace('https:', 'http:') + '/healthz')).rejects.toThrow();
    expect(await post(endpoint.url, await readFile(first.caFile))).toBe(200);
  });

  it('takes up a renewed certificate on reloadTls() for new connections, and keeps it when the new files cannot be used', async () => {
    const certFile = `${folder.dir}/live.pem`;
    const keyFile = `${folder.dir}/live-key.pem`;
    await copyFile(first.certFile, certFile);
    await copyFile(first.keyFile, keyFile);
    endpoint = await start({ tlsCertFile: certFile, tlsKeyFile: keyFile });
    expect(await servedFingerprint(endpoint.port)).toBe(first.fingerprint);
    await copyFile(second.certFile, certFile);
    await copyFile(second.keyFile, keyFile);
    expect(await endpoint.reloadTls()).toMatch(/^CN=second, valid until /);
    expect(await servedFingerprint(endpoint.port)).toBe(second.fingerprint);
    // A renewal caught half-way: the first certificate with the second's key.
    await copyFile(first.certFile, certFile);
    const mismatch = (await endpoint.reloadTls().then(() => new Error('reloaded'), (error: unknown) => error)) as Error;
    expect(mismatch).toBeInstanceOf(TrackingEndpointError);
    expect(mismatch.message).toBe(`The TLS key ${keyFile} cannot be used with the certificate ${certFile} (${(mismatch.cause as Error).message}). Give the private key that belongs to this certificate.`);
    expect(await servedFingerprint(endpoint.port)).toBe(second.fingerprint);
    expect(await post(endpoint.url, await readFile(first.caFile))).toBe(200);
  });

  it('refuses at start a missing file, a key given as the certificate, a mismatched key, or one file of the two, naming what to do', async () => {
    const missing = `${folder.dir}/nowhere.pem`;
    await expect(start({ tlsCertFile: missing, tlsKeyFile: first.keyFile })).rejects.toThrow(new RegExp(`^Cannot read the TLS certificate file ${missing}: .*ENOENT.*\\. Check --tls-cert\\.$`));
    await expect(start({ tlsCertFile: first.certFile, tlsKeyFile: missing })).rejects.toThrow(/^Cannot read the TLS key file .*\. Check --tls-key\.$/);
    await expect(start({ tlsCertFile: first.keyFile, tlsKeyFile: first.keyFile })).rejects.toThrow(/holds no PEM certificate .*Give the certificate \(fullchain\.pem\), not the key\.$/);
    await expect(start({ tlsCertFile: first.certFile, tlsKeyFile: second.keyFile })).rejects.toThrow(/cannot be used with the certificate/);
    await expect(start({ tlsCertFile: first.certFile })).rejects.toThrow('HTTPS needs both a certificate and its key: give tlsKeyFile (--tls-key) too.');
    await expect(start({ tlsKeyFile: first.keyFile })).rejects.toThrow('HTTPS needs both a certificate and its key: give tlsCertFile (--tls-cert) too.');
    await expect(start({ tlsKeyFile: first.keyFile })).rejects.toBeInstanceOf(TrackingEndpointError);
  });

  it('reloadTls() on a plain-HTTP endpoint says there is nothing to reload', async () => {
    endpoint = await start();
    expect(endpoint.tls).toBeUndefined();
    await expect(endpoint.reloadTls()).rejects.toThrow(/serves plain HTTP: there is no certificate to reload/);
  });
});

describe('serve --tls-cert --tls-key', () => {
  it('prints the https address and the certificate, and reloads it on SIGHUP', async () => {
    const certFile = `${folder.dir}/serve.pem`;
    const keyFile = `${folder.dir}/serve-key.pem`;
    await copyFile(first.certFile, certFile);
    await copyFile(first.keyFile, keyFile);
    const child = spawnCli(['serve', '--port', '0', '--memory', '--key', KEY, '--tls-cert', certFile, '--tls-key', keyFile]);
    let stdout = '';
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise((resolve) => child.on('close', resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout?.on('data', (c: Buffer) => {
          stdout += c.toString();
          const match = /listening on (https:\/\/\S+)/.exec(stdout);
          if (match && stdout.includes('Press Ctrl+C')) resolve(match[1]);
        });
        child.on('close', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
      });
      expect(stdout).toMatch(new RegExp(`  TLS:    CN=first, valid until \\S+ \\(kill -HUP ${child.pid} reloads it\\)`));
      const port = Number(new URL(url).port);
      await copyFile(second.certFile, certFile);
      await copyFile(second.keyFile, keyFile);
      child.kill('SIGHUP');
      await expect.poll(() => stderr, { timeout: 10_000 }).toMatch(/SIGHUP: reloaded the TLS certificate: CN=second, valid until /);
      expect(await servedFingerprint(port)).toBe(second.fingerprint);
      await writeFile(keyFile, 'not a key');
      child.kill('SIGHUP');
      await expect.poll(() => stderr, { timeout: 10_000 }).toMatch(/SIGHUP: kept the TLS certificate in use: The TLS key .* cannot be used/);
      expect(await servedFingerprint(port)).toBe(second.fingerprint);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('exits 1 with the reason when only one of the two is given', async () => {
    const run = await runCli(['serve', '--port', '0', '--memory', '--tls-cert', first.certFile]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('HTTPS needs both a certificate and its key: give tlsKeyFile (--tls-key) too.');
  });
});
