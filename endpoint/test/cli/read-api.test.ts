/**
 * The CLI's reads over HTTP (cli/read-api.ts) against a real server that answers as the endpoint
 * does while its views catch up: a 503 with `Retry-After` is asked again after it, a few times at
 * most; a 503 without one, and any other error, is not. And `transcript` against a real endpoint
 * whose views are held back past its read bound.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { READ_RETRIES, getJson } from '../../src/cli/read-api.js';
import { Q, message, request, start, track } from '../helpers.js';
import { runCli } from './helpers.js';

let server: http.Server | undefined;
afterEach(async () => {
  if (server === undefined) return;
  server.closeAllConnections();
  await new Promise((resolve) => server!.close(resolve));
  server = undefined;
});

/** A server answering each request with the next of `answers` (the last one again once they run out). */
async function serve(answers: { status: number; retryAfter?: string; body: unknown; raw?: string }[]): Promise<{ url: string; asked: () => number; authorization: () => (string | undefined)[] }> {
  let asked = 0;
  const authorization: (string | undefined)[] = [];
  server = http.createServer((req, res) => {
    authorization.push(req.headers.authorization);
    const answer = answers[Math.min(asked++, answers.length - 1)];
    res.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.retryAfter === undefined ? {} : { 'retry-after': answer.retryAfter }) });
    res.end(answer.raw ?? JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked: () => asked, authorization: () => authorization };
}

const catchingUp = (retryAfter?: string) => ({ status: 503, retryAfter, body: { ok: false, error: 'The views are catching up (12 records to go).', catchingUp: { behindRecords: 12, behindSeconds: 1 } } });

describe('getJson', () => {
  it('asks again after each 503 with Retry-After, waiting as long as it says, and returns the answer that follows', async () => {
    const { url, asked } = await serve([catchingUp('2'), catchingUp('1'), { status: 200, body: { records: 3 } }]);
    const waits: number[] = [];
    expect(await getJson(url, '/api/summary', undefined, async (ms) => void waits.push(ms))).toEqual({ records: 3 });
    expect(waits).toEqual([2_000, 1_000]);
    expect(asked()).toBe(3);
  });

  it(`gives up after ${READ_RETRIES} retries, saying what the endpoint said`, async () => {
    const { url, asked } = await serve([catchingUp('1')]);
    const waits: number[] = [];
    await expect(getJson(url, '/api/summary', undefined, async (ms) => void waits.push(ms))).rejects.toThrow('/api/summary answered 503: The views are catching up (12 records to go).');
    expect(READ_RETRIES).toBe(4);
    expect(waits).toEqual([1_000, 1_000, 1_000, 1_000]);
    expect(asked()).toBe(5);
  });

  it('waits 30 s at most, and does not ask again after a 503 without a Retry-After of whole seconds', async () => {
    const long = await serve([catchingUp('3600'), { status: 200, body: { ok: true } }]);
    const waits: number[] = [];
    await getJson(long.url, '/x', undefined, async (ms) => void waits.push(ms));
    expect(waits).toEqual([30_000]);
    for (const retryAfter of [undefined, 'soon', '1.5', 'Wed, 21 Oct 2015 07:28:00 GMT']) {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
      const { url, asked } = await serve([catchingUp(retryAfter), { status: 200, body: { ok: true } }]);
      await expect(getJson(url, '/x', undefined, async () => undefined)).rejects.toThrow('/x answered 503');
      expect(asked()).toBe(1);
    }
  });

  it('does not ask again after another error with Retry-After', async () => {
    const { url, asked } = await serve([{ status: 429, retryAfter: '1', body: { ok: false, error: 'slow down' } }, { status: 200, body: {} }]);
    await expect(getJson(url, '/x', undefined, async () => undefined)).rejects.toThrow(/^\/x answered 429: slow down$/);
    expect(asked()).toBe(1);
  });

  it('sends the key as a bearer header, and says to pass one on a 401', async () => {
    const { url, authorization } = await serve([{ status: 401, body: { ok: false, error: 'A key is needed.' } }]);
    await expect(getJson(url, '/x', 'k-1')).rejects.toThrow(/^\/x answered 401: A key is needed\. Pass a reader token with --token \(or env TRACKING_READER_TOKEN\); write keys cannot read\.$/);
    await expect(getJson(url, '/x')).rejects.toThrow(/^\/x answered 401: /);
    expect(authorization()).toEqual(['Bearer k-1', undefined]);
  });

  it('quotes the answer when it has no error to say, and says when it is not JSON or nothing answers', async () => {
    const plain = await serve([{ status: 500, body: null, raw: 'null' }]);
    await expect(getJson(plain.url, '/x')).rejects.toThrow(/^\/x answered 500: null$/);
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    const html = await serve([{ status: 200, body: null, raw: `<html>${'x'.repeat(300)}</html>` }]);
    await expect(getJson(html.url, '/x')).rejects.toThrow(`${html.url}/x answered 200 without JSON: is --url the address of this package's endpoint?`);
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    const long = await serve([{ status: 500, body: null, raw: `{"ok":false,"detail":"${'y'.repeat(300)}"}` }]);
    await expect(getJson(long.url, '/x')).rejects.toThrow(new RegExp(`^/x answered 500: \\{"ok":false,"detail":"y{178}$`));
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
    await expect(getJson(long.url, '/x')).rejects.toThrow(`Cannot reach the tracking endpoint at ${long.url} (nothing is listening there). Start one with \`serve\`, or pass its address with --url.`);
  });

  it('waits for real by default', async () => {
    const { url } = await serve([catchingUp('1'), { status: 200, body: { ok: true } }]);
    const started = performance.now();
    expect(await getJson(url, '/x')).toEqual({ ok: true });
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });
});

