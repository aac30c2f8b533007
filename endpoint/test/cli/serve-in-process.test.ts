/**
 * `serve` run in this process (serve.test.ts runs it as a process, as a user does): the lines it
 * prints at start for each way of keeping records, keys and readers; what it takes from the
 * environment; the usage errors it throws before starting anything; SIGHUP and the signals that
 * stop it. Signals are emitted on this process; the listeners `serve` leaves behind (the one that
 * exits on a second signal) are removed after each test.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UsageError, type CliIO } from '../../src/cli/command.js';
import { collectKeys, serveCommand } from '../../src/cli/serve.js';
import { makeCertificates } from '../helpers/certificates.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const before = new Map(SIGNALS.map((signal) => [signal, process.listeners(signal)]));
const folders: string[] = [];

/** Removes what `serve` leaves listening once stopped (its exit on a second signal). */
function forgetSignals(): void {
  for (const signal of SIGNALS) for (const listener of process.listeners(signal)) if (!before.get(signal)!.includes(listener)) process.off(signal, listener);
}

afterEach(async () => {
  forgetSignals();
  vi.restoreAllMocks();
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'serve-in-process-'));
  folders.push(dir);
  return dir;
}

/** A running `serve`: what it printed so far, its address, and how to stop it. */
interface Serving {
  out: () => string;
  err: () => string;
  url: string;
  /** Emits `signal` on this process and resolves with what `run` returned. */
  stop(signal?: 'SIGINT' | 'SIGTERM'): Promise<number>;
  /** The SIGHUP listeners of its own still there when `run` returned (before the test forgets them). */
  hupLeftAtStop(): number;
}

function io(env: NodeJS.ProcessEnv): { io: CliIO; out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  return { io: { stdout, stderr, env }, out: () => out, err: () => err };
}

/** Runs `serve args` until it has printed its start lines. */
async function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Serving> {
  const streams = io(env);
  const run = serveCommand.run(['--port', '0', ...args], streams.io);
  const failed = run.then((code) => new Error(`serve returned ${code}:\n${streams.out()}\n${streams.err()}`));
  await Promise.race([vi.waitFor(() => expect(streams.out()).toContain('Press Ctrl+C to stop.'), { timeout: 15_000 }), failed.then((e) => Promise.reject(e))]);
  const url = /^Tracking endpoint listening on (\S+)/m.exec(streams.out())![1];
  let hupLeft = -1;
  return {
    hupLeftAtStop: () => hupLeft,
    out: streams.out,
    err: streams.err,
    url,
    async stop(signal = 'SIGTERM') {
      process.emit(signal, signal);
      const code = await run;
      hupLeft = process.listeners('SIGHUP').filter((listener) => !before.get('SIGHUP')!.includes(listener)).length;
      forgetSignals();
      return code;
    },
  };
}

/** The usage error `serve args` throws before starting anything. */
async function usageError(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const streams = io(env);
  const error = await serveCommand.run(args, streams.io).then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(UsageError);
  expect(streams.out()).toBe('');
  return (error as Error).message;
}

