/**
 * What the delivery queue promises a user, against a real local endpoint: `flush()` callers resolve
 * only once what they wait for is settled, a long backlog of one user drains in order, a 2xx other
 * than 200 is reported with its real status, retries wait their backoff, and the retry budget
 * (`maxRetryDurationMs`) counts from a record's first attempt.
 */
import axios from 'axios';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAxiosTransport, createNodeHttpTransport, TrackingClient, type TrackingClientOptions, type TrackingDeliveryError, type Transport } from '../../src/index.js';
import { DeliveryQueue, QueuedRecord } from '../../src/client/delivery-queue.js';
import { startSink, type Sink } from '../helpers/sink.js';

const KEY = 'queue-key-31';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const transports: [string, () => Transport][] = [
  ['node:http', () => createNodeHttpTransport()],
  ['axios', () => createAxiosTransport({ axios: axios.create() })],
];

describe.each(transports)('the delivery queue over %s', (_name, makeTransport) => {
  let sink: Sink;
  let clients: TrackingClient[];
  /** When each request arrived at the sink (ms, performance.now()). */
  let arrivals: number[];

  function client(options: TrackingClientOptions = {}): TrackingClient {
    const c = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger: false, transport: makeTransport(), initialBackoffMs: 5, maxBackoffMs: 20, requestTimeoutMs: 2_000, ...options });
    clients.push(c);
    return c;
  }

  beforeEach(async () => {
    sink = await startSink();
    arrivals = [];
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close(1_000)));
    await sink.close();
  });

  /** Makes the sink note arrival times, then answer as `reply` says. */
  function answer(reply: Parameters<Sink['behave']>[0]): void {
    sink.behave((request, index) => {
      arrivals.push(performance.now());
      return reply(request, index);
    });
  }

  it('resolves every one of several concurrent flush() callers, and each only once everything logged before it is delivered', async () => {
    answer((r) => ({ delayMs: r.body.text === 'slow' ? 150 : 10 }));
    const c = client();
    const delivered: string[] = [];
    const log = (text: string, userId: string) => void c.sms.logIncoming({ text, userId }).then(() => delivered.push(text));
    for (let i = 0; i < 20; i++) log(`a${i}`, `user-${i % 3}`);
    log('slow', 'user-slow');
    const seen: string[][] = [];
    const flushes = [c.flush(), c.flush(), c.flush()].map((p) => p.then(() => seen.push([...delivered])));
    for (let i = 0; i < 10; i++) log(`b${i}`, `user-${i % 2}`);
    flushes.push(c.flush().then(() => seen.push([...delivered])));
    await Promise.all(flushes);
    expect(seen).toHaveLength(4);
    // Each flush resolved after every record logged before it was delivered (the slow one included).
    for (const at of seen) expect(at).toEqual(expect.arrayContaining(['slow', ...Array.from({ length: 20 }, (_, i) => `a${i}`)]));
    expect(seen[3]).toHaveLength(31);
    expect(c.stats()).toMatchObject({ queued: 0, inFlight: 0, delivered: 31 });
  });

  it('resolves a flush() without waiting for records logged after it', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    answer((r) => (r.body.text === 'later' ? { delayMs: 400 } : { delayMs: 5 }));
    const c = client({ requestTimeoutMs: 5_000 });
    const first = c.sms.logIncoming({ text: 'first', userId: 'u1' });
    const flushed = c.flush();
    const later = c.sms.logIncoming({ text: 'later', userId: 'u2' });
    let laterDone = false;
    void later.then(() => {
      laterDone = true;
      release();
    });
    await flushed;
    await expect(first).resolves.toMatchObject({ status: 'delivered' });
    expect(laterDone).toBe(false);
    expect(c.stats().delivered).toBe(1);
    await held;
  });

  it('resolves a flush() only once the records logged before it are settled, not when an earlier flush() resolves', async () => {
    answer((r) => ({ delayMs: r.body.text === 'slow' ? 400 : 10 }));
    const c = client({ requestTimeoutMs: 5_000 });
    const fast = c.sms.logIncoming({ text: 'fast', userId: 'u1' });
    const earlier = c.flush();
    const slow = c.sms.logIncoming({ text: 'slow', userId: 'u2' });
    let laterFlushed = false;
    const later = c.flush().then(() => void (laterFlushed = true));
    await earlier;
    await expect(fast).resolves.toMatchObject({ status: 'delivered' });
    await sleep(50);
    expect(laterFlushed).toBe(false);
    await later;
    await expect(slow).resolves.toMatchObject({ status: 'delivered' });
  });

  it('resolves flush() at once when nothing is pending, and again after a second batch', async () => {
    const c = client();
    await c.flush();
    await c.sms.logIncoming({ text: 'one', userId: 'u' });
    const p = c.sms.logIncoming({ text: 'two', userId: 'u' });
    await c.flush();
    expect(c.stats()).toMatchObject({ delivered: 2, queued: 0 });
    await expect(p).resolves.toMatchObject({ status: 'delivered' });
  });

  it("drains a long backlog of one user in the order it was logged, through retries", async () => {
    answer((_r, index) => (index % 37 === 5 ? { status: 503 } : undefined));
    const c = client({ maxAttempts: 10, initialBackoffMs: 1, maxBackoffMs: 2 });
    const sent = Array.from({ length: 400 }, (_, i) => c.sms.logIncoming({ text: String(i), userId: 'one-user' }));
    await c.flush();
    const results = await Promise.all(sent);
    expect(results.every((r) => r.status === 'delivered')).toBe(true);
    // The first copy of each record arrived in order; a 503'd record came again before the next one.
    const texts = sink.requests.map((r) => Number(r.body.text));
    const firsts = texts.filter((t, i) => texts.indexOf(t) === i);
    expect(firsts).toEqual([...Array(400).keys()]);
    for (let i = 1; i < texts.length; i++) expect(texts[i]).toBeGreaterThanOrEqual(texts[i - 1]);
    expect(c.stats()).toMatchObject({ delivered: 400, retried: expect.any(Number), queued: 0, inFlight: 0 });
    expect(c.stats().retried).toBeGreaterThan(0);
  });

  it("sends one user's records one at a time, while other users' go alongside", async () => {
    const inFlight = new Map<string, number>();
    let peakPerUser = 0;
    let peakAll = 0;
    let all = 0;
    answer((r) => {
      const user = r.body.userId as string;
      inFlight.set(user, (inFlight.get(user) ?? 0) + 1);
      all++;
      peakPerUser = Math.max(peakPerUser, inFlight.get(user)!);
      peakAll = Math.max(peakAll, all);
      setTimeout(() => {
        inFlight.set(user, inFlight.get(user)! - 1);
        all--;
      }, 15);
      return { delayMs: 15 };
    });
    const c = client();
    const sent: Promise<unknown>[] = [];
    for (let i = 0; i < 5; i++) for (const user of ['a', 'b', 'c', 'd']) sent.push(c.sms.logIncoming({ text: String(i), userId: user }));
    await Promise.all(sent);
    expect(peakPerUser).toBe(1);
    expect(peakAll).toBeGreaterThan(1);
  });

  it.each([202, 204, 201])('reports a %i answer as delivered with that status, not as 200', async (status) => {
    answer(() => ({ status, body: status === 204 ? '' : '{}' }));
    const c = client();
    await expect(c.sms.logIncoming({ text: 'x', userId: 'u' })).resolves.toEqual({ status: 'delivered', httpStatus: status, attempts: 1 });
    expect(c.stats()).toMatchObject({ delivered: 1, failed: 0, retried: 0 });
  });

  it('waits its backoff before retrying when the answer has no Retry-After (never retries at once)', async () => {
    answer((_r, index) => (index < 2 ? { status: 503 } : undefined));
    const c = client({ initialBackoffMs: 200, maxBackoffMs: 1_000 });
    await expect(c.sms.logIncoming({ text: 'x', userId: 'u' })).resolves.toMatchObject({ status: 'delivered', attempts: 3 });
    expect(arrivals).toHaveLength(3);
    // The first retry waits at least half of initialBackoffMs (jitter), the second at least half of twice that.
    expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(95);
    expect(arrivals[2] - arrivals[1]).toBeGreaterThanOrEqual(195);
  });

  it('counts maxRetryDurationMs from the first attempt, not from the latest one', async () => {
    // Each failing answer takes 100 ms: counted from each attempt, no retry would ever pass the budget.
    answer(() => ({ status: 503, delayMs: 100 }));
    const c = client({ maxRetryDurationMs: 450, maxAttempts: 20, initialBackoffMs: 5, maxBackoffMs: 10 });
    const error = await c.sms.logIncoming({ text: 'x', userId: 'u' }).catch((e) => e);
    expect(error).toMatchObject({ reason: 'retry-budget-exceeded', status: 503 });
    expect(error.attempts).toBeGreaterThanOrEqual(2);
    expect(error.attempts).toBeLessThanOrEqual(5);
    expect(error.message).toContain('maxRetryDurationMs (450 ms)');
    expect(sink.requests).toHaveLength(error.attempts);
  });
});

