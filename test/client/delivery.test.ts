import axios from 'axios';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createAxiosTransport,
  createNodeHttpTransport,
  TrackingClient,
  TrackingDeliveryError,
  type TrackingClientOptions,
  type Transport,
} from '../../src/index.js';
import { startSink, type Sink } from '../helpers/sink.js';

const KEY = 'delivery-key-77';
const fast = { initialBackoffMs: 5, maxBackoffMs: 20, requestTimeoutMs: 1_000 } satisfies TrackingClientOptions;

const transports: [string, () => Transport][] = [
  ['node:http', () => createNodeHttpTransport()],
  ['axios', () => createAxiosTransport({ axios: axios.create() })],
];

describe.each(transports)('delivery over %s', (_name, makeTransport) => {
  let sink: Sink;
  let clients: TrackingClient[];

  function client(options: TrackingClientOptions = {}): TrackingClient {
    const c = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger: false, transport: makeTransport(), ...fast, ...options });
    clients.push(c);
    return c;
  }

  beforeEach(async () => {
    sink = await startSink();
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close(1_000)));
    await sink.close();
  });

  it('retries a burst of 500s and delivers', async () => {
    sink.behave((_r, i) => (i < 2 ? { status: 500 } : undefined));
    const c = client();
    await expect(c.sms.logIncoming({ text: 'a', userId: 'u' })).resolves.toMatchObject({ status: 'delivered', attempts: 3 });
    expect(sink.requests).toHaveLength(3);
    expect(c.stats()).toMatchObject({ delivered: 1, retried: 2, failed: 0 });
  });

  it('waits as long as Retry-After says on a 429', async () => {
    sink.behave((_r, i) => (i === 0 ? { status: 429, headers: { 'retry-after': '1' } } : undefined));
    const c = client();
    const started = Date.now();
    await c.sms.logIncoming({ text: 'a', userId: 'u' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(sink.requests).toHaveLength(2);
  });

  it('caps a long Retry-After at maxRetryAfterMs', async () => {
    sink.behave((_r, i) => (i === 0 ? { status: 503, headers: { 'retry-after': '3600' } } : undefined));
    const c = client({ maxRetryAfterMs: 50 });
    const started = Date.now();
    await c.sms.logIncoming({ text: 'a', userId: 'u' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('retries after a connection reset', async () => {
    sink.behave((_r, i) => (i === 0 ? { reset: true } : undefined));
    const c = client();
    await expect(c.sms.logIncoming({ text: 'a', userId: 'u' })).resolves.toMatchObject({ attempts: 2 });
  });

  it('retries an answer cut off midway (headers and part of the body, then the connection closes) at once, not after the request timeout', async () => {
    let requests = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (requests++ > 0) return void res.end('{"ok":true}');
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"ok":');
        setTimeout(() => res.socket?.destroy(), 20);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const c = client({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requestTimeoutMs: 10_000 });
      const started = Date.now();
      await expect(c.sms.logIncoming({ text: 'a', userId: 'u' })).resolves.toMatchObject({ status: 'delivered', attempts: 2 });
      expect(Date.now() - started).toBeLessThan(2_000);
      await c.close();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('times out a response slower than requestTimeoutMs and retries it', async () => {
    sink.behave((_r, i) => (i === 0 ? { delayMs: 2_000 } : undefined));
    const c = client({ requestTimeoutMs: 150 });
    const started = Date.now();
    await expect(c.sms.logIncoming({ text: 'a', userId: 'u' })).resolves.toMatchObject({ attempts: 2 });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('gives up after maxAttempts with reason and last status', async () => {
    sink.behave(() => ({ status: 502 }));
    const c = client({ maxAttempts: 3 });
    const error = await c.sms.logIncoming({ text: 'a', userId: 'u' }).catch((e) => e);
    expect(error).toBeInstanceOf(TrackingDeliveryError);
    expect(error).toMatchObject({ reason: 'retries-exhausted', status: 502, attempts: 3 });
    expect(sink.requests).toHaveLength(3);
    expect(c.stats()).toMatchObject({ failed: 1, retried: 2 });
  });

  it('gives up when the next retry would pass maxRetryDurationMs', async () => {
    sink.behave(() => ({ status: 503, headers: { 'retry-after': '5' } }));
    const c = client({ maxRetryDurationMs: 1_000, maxRetryAfterMs: 10_000, maxAttempts: 100 });
    await expect(c.sms.logIncoming({ text: 'a', userId: 'u' })).rejects.toMatchObject({ reason: 'retry-budget-exceeded', status: 503 });
    expect(sink.requests).toHaveLength(1);
  });

  it.each([400, 404, 413, 501, 505])('does not retry a %i', async (status) => {
    sink.behave(() => ({ status, body: '{"error":"bad"}' }));
    const c = client();
    await expect(c.sms.logIncoming({ text: 'a', userId: 'u' })).rejects.toMatchObject({ reason: 'rejected', status, attempts: 1 });
    expect(sink.requests).toHaveLength(1);
  });

  it('reports 401 once, as a problem with the key', async () => {
    sink.behave(() => ({ status: 401 }));
    const lines: string[] = [];
    const logger = { debug() {}, info() {}, warn: (_f: object, m: string) => lines.push(m), error: (_f: object, m: string) => lines.push(m) };
    const c = client({ logger });
    const results = await Promise.allSettled([1, 2, 3].map((n) => c.sms.logIncoming({ text: `${n}`, userId: `u${n}` })));
    expect(results.map((r) => (r as PromiseRejectedResult).reason.reason)).toEqual(['unauthorized', 'unauthorized', 'unauthorized']);
    expect(lines.filter((l) => l.includes('API key'))).toHaveLength(1);
    expect(lines[0]).toContain('TRACKING_API_KEY');
  });

  it("delivers each user's records in the order they were logged, users in parallel", async () => {
    const acceptedTexts = new Map<string, number[]>();
    sink.behave((r) => {
      if (Math.random() < 0.2) return { status: 503 };
      const list = acceptedTexts.get(r.body.userId) ?? [];
      list.push(Number(r.body.text));
      acceptedTexts.set(r.body.userId, list);
      return { delayMs: Math.floor(Math.random() * 8) };
    });
    const c = client({ maxConcurrency: 8, maxAttempts: 20 });
    const sent: Promise<unknown>[] = [];
    for (let i = 0; i < 40; i++) for (const user of ['a', 'b', 'c', 'd']) sent.push(c.sms.logIncoming({ text: String(i), userId: user }));
    await Promise.all(sent);
    for (const user of ['a', 'b', 'c', 'd']) expect(acceptedTexts.get(user)).toEqual([...Array(40).keys()]);
    expect(c.stats().retried).toBeGreaterThan(0);
  });

  it('keeps at most maxConcurrency requests in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    sink.behave(() => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      setTimeout(() => inFlight--, 20);
      return { delayMs: 20 };
    });
    const c = client({ maxConcurrency: 3 });
    await Promise.all(Array.from({ length: 12 }, (_, i) => c.sms.logIncoming({ text: 't', userId: `u${i}` })));
    expect(peak).toBeLessThanOrEqual(3);
    expect(peak).toBeGreaterThan(1);
  });

  it('drops records past maxQueueSize with reason queue-full, and counts them', async () => {
    sink.behave(() => ({ delayMs: 50 }));
    const c = client({ maxQueueSize: 5 });
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => c.sms.logIncoming({ text: `${i}`, userId: 'u' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    expect(results.slice(5).map((r) => (r as PromiseRejectedResult).reason.reason)).toEqual(['queue-full', 'queue-full', 'queue-full']);
    expect(c.stats()).toMatchObject({ delivered: 5, dropped: 3 });
  });

  it('flush() resolves once everything logged so far is delivered or given up', async () => {
    sink.behave((r) => (r.body.text === 'bad' ? { status: 400 } : { delayMs: 10 }));
    const c = client();
    const settled: string[] = [];
    for (const text of ['1', 'bad', '2']) {
      c.sms.logIncoming({ text, userId: text }).then(() => settled.push(text), () => settled.push(`x${text}`));
    }
    await c.flush();
    expect(c.stats()).toMatchObject({ queued: 0, inFlight: 0, delivered: 2, failed: 1 });
    await new Promise((r) => setImmediate(r));
    expect(settled.sort()).toEqual(['1', '2', 'xbad']);
  });

  it('close() delivers what is pending, then refuses new records', async () => {
    sink.behave(() => ({ delayMs: 20 }));
    const c = client();
    const pending = c.sms.logIncoming({ text: 'a', userId: 'u' });
    const result = await c.close();
    await expect(pending).resolves.toMatchObject({ status: 'delivered' });
    expect(result).toMatchObject({ abandoned: 0, stats: { delivered: 1 } });
    await expect(c.sms.logIncoming({ text: 'b', userId: 'u' })).rejects.toMatchObject({ reason: 'client-closed' });
    expect(c.stats().dropped).toBe(1);
  });

  it('close() gives up what it cannot deliver by its deadline, with reason close-deadline', async () => {
    sink.behave(() => ({ status: 503 }));
    const c = client({ maxAttempts: 1_000, initialBackoffMs: 50 });
    const pending = c.sms.logIncoming({ text: 'a', userId: 'u' });
    const result = await c.close(200);
    expect(result.abandoned).toBe(1);
    await expect(pending).rejects.toMatchObject({ reason: 'close-deadline' });
  });
});