/** POSTs one record with `apiKey`, addressed to `host` when given (fetch cannot set Host: node:http does); the status. */
function track(url: string, apiKey: string, host?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/track?${new URLSearchParams({ platform: 'universal', v: '10.1.1-rest', type: 'incoming', apiKey })}`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...(host ? { host } : {}) },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ text: 'hi', userId: 'u1', platformJson: { timestamp: new Date().toISOString() } }));
  });
}

describe('serve in process', () => {
  it('prints where it listens and what it accepts, keeps records in memory with --memory, and stops on SIGTERM saying so', async () => {
    const served = await serve(['--memory', '--key', 'pizza=key-one-1', '--key', 'key-two-2'], { TRACKING_API_KEY: 'key-three-3' });
    const { url } = served;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(served.out().split('\n')).toEqual([
      `Tracking endpoint listening on ${url}`,
      `  Track:  POST ${url}/track  (accepting 3 API keys)`,
      `  Page:   ${url}/  (transcripts and charts, live)`,
      `  Read:   ${url}/api/summary, /api/users, /api/conversations, /api/transcript?user=ID  (open on this machine: no --reader given)`,
      '  Data:   in memory only (lost on stop) (0 records)',
      `  Health: ${url}/healthz`,
      `  Bots:   TRACKING_BASE_URL=${url}`,
      'Press Ctrl+C to stop.',
      '',
    ]);
    expect(await track(url, 'key-three-3')).toBe(200);
    expect(await track(url, 'key-four-4')).toBe(401);
    await expect(served.stop()).resolves.toBe(0);
    expect(served.out()).toMatch(/Press Ctrl\+C to stop\.\nSIGTERM: stopping \(again to stop at once\)…\nStopped\.\n$/);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    // The signals it listened for are left as they were, but for the exit on a second one.
    expect(process.listeners('SIGHUP')).toEqual(before.get('SIGHUP'));
  });

  it('exits at once on a second signal while stopping', async () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const served = await serve(['--memory']);
    const stopped = served.stop('SIGINT');
    expect(served.out()).toContain('SIGINT: stopping (again to stop at once)…');
    expect(exit).not.toHaveBeenCalled();
    process.emit('SIGINT', 'SIGINT');
    expect(exit).toHaveBeenCalledWith(130);
    process.emit('SIGTERM', 'SIGTERM');
    expect(exit).toHaveBeenLastCalledWith(143);
    await expect(stopped).resolves.toBe(0);
  });

  it('counts one key, and says when it accepts any key', async () => {
    const one = await serve(['--memory', '--key', 'only-key-1']);
    expect(one.out()).toContain('(accepting 1 API key)');
    await one.stop();
    const any = await serve(['--memory'], { TRACKING_API_KEYS: ' , ', TRACKING_API_KEY: '' });
    expect(any.out()).toContain('(no --key given: accepting any API key that is not a placeholder)');
    await any.stop();
  });

  it('says a SQLite file\'s path and how many records it holds, one or more', async () => {
    const file = join(await folder(), 'tracking.db');
    const first = await serve(['--data', file, '--key', 'key-one-1']);
    expect(first.out()).toContain(`  Data:   in SQLite ${file} (0 records)\n`);
    expect(await track(first.url, 'key-one-1')).toBe(200);
    await first.stop();
    const again = await serve(['--data', file, '--key', 'key-one-1']);
    expect(again.out()).toContain(`  Data:   in SQLite ${file} (1 record)\n`);
    await again.stop();
  });

  it('says who may read: reader tokens from flags and the environment, one or several, or users named by an auth proxy', async () => {
    const one = await serve(['--memory', '--reader', 'ann=token-ann-1234']);
    expect(one.out()).toContain('(1 reader token, as Authorization: Bearer)');
    // The readers' tokens are asked for, from --reader and TRACKING_READERS alike.
    expect((await fetch(`${one.url}/api/summary`)).status).toBe(401);
    expect((await fetch(`${one.url}/api/summary`, { headers: { authorization: 'Bearer token-ann-1234' } })).status).toBe(200);
    await one.stop();
    const two = await serve(['--memory', '--reader', 'ann=token-ann-1234'], { TRACKING_READERS: ' bob=token-bob-5678 , ' });
    expect(two.out()).toContain('(2 reader tokens, as Authorization: Bearer)');
    expect((await fetch(`${two.url}/api/summary`, { headers: { authorization: 'Bearer token-bob-5678' } })).status).toBe(200);
    await two.stop();
    const proxied = await serve(['--memory', '--trust-proxy-user', 'X-Forwarded-User', '--reader-user', 'ann', '--reader-user', 'bob']);
    expect(proxied.out()).toMatch(/\(signed in through the auth proxy's x-forwarded-user header, 2 users\)/i);
    await proxied.stop();
    const single = await serve(['--memory', '--trust-proxy-user', 'X-Forwarded-User', '--reader-user', 'ann']);
    expect(single.out()).toMatch(/header, 1 user\)\n/);
    await single.stop();
  });

  it('takes the allowed host names from flags and TRACKING_ALLOWED_HOSTS, and the metrics token from TRACKING_METRICS_TOKEN', async () => {
    const served = await serve(['--memory', '--key', 'key-one-1', '--allowed-host', 'flag.example', '--reader', 'ann=token-ann-1234'], { TRACKING_ALLOWED_HOSTS: ' env.example , ', TRACKING_METRICS_TOKEN: 'metrics-token-1' });
    const port = new URL(served.url).port;
    expect(await track(served.url, 'key-one-1', `flag.example:${port}`)).toBe(200);
    expect(await track(served.url, 'key-one-1', `env.example:${port}`)).toBe(200);
    expect(await track(served.url, 'key-one-1', `other.example:${port}`)).toBe(403);
    expect((await fetch(`${served.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-1' } })).status).toBe(200);
    expect((await fetch(`${served.url}/metrics`)).status).toBe(401);
    await served.stop();
    const flag = await serve(['--memory', '--reader', 'ann=token-ann-1234', '--metrics-token', 'metrics-token-2'], { TRACKING_METRICS_TOKEN: 'metrics-token-1' });
    expect((await fetch(`${flag.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-2' } })).status).toBe(200);
    expect((await fetch(`${flag.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-1' } })).status).toBe(401);
    await flag.stop();
  });

  it('takes the port from TRACKING_PORT when no --port is given, and applies --max-body', async () => {
    const probe = await serve(['--memory']);
    const port = new URL(probe.url).port;
    await probe.stop();
    const streams = io({ TRACKING_PORT: port });
    const run = serveCommand.run(['--memory', '--max-body', '64', '--key', 'key-one-1'], streams.io);
    await vi.waitFor(() => expect(streams.out()).toContain('Press Ctrl+C to stop.'), { timeout: 15_000 });
    expect(streams.out()).toContain(`listening on http://127.0.0.1:${port}\n`);
    const big = await fetch(`http://127.0.0.1:${port}/track?${new URLSearchParams({ platform: 'universal', v: '10.1.1-rest', type: 'incoming', apiKey: 'key-one-1' })}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'x'.repeat(100), userId: 'u1' }),
    });
    expect(big.status).toBe(413);
    process.emit('SIGTERM', 'SIGTERM');
    await expect(run).resolves.toBe(0);
    forgetSignals();
  });

  it('on SIGHUP reloads the certificate with HTTPS, and says there is nothing to reload without', async () => {
    const plain = await serve(['--memory']);
    process.emit('SIGHUP', 'SIGHUP');
    expect(plain.err()).toContain('tracking endpoint: SIGHUP: nothing to reload (it serves plain HTTP; --tls-cert and --tls-key give it a certificate to reload).\n');
    expect(plain.out()).not.toContain('TLS:');
    await plain.stop();
    // Stopped: SIGHUP is no longer its to answer (serve itself took its listener off).
    expect(plain.hupLeftAtStop()).toBe(0);
    expect(process.listeners('SIGHUP')).toEqual(before.get('SIGHUP'));

    const dir = await folder();
    const certificates = await makeCertificates(dir, 'served');
    const secure = await serve(['--memory', '--tls-cert', certificates.certFile, '--tls-key', certificates.keyFile]);
    expect(secure.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(secure.out()).toMatch(new RegExp(`\\n  TLS:    CN=served, valid until \\S+ \\(kill -HUP ${process.pid} reloads it\\)\\n`));
    process.emit('SIGHUP', 'SIGHUP');
    await vi.waitFor(() => expect(secure.err()).toMatch(/tracking endpoint: SIGHUP: reloaded the TLS certificate: CN=served, valid until \S+\.\n/), { timeout: 10_000 });
    // A key that does not belong to the certificate: the one in use is kept, and the log says why.
    const other = await makeCertificates(dir, 'other');
    await copyFile(other.keyFile, certificates.keyFile);
    process.emit('SIGHUP', 'SIGHUP');
    await vi.waitFor(() => expect(secure.err()).toMatch(/tracking endpoint: SIGHUP: kept the TLS certificate in use: The TLS key .* cannot be used with the certificate/), { timeout: 10_000 });
    await secure.stop();
  });

  it('stops listening for signals when the endpoint cannot start, and says why', async () => {
    const dir = await folder();
    const error = await serveCommand.run(['--port', '0', '--tls-cert', join(dir, 'none.pem'), '--tls-key', join(dir, 'none-key.pem'), '--memory'], io({}).io).then(() => undefined, (e: unknown) => e);
    expect((error as Error).message).toMatch(/^Cannot read the TLS certificate file/);
    for (const signal of SIGNALS) expect(process.listeners(signal)).toEqual(before.get(signal));
  });
});

describe('serve\'s record options, passed on to the endpoint', () => {
  /** POSTs `body` with `query` (the key added); the status. */
  const post = async (url: string, query: Record<string, string>, body: unknown) => {
    const res = await fetch(`${url}/track?${new URLSearchParams({ ...query, apiKey: 'key-one-1' })}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await res.arrayBuffer();
    return res.status;
  };
  const referral = { name: 'ref', type: 'referralEvent', userId: 'u1', ref: 'spring', source: 'ADS' };
  const incoming = { text: 'hi', userId: 'u1' };

  it('takes the platform names, referral events and strict versions from their flags, and logs to stderr', async () => {
    const plain = await serve(['--memory', '--key', 'key-one-1']);
    expect(await post(plain.url, { platform: 'twitter', v: '11.1.0-rest', type: 'event' }, referral)).toBe(400);
    expect(await post(plain.url, { platform: 'x-dm', v: '11.1.0-rest', type: 'incoming' }, incoming)).toBe(400);
    expect(await post(plain.url, { platform: 'universal', v: '12.1.0-npm', type: 'incoming' }, incoming)).toBe(200);
    // What the endpoint logs goes to stderr, never stdout.
    expect(plain.err()).toContain('tracking endpoint: refused POST /track with 400 from 127.0.0.1');
    expect(plain.out()).not.toContain('refused');
    await plain.stop();

    const flagged = await serve(['--memory', '--key', 'key-one-1', '--dm-platform', 'x-dm', '--messenger-platform', 'x-messenger', '--allow-referral-event', '--strict-versions']);
    expect(await post(flagged.url, { platform: 'x-dm', v: '11.1.0-rest', type: 'event' }, referral)).toBe(200);
    expect(await post(flagged.url, { platform: 'x-dm', v: '11.1.0-rest', type: 'incoming' }, incoming)).toBe(200);
    expect(await post(flagged.url, { platform: 'x-messenger', v: '11.1.0-rest', type: 'incoming' }, { userId: 'u1', message: { text: 'hi' } })).not.toBe(404);
    expect(await post(flagged.url, { platform: 'universal', v: '12.1.0-npm', type: 'incoming' }, incoming)).toBe(400);
    await flagged.stop();
  });

  it('on every interface (0.0.0.0) prints the interfaces\' addresses first, then the others', async () => {
    const served = await serve(['--memory', '--host', '0.0.0.0', '--key', 'key-one-1']);
    const port = /:(\d+)/.exec(served.url.replace('http://', ''))![1];
    const external = Object.values(networkInterfaces()).flat().filter((a) => a !== undefined && a.family === 'IPv4' && !a.internal).map((a) => `http://${a!.address}:${port}`);
    const first = served.out().split('\n')[0];
    if (external.length === 0) expect(first).toBe(`Tracking endpoint listening on http://127.0.0.1:${port}`);
    else expect(first).toBe(`Tracking endpoint listening on ${external[0]} (every interface; also ${[...external.slice(1), `http://127.0.0.1:${port}`].join(', ')})`);
    await served.stop();
  });
});

describe('serve\'s usage errors, before anything starts', () => {
  it('refuses two places to keep records', async () => {
    await expect(usageError(['--memory', '--data', 'x.db'])).resolves.toBe('--memory and --data cannot be used together: choose where records are kept.');
    await expect(usageError(['--data', 'x.db', '--database', 'postgres://h/db'])).resolves.toBe('--data and --database cannot be used together: choose where records are kept.');
    await expect(usageError(['--memory', '--data', 'x.db', '--database', 'postgres://h/db'])).resolves.toBe('--memory and --data and --database cannot be used together: choose where records are kept.');
  });

  it('refuses a database URL that is not PostgreSQL\'s, from the flag or TRACKING_DATABASE_URL', async () => {
    const expected = '--database takes a PostgreSQL URL (postgres://user:password@host:5432/db); for a SQLite file use --data FILE.';
    await expect(usageError(['--database', 'mysql://h/db'])).resolves.toBe(expected);
    await expect(usageError(['--database', 'tracking.db'])).resolves.toBe(expected);
    await expect(usageError([], { TRACKING_DATABASE_URL: 'sqlite://tracking.db' })).resolves.toBe(expected);
    // Either spelling, any case.
    for (const url of ['postgresql://127.0.0.1:1/x', 'POSTGRES://127.0.0.1:1/x']) {
      const error = await serveCommand.run(['--port', '0', '--database', url], io({}).io).then(() => undefined, (e: unknown) => e);
      expect(error).not.toBeInstanceOf(UsageError);
    }
  });

  it('refuses a --retention that is not a number of days above 0, and a --mask it does not know', async () => {
    for (const value of ['0', '0d', 'forever', '90 days', 'd', '1e3']) {
      await expect(usageError(['--memory', '--retention', value])).resolves.toBe(`--retention takes a number of days, such as 90 or 90d; got "${value}".`);
    }
    await expect(usageError(['--memory', '--mask', 'email,shoe-size'])).resolves.toMatch(/shoe-size/);
  });

  it('refuses a port that is no port, from the flag or TRACKING_PORT, naming which', async () => {
    await expect(usageError(['--memory', '--port', 'eighty'])).resolves.toMatch(/^--port /);
    await expect(usageError(['--memory', '--port', '65536'])).resolves.toMatch(/^--port /);
    await expect(usageError(['--memory'], { TRACKING_PORT: 'eighty' })).resolves.toMatch(/^--port \(env TRACKING_PORT\) /);
    await expect(usageError(['--memory', '--max-body', '0'])).resolves.toMatch(/^--max-body /);
    await expect(usageError(['--memory', '--max-read-wait', '0'])).resolves.toMatch(/^--max-read-wait /);
    await expect(usageError(['--memory', '--max-write-wait', '0'])).resolves.toMatch(/^--max-write-wait /);
  });

  it('accepts --retention in days, with or without d, fractions too', async () => {
    for (const value of ['90', '90d', '0.5', ' 7d ']) {
      const served = await serve(['--memory', '--retention', value]);
      await served.stop();
    }
  });
});

describe('collectKeys', () => {
  it('takes --key flags, then TRACKING_API_KEYS (comma-separated) and TRACKING_API_KEY, trimmed, each once, none empty', () => {
    expect(collectKeys(['a-key-1', ' b-key-2 '], { TRACKING_API_KEYS: 'c-key-3, a-key-1,,', TRACKING_API_KEY: ' d-key-4' })).toEqual(['a-key-1', 'b-key-2', 'c-key-3', 'd-key-4']);
    expect(collectKeys(undefined, {})).toEqual([]);
    expect(collectKeys(undefined, { TRACKING_API_KEY: 'only-1' })).toEqual(['only-1']);
  });
});