describe('what the delivery queue says of a record it gives up', () => {
  let sink: Sink;
  let clients: TrackingClient[];

  function client(options: TrackingClientOptions = {}): TrackingClient {
    const c = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger: false, initialBackoffMs: 5, maxBackoffMs: 10, ...options });
    clients.push(c);
    return c;
  }
  const failure = (promise: Promise<unknown>) => promise.then(() => { throw new Error('delivered'); }, (e: unknown) => e as TrackingDeliveryError);

  beforeEach(async () => {
    sink = await startSink();
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close(500)));
    await sink.close();
  });

  it("a refused record: names the endpoint, the status and the start of the endpoint's answer, with any secret in it masked", async () => {
    sink.behave(() => ({ status: 422, body: `{"error":"bad record","echo":"${KEY}"}${'z'.repeat(400)}` }));
    const c = client();
    const error = await failure(c.sms.logIncoming({ text: 'a', userId: 'u' }));
    expect(error).toMatchObject({ reason: 'rejected', status: 422, attempts: 1 });
    expect(error.message.startsWith(`The tracking endpoint ${sink.url}/track refused the sms incoming record (HTTP 422); it is not retried: {"error":"bad record","echo":"***"}zzz`)).toBe(true);
    expect(error.message).not.toContain(KEY);
    // Only the first 300 characters of the answer, once masked, are quoted; … marks the cut.
    expect(error.message.match(/z+/)![0].length).toBe(300 - '{"error":"bad record","echo":"***"}'.length);
    expect(error.message.endsWith('z….')).toBe(true);
    expect(error.cause).toBeUndefined();
  });

  it('a refused record without an answer body: no quote, and a 404 says to check the URL', async () => {
    sink.behave(() => ({ status: 404, body: '' }));
    const c = client();
    const error = await failure(c.sms.logIncoming({ text: 'a', userId: 'u' }));
    expect(error.message).toMatch(new RegExp(`^The tracking endpoint ${sink.url}/track refused the sms incoming record \\(HTTP 404\\); it is not retried\\. \\S`));
    sink.behave(() => ({ status: 400, body: '' }));
    const other = await failure(c.sms.logIncoming({ text: 'b', userId: 'u' }));
    expect(other.message).toBe(`The tracking endpoint ${sink.url}/track refused the sms incoming record (HTTP 400); it is not retried.`);
  });

  it('a refused key: says to check the key, for 403 as for 401', async () => {
    sink.behave(() => ({ status: 403 }));
    const c = client();
    const error = await failure(c.sms.logIncoming({ text: 'a', userId: 'u' }));
    expect(error).toMatchObject({ reason: 'unauthorized', status: 403, attempts: 1 });
    expect(error.message).toMatch(/^The tracking endpoint refused the API key \(HTTP 403\)\. /);
    expect(error.message).toContain('TRACKING_API_KEY');
    expect(c.stats()).toMatchObject({ failed: 1, retried: 0 });
  });

  it('retries ran out on network errors: names the error code and keeps a safe cause', async () => {
    sink.behave(() => ({ reset: true }));
    const c = client({ maxAttempts: 2 });
    const error = await failure(c.sms.logIncoming({ text: 'a', userId: 'u' }));
    expect(error).toMatchObject({ reason: 'retries-exhausted', attempts: 2, status: undefined });
    expect(error.message).toMatch(/^Gave up the sms incoming record after 2 attempts; the last failed with (ECONNRESET|EPIPE|ECONNABORTED|ERR_\w+|\w+Error)\. /);
    expect(error.cause).toBeInstanceOf(Error);
    expect(JSON.stringify(error) + String(error.stack) + String((error.cause as Error).message)).not.toContain(KEY);
  });

  it('the retry budget ran out: names the budget and the last status', async () => {
    sink.behave(() => ({ status: 500 }));
    const c = client({ maxRetryDurationMs: 200, initialBackoffMs: 1_000, maxBackoffMs: 1_000, maxAttempts: 10 });
    const error = await failure(c.sms.logIncoming({ text: 'a', userId: 'u' }));
    expect(error).toMatchObject({ reason: 'retry-budget-exceeded', attempts: 1, status: 500 });
    expect(error.message).toMatch(/^Gave up the sms incoming record: another retry would pass maxRetryDurationMs \(200 ms\); the last attempt failed with HTTP 500\. /);
    expect(c.stats()).toMatchObject({ failed: 1, retried: 0 });
  });

  it('a TLS endpoint answered in plain HTTP: gives up at once, without retrying', async () => {
    const c = client({ baseUrl: sink.url.replace('http:', 'https:'), maxAttempts: 5 });
    const error = await failure(c.sms.logIncoming({ text: 'a', userId: 'u' }));
    expect(error).toMatchObject({ reason: 'rejected', attempts: 1 });
    expect(error.message).toMatch(/^Gave up the sms incoming record without retrying: /);
    expect(error.cause).toBeInstanceOf(Error);
    expect(c.stats()).toMatchObject({ failed: 1, retried: 0 });
  });

  it('saved to persistDir when retries ran out: says so after the reason, in one sentence each', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bca-queue-'));
    try {
      sink.behave(() => ({ status: 503 }));
      const c = client({ persistDir: dir, maxAttempts: 2 });
      const error = await failure(c.sms.logIncoming({ text: 'a', userId: 'u' }));
      expect(error).toMatchObject({ reason: 'persisted', status: 503, attempts: 2 });
      expect(error.message).toMatch(/^Gave up the sms incoming record after 2 attempts; the last failed with HTTP 503\. .*[^.]\. It was saved to persistDir; a client started with the same persistDir will send it\.$/);
      expect(c.stats()).toMatchObject({ persisted: 1, failed: 0 });
      // A refused record is not saved: the endpoint would refuse it again.
      sink.behave(() => ({ status: 400 }));
      await expect(failure(c.sms.logIncoming({ text: 'b', userId: 'u' }))).resolves.toMatchObject({ reason: 'rejected' });
      expect(c.stats()).toMatchObject({ persisted: 1, failed: 1 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('saved to persistDir when the retry budget ran out, and counted as saved at close() only for what its deadline gave up', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bca-queue-'));
    try {
      sink.behave((request) => (request.body.userId === 'slow' ? { delayMs: 2_000 } : { status: 503 }));
      const c = client({ persistDir: dir, initialBackoffMs: 400, maxBackoffMs: 400, maxRetryDurationMs: 150, requestTimeoutMs: 5_000 });
      const error = await failure(c.sms.logIncoming({ text: 'a', userId: 'u' }));
      expect(error).toMatchObject({ reason: 'persisted', status: 503, attempts: 1 });
      expect(error.message).toMatch(/^Gave up the sms incoming record: another retry would pass maxRetryDurationMs \(150 ms\).* It was saved to persistDir; a client started with the same persistDir will send it\.$/);
      // Another record is still in flight at close()'s deadline: only that one is counted as saved by close().
      const late = failure(c.sms.logIncoming({ text: 'b', userId: 'slow' }));
      await sleep(50);
      await expect(c.close(100)).resolves.toMatchObject({ abandoned: 1, abandonedSaved: 1, stats: { persisted: 2, failed: 0 } });
      await expect(late).resolves.toMatchObject({ reason: 'persisted' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ignores the answer to a request still in flight when close() gave its record up', async () => {
    sink.behave(() => ({ delayMs: 300 }));
    const c = client();
    const pending = failure(c.sms.logIncoming({ text: 'a', userId: 'u' }));
    await sleep(50);
    await c.close(50);
    expect(await pending).toMatchObject({ reason: 'close-deadline' });
    await sleep(400); // the answer (200) came meanwhile
    expect(c.stats()).toMatchObject({ delivered: 0, failed: 1, logged: 1, retried: 0 });
    expect(sink.requests).toHaveLength(1);
  });

  it("ignores the answer of a transport of the user's own that comes after close() gave its record up", async () => {
    const transport: Transport = { send: () => sleep(300).then(() => ({ status: 200 })) };
    const c = client({ transport });
    const pending = failure(c.sms.logIncoming({ text: 'a', userId: 'u' }));
    await sleep(50);
    await c.close(50);
    expect(await pending).toMatchObject({ reason: 'close-deadline' });
    await sleep(400);
    expect(c.stats()).toMatchObject({ delivered: 0, failed: 1, logged: 1, retried: 0 });
  });
});

describe("a user's lane after one of their records was given up", () => {
  /** How the transport fails a record whose text names the case, the reason it is given up for, and the options that lead there. */
  const cases: [string, () => Promise<{ status: number }>, string, TrackingClientOptions][] = [
    ['refused (400)', async () => ({ status: 400 }), 'rejected', {}],
    ['key refused (401)', async () => ({ status: 401 }), 'unauthorized', {}],
    ['retries ran out', () => Promise.reject(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })), 'retries-exhausted', { maxAttempts: 1 }],
    // A budget the first backoff already passes.
    ['retry budget ran out', async () => ({ status: 503 }), 'retry-budget-exceeded', { initialBackoffMs: 400, maxBackoffMs: 400, maxRetryDurationMs: 150 }],
    ['TLS mismatch', () => Promise.reject(Object.assign(new Error('wrong version number'), { code: 'ERR_SSL_WRONG_VERSION_NUMBER' })), 'rejected', {}],
  ];

  it.each(cases)("delivers the same user's next records after one was given up (%s): the lane is freed, not left waiting", async (kind, fail, reason, options) => {
    const sent: string[] = [];
    const transport: Transport = {
      send: (request) => {
        const text = (JSON.parse(String(request.body)) as { text: string }).text;
        sent.push(text);
        return text === kind ? fail() : Promise.resolve({ status: 200 });
      },
    };
    const c = new TrackingClient({ apiKey: KEY, baseUrl: 'http://127.0.0.1:9', logger: false, transport, initialBackoffMs: 5, maxBackoffMs: 10, ...options });
    try {
      const failed = c.sms.logIncoming({ text: kind, userId: 'u' }).then(() => 'delivered', (e: TrackingDeliveryError) => e.reason);
      const next = [c.sms.logIncoming({ text: 'next 1', userId: 'u' }), c.sms.logOutgoing({ text: 'next 2', userId: 'u' })];
      expect(await failed).toBe(reason);
      const results = await Promise.race([Promise.all(next), sleep(3_000).then(() => 'stuck behind the given-up record')]);
      expect(results).toEqual([expect.objectContaining({ status: 'delivered' }), expect.objectContaining({ status: 'delivered' })]);
      expect(sent.filter((text) => text !== kind)).toEqual(['next 1', 'next 2']);
      await expect(Promise.race([c.flush().then(() => 'flushed'), sleep(3_000).then(() => 'flush() hung')])).resolves.toBe('flushed');
    } finally {
      await c.close(500);
    }
  });
});

describe('a transport of the user’s own', () => {
  let sink: Sink;
  beforeEach(async () => {
    sink = await startSink();
  });
  afterEach(async () => {
    await sink.close();
  });

  it('gets each body as JSON text with its content type, and the request timeout', async () => {
    const seen: { body: unknown; headers: Record<string, string>; timeoutMs: number }[] = [];
    const inner = createNodeHttpTransport();
    const transport: Transport = {
      send: (request) => {
        seen.push({ body: request.body, headers: request.headers, timeoutMs: request.timeoutMs });
        return inner.send(request);
      },
      close: () => inner.close?.(),
    };
    const c = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger: false, transport, requestTimeoutMs: 1_234 });
    await c.sms.logIncoming({ text: 'héllo', userId: 'u' });
    await c.close();
    expect(seen).toEqual([{ body: '{"text":"héllo","userId":"u"}', headers: { 'content-type': 'application/json', 'idempotency-key': expect.stringMatching(UUID) }, timeoutMs: 1_234 }]);
    expect(sink.requests[0].body).toEqual({ text: 'héllo', userId: 'u' });
    expect(sink.requests[0].headers['idempotency-key']).toBe(seen[0].headers['idempotency-key']);
  });

  it('that throws, or rejects with something not an Error: the record is retried, then given up naming the failure', async () => {
    let calls = 0;
    const transport: Transport = {
      send: () => {
        calls++;
        if (calls === 1) throw new Error('cannot start');
        if (calls === 2) return Promise.reject('a string, not an Error');
        return Promise.resolve({ status: 200 });
      },
    };
    const c = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger: false, transport, initialBackoffMs: 5, maxBackoffMs: 10 });
    await expect(c.sms.logIncoming({ text: 'a', userId: 'u' })).resolves.toEqual({ status: 'delivered', httpStatus: 200, attempts: 3 });
    const failing: Transport = { send: () => Promise.reject('plain text failure') };
    const d = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger: false, transport: failing, initialBackoffMs: 5, maxBackoffMs: 10, maxAttempts: 2 });
    const error = (await d.sms.logIncoming({ text: 'a', userId: 'u' }).catch((e: unknown) => e)) as TrackingDeliveryError;
    expect(error).toMatchObject({ reason: 'retries-exhausted', attempts: 2 });
    expect(error.message).toContain('the last failed with Error.');
    expect((error.cause as Error).message).toBe('plain text failure');
    await Promise.all([c.close(), d.close()]);
  });
});

