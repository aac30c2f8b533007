import axios from 'axios';
import nock from 'nock';
import util from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAxiosTransport, createNodeHttpTransport, type Transport } from '../../src/index.js';
import { SafeLogger } from '../../src/client/logger.js';
import { redactUrl, scrub } from '../../src/client/redact.js';
import { backoffDelay, classifyStatus, nextDelay, parseRetryAfter } from '../../src/client/retry.js';

const URL_WITH_KEY = 'http://tracking.test/track?platform=sms&v=11.1.0-rest&type=incoming&apiKey=SECRET-KEY-9';

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  nock.cleanAll();
});

describe.each([
  ['node:http', () => createNodeHttpTransport()],
  ['axios', () => createAxiosTransport({ axios: axios.create() })],
] as [string, () => Transport][])('%s transport', (_name, make) => {
  it('POSTs the body as JSON with its length, and returns status, Retry-After and the body', async () => {
    const scope = nock('http://tracking.test', { reqheaders: { 'content-type': 'application/json', 'content-length': '17' } })
      .post('/track', '{"text":"héllo"}')
      .query(true)
      .reply(429, '{"slow":"down"}', { 'Retry-After': '7' });
    const transport = make();
    const response = await transport.send({ url: URL_WITH_KEY, body: '{"text":"héllo"}', headers: { 'content-type': 'application/json' }, timeoutMs: 1_000 });
    expect(response).toEqual({ status: 429, retryAfter: '7', body: '{"slow":"down"}' });
    expect(scope.isDone()).toBe(true);
    await transport.close?.();
  });

  it('keeps only the start of a large response body', async () => {
    nock('http://tracking.test').post('/track').query(true).reply(500, 'x'.repeat(100_000));
    const response = await make().send({ url: URL_WITH_KEY, body: '{}', headers: {}, timeoutMs: 1_000 });
    expect(response.status).toBe(500);
    expect(response.body!.length).toBeLessThanOrEqual(2048);
  });

  it('rejects with an error that carries neither the URL nor the key on a network failure', async () => {
    nock('http://tracking.test').post('/track').query(true).replyWithError(Object.assign(new Error(`socket closed while sending to ${URL_WITH_KEY}`), { code: 'ECONNRESET' }));
    const error = await make()
      .send({ url: URL_WITH_KEY, body: '{}', headers: {}, timeoutMs: 1_000 })
      .catch((e) => e);
    expect(error.code).toBe('ECONNRESET');
    // The client scrubs messages again before anything is shown; the axios transport must not keep its config.
    expect(util.inspect(scrub(util.inspect(error, { depth: 5 })), { depth: 5 })).not.toContain('SECRET-KEY-9');
    expect(error.config).toBeUndefined();
  });
});

describe('the axios transport', () => {
  it('drops axios error objects (which hold the request config) in favour of a plain error', async () => {
    nock('http://tracking.test').post('/track').query(true).delay(500).reply(200, '{}');
    const error = await createAxiosTransport({ axios: axios.create() })
      .send({ url: URL_WITH_KEY, body: '{}', headers: {}, timeoutMs: 50 })
      .catch((e) => e);
    expect(error.code).toBe('ETIMEDOUT');
    expect(JSON.stringify(error) + util.inspect(error, { depth: 10, showHidden: true })).not.toContain('SECRET-KEY-9');
  });
});