describe('transcript against an endpoint whose views are catching up', () => {
  it('waits as the endpoint\'s 503 and Retry-After say, and prints the transcript once the views caught up', { timeout: 30_000 }, async () => {
    const endpoint = await start({ maxReadWaitMs: 300 });
    try {
      expect((await track(endpoint, Q.universalIn, message('ann', 'hello there'))).status).toBe(200);
      const projection = (endpoint.store as unknown as { projection: { plan(): unknown; running?: Promise<void> } }).projection;
      const plan = projection.plan;
      projection.plan = () => ({ limit: 0, share: 0 });
      while (projection.running) await projection.running;
      expect((await track(endpoint, Q.universalIn, message('ann', 'and again'))).status).toBe(200);
      expect((await request(endpoint, '/api/users')).status).toBe(503);
      setTimeout(() => (projection.plan = plan), 1_500);
      const result = await runCli(['transcript', '--url', endpoint.url]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('and again');
      expect(result.stdout).toContain('Summary: 2 records');
    } finally {
      await endpoint.close();
    }
  });
});

describe('transcript against an endpoint with readers', () => {
  it('reads with --token or TRACKING_READER_TOKEN, and says a write key cannot read', { timeout: 60_000 }, async () => {
    const endpoint = await start({ host: '0.0.0.0', readers: ['cli=cli-reader-token-1'] });
    try {
      const url = `http://127.0.0.1:${endpoint.port}`;
      expect((await track(endpoint, Q.universalIn, message('remote-ann', 'hello from the cli test'))).status).toBe(200);
      const [withEnv, writeKey] = await Promise.all([
        runCli(['transcript', '--url', url], { TRACKING_READER_TOKEN: 'cli-reader-token-1' }, 40_000),
        runCli(['transcript', '--url', url, '--token', Q.universalIn.apiKey], {}, 40_000),
      ]);
      expect(withEnv.code).toBe(0);
      expect(withEnv.stdout).toContain('hello from the cli test');
      expect(writeKey.code).toBe(1);
      expect(writeKey.stderr).toMatch(/answered 401: Reading needs a reader token.*Pass a reader token with --token/);
      expect(writeKey.stderr + writeKey.stdout).not.toContain(Q.universalIn.apiKey);
    } finally {
      await endpoint.close();
    }
  });
});