describe('pending bodies', () => {
  let sink: Sink;
  beforeEach(async () => {
    sink = await startSink(() => ({ delayMs: 100 }));
  });
  afterEach(async () => {
    await sink.close();
  });

  const settings = { maxQueueSize: 100, maxConcurrency: 4, requestTimeoutMs: 2_000, maxAttempts: 3, maxRetryDurationMs: 10_000, initialBackoffMs: 5, maxBackoffMs: 10, maxRetryAfterMs: 1_000 };
  const hooks = { scrub: (text: string) => text, excerpt: (text: string) => text, safeCause: (error: Error) => error, onGiveUp: () => undefined };
  const target = () => ({ url: `${sink.url}/track?platform=sms&v=1&type=incoming&apiKey=${KEY}`, label: 'sms incoming', platform: 'sms' as const, type: 'incoming' as const });

  it('are held as UTF-8 bytes outside the heap while pending with the default transport, and given back once delivered', async () => {
    const transport = createNodeHttpTransport();
    const queue = new DeliveryQueue(transport, settings, hooks);
    const results: unknown[] = [];
    const records = ['héllo', 'wörld'].map((text, i) => new QueuedRecord(target(), JSON.stringify({ text, userId: 'u' }), 'u', i + 1, undefined, { resolve: (r) => results.push(r), reject: (e) => results.push(e) }));
    for (const record of records) expect(queue.enqueue(record)).toBe(true);
    // Not as text on the heap: only where their bytes are in a slab.
    expect(records.every((r) => r.body === undefined && r.slab !== undefined)).toBe(true);
    expect(queue.bodies!.pendingBytes).toBe(Buffer.byteLength(records[0].text) + Buffer.byteLength(records[1].text));
    await queue.flush();
    expect(queue.bodies!.pendingBytes).toBe(0);
    expect(results).toEqual([{ status: 'delivered', httpStatus: 200, attempts: 1 }, { status: 'delivered', httpStatus: 200, attempts: 1 }]);
    expect(sink.requests.map((r) => r.body.text)).toEqual(['héllo', 'wörld']);
    await transport.close?.();
  });

  it("are kept as text for a transport of the user's own", async () => {
    const inner = createNodeHttpTransport();
    const queue = new DeliveryQueue({ send: (request) => inner.send(request) }, settings, hooks);
    const record = new QueuedRecord(target(), '{"text":"x","userId":"u"}', 'u', 1, undefined, undefined);
    queue.enqueue(record);
    expect(queue.bodies).toBeUndefined();
    expect(record.body).toBe('{"text":"x","userId":"u"}');
    await queue.flush();
    expect(queue.size).toBe(0);
    await inner.close?.();
  });

  it('refuses a record once maxQueueSize records are pending, and takes records again as they settle', async () => {
    const transport = createNodeHttpTransport();
    const queue = new DeliveryQueue(transport, { ...settings, maxQueueSize: 2 }, hooks);
    const make = (n: number) => new QueuedRecord(target(), `{"text":"${n}","userId":"u"}`, 'u', n, undefined, undefined);
    expect([queue.enqueue(make(1)), queue.enqueue(make(2)), queue.enqueue(make(3))]).toEqual([true, true, false]);
    expect(queue.isFull).toBe(true);
    expect(queue.size).toBe(2);
    await queue.flush();
    expect(queue.isFull).toBe(false);
    expect(queue.enqueue(make(4))).toBe(true);
    await queue.flush();
    expect(sink.requests.map((r) => r.body.text)).toEqual(['1', '2', '4']);
    await transport.close?.();
  });
});