describe('retry policy', () => {
  it('classifies statuses', () => {
    expect([200, 201, 204].map(classifyStatus)).toEqual(['delivered', 'delivered', 'delivered']);
    expect([408, 429, 500, 502, 503, 504, 599].map(classifyStatus)).toEqual(Array(7).fill('retry'));
    expect([501, 505, 400, 404, 413, 415, 422].map(classifyStatus)).toEqual(Array(7).fill('rejected'));
    expect([401, 403].map(classifyStatus)).toEqual(['unauthorized', 'unauthorized']);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });

  it('backs off exponentially with jitter, within [half, all] of the ceiling, capped', () => {
    const settings = { maxAttempts: 10, maxRetryDurationMs: 1e9, initialBackoffMs: 100, maxBackoffMs: 1_000, maxRetryAfterMs: 1e9 };
    expect(backoffDelay(1, settings, () => 0)).toBe(50);
    expect(backoffDelay(1, settings, () => 1)).toBe(100);
    expect(backoffDelay(3, settings, () => 1)).toBe(400);
    expect(backoffDelay(10, settings, () => 1)).toBe(1_000);
    expect(backoffDelay(10, settings, () => 0)).toBe(500);
  });

  it('waits a finite backoff within [half, all] of the ceiling before a retry whose answer had no usable Retry-After (never NaN, which would retry at once)', () => {
    const settings = { maxAttempts: 20, maxRetryDurationMs: 1e9, initialBackoffMs: 100, maxBackoffMs: 1_000, maxRetryAfterMs: 30_000 };
    for (const retryAfter of [undefined, 'soon', '', '-1', '1e3']) {
      for (let retry = 1; retry <= 12; retry++) {
        const ceiling = Math.min(1_000, 100 * 2 ** (retry - 1));
        for (let i = 0; i < 20; i++) {
          const delay = nextDelay(retry, retryAfter, settings);
          expect(Number.isFinite(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
          expect(delay).toBeLessThanOrEqual(ceiling);
        }
      }
    }
  });

  it('waits what Retry-After asks, never less than its own backoff, and at most maxRetryAfterMs', () => {
    const settings = { maxAttempts: 20, maxRetryDurationMs: 1e9, initialBackoffMs: 100, maxBackoffMs: 1_000, maxRetryAfterMs: 5_000 };
    expect(nextDelay(1, '2', settings, () => 1)).toBe(2_000);
    expect(nextDelay(1, '0', settings, () => 1)).toBe(100);
    expect(nextDelay(1, '0', settings, () => 0)).toBe(50);
    expect(nextDelay(1, '3600', settings, () => 1)).toBe(5_000);
    // A cap below the backoff: the cap wins.
    expect(nextDelay(10, '0', { ...settings, maxRetryAfterMs: 300 }, () => 1)).toBe(300);
  });
});

describe('redaction', () => {
  it('masks apiKey and access_token query parameters', () => {
    expect(redactUrl('http://h/track?platform=sms&apiKey=abc123&type=x')).toBe('http://h/track?platform=sms&apiKey=***&type=x');
    expect(redactUrl('https://graph/me?access_token=EAAB&x=1')).toBe('https://graph/me?access_token=***&x=1');
  });

  it('masks JSON secret fields, bearer tokens and known literal secrets', () => {
    expect(scrub('{"qs":{"access_token":"EAAB\\"x"}}')).toBe('{"qs":{"access_token":"***"}}');
    expect(scrub('Authorization: Bearer abc.def')).toBe('Authorization: Bearer ***');
    expect(scrub('key was literal-secret-1 here', ['literal-secret-1'])).toBe('key was *** here');
  });

  it("the client's logger masks every field the package calls a secret (its one list, in protocol/secrets.ts), at any depth", () => {
    const entries: Record<string, unknown>[] = [];
    const keep = (fields: Record<string, unknown>) => void entries.push(fields);
    const log = new SafeLogger({ debug: keep, info: keep, warn: keep, error: keep }, [], false);
    log.warn({ api_key: 'k1', Authorization: 'Basic eDp5', clientSecret: 'c1', password: 'p1', nested: { refresh_token: 'r1', status: 503 }, reason: 'retries-exhausted' }, 'a warning');
    expect(entries).toEqual([{ api_key: '***', Authorization: '***', clientSecret: '***', password: '***', nested: { refresh_token: '***', status: 503 }, reason: 'retries-exhausted' }]);
  });
});
