/**
 * What the delivery queue promises a user, against a real local endpoint: `flush()` callers resolve
 * only once what they wait for is settled, a long backlog of one user drains in order, a 2xx other
 * than 200 is reported with its real status, retries wait their backoff, and the retry budget
 * (`maxRetryDurationMs`) counts from a record's first attempt.
 */
import axios from 'axios';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAxiosTransport, createNodeHttpTransport, TrackingClient, type TrackingClientOptions, type Transport } from '../../src/index.js';
import { startSink, type Sink } from '../helpers/sink.js';

const KEY = 'queue-key-31';

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
