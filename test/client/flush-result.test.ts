/**
 * `flush({ timeoutMs })` and what it returns, and which failures shrink the window of requests in
 * flight: with a transport of the test's own, whose every request waits until the test answers it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TrackingClient, TrackingConfigError, type Transport, type TransportRequest, type TransportResponse } from '../../src/index.js';

interface Held {
  request: TransportRequest;
  answer(response: TransportResponse): void;
  fail(error: Error): void;
}

/** A transport that holds every request until the test answers it. */
function heldTransport(): Transport & { held: Held[] } {
  const held: Held[] = [];
  return {
    held,
    send(request) {
      return new Promise<TransportResponse>((resolve, reject) => held.push({ request, answer: resolve, fail: reject }));
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const clients: TrackingClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close(10);
});

function client(transport: Transport, options: ConstructorParameters<typeof TrackingClient>[0] = {}): TrackingClient {
  const c = new TrackingClient({ apiKey: 'flush-key-1', baseUrl: 'http://127.0.0.1:9', transport, logger: false, initialBackoffMs: 1, maxBackoffMs: 1, ...options });
  clients.push(c);
  return c;
}

const bodyText = (h: Held) => (JSON.parse(h.request.body) as { text: string }).text;

describe('flush()', () => {
  it('resolves at once with zeros when nothing is pending', async () => {
    const c = client(heldTransport());
    await expect(c.flush()).resolves.toEqual({ delivered: 0, givenUp: 0, saved: 0, pending: 0 });
    await expect(c.flush({ timeoutMs: 5 })).resolves.toEqual({ delivered: 0, givenUp: 0, saved: 0, pending: 0 });
  });

  it('counts the records pending when it was called: delivered, given up; later ones are not its', async () => {
    const t = heldTransport();
    const c = client(t, { maxAttempts: 1 });
    for (let i = 0; i < 3; i++) void c.sms.logIncoming({ text: `r${i}`, userId: `u${i}` }).catch(() => undefined);
    const flushed = c.flush();
    void c.sms.logIncoming({ text: 'later', userId: 'u9' }).catch(() => undefined);
    await tick();
    expect(t.held.map(bodyText)).toEqual(['r0', 'r1', 'r2', 'later']);
    t.held[0].answer({ status: 200 });
    t.held[1].answer({ status: 400 });
    t.held[2].answer({ status: 500 });
    await expect(flushed).resolves.toEqual({ delivered: 1, givenUp: 2, saved: 0, pending: 0 });
    expect(c.stats()).toMatchObject({ delivered: 1, failed: 2, inFlight: 1 });
  });

  it('with timeoutMs: resolves at the deadline with what is still pending, which stays queued for the next flush', async () => {
    const t = heldTransport();
    const c = client(t);
    for (let i = 0; i < 3; i++) void c.sms.logIncoming({ text: `r${i}`, userId: 'u' });
    await tick();
    t.held[0].answer({ status: 200 });
    await tick();
    const started = performance.now();
    await expect(c.flush({ timeoutMs: 50 })).resolves.toEqual({ delivered: 0, givenUp: 0, saved: 0, pending: 2 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(c.stats()).toMatchObject({ delivered: 1, inFlight: 1, queued: 1 });
    const next = c.flush();
    t.held[1].answer({ status: 200 });
    await tick();
    t.held[2].answer({ status: 200 });
    await expect(next).resolves.toEqual({ delivered: 2, givenUp: 0, saved: 0, pending: 0 });
  });

  it('two flushes with deadlines: the one whose deadline passes leaves the other waiting', async () => {
    const t = heldTransport();
    const c = client(t);
    void c.sms.logIncoming({ text: 'r0', userId: 'u' });
    const short = c.flush({ timeoutMs: 10 });
    const long = c.flush({ timeoutMs: 10_000 });
    await expect(short).resolves.toMatchObject({ pending: 1 });
    t.held[0].answer({ status: 200 });
    await expect(long).resolves.toEqual({ delivered: 1, givenUp: 0, saved: 0, pending: 0 });
  });

  it('counts a record saved to persistDir as saved', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bca-flush-'));
    try {
      const t = heldTransport();
      const c = client(t, { maxAttempts: 1, persistDir: dir });
      void c.sms.logIncoming({ text: 'r0', userId: 'u' }).catch(() => undefined);
      const flushed = c.flush();
      await tick();
      t.held[0].answer({ status: 503 });
      await expect(flushed).resolves.toEqual({ delivered: 0, givenUp: 0, saved: 1, pending: 0 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a timeoutMs that is not a positive number, naming it', async () => {
    const c = client(heldTransport());
    for (const wrong of [0, -1, Number.NaN, '5' as unknown as number]) {
      const error = await c.flush({ timeoutMs: wrong }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TrackingConfigError);
      expect((error as TrackingConfigError).message).toBe('flush({ timeoutMs }) must be a positive number of milliseconds (or Infinity, the default: wait as long as the retry caps allow).');
      expect((error as TrackingConfigError).issues).toEqual([{ path: 'timeoutMs', expected: 'a positive number of milliseconds', received: typeof wrong === 'number' ? String(wrong) : 'string' }]);
    }
    await expect(c.flush({ timeoutMs: Infinity })).resolves.toMatchObject({ pending: 0 });
    await expect(c.flush({})).resolves.toMatchObject({ pending: 0 });
  });

  it('off (enabled: false): resolves with zeros', async () => {
    const c = new TrackingClient({ enabled: false, logger: false });
    await expect(c.flush({ timeoutMs: 10 })).resolves.toEqual({ delivered: 0, givenUp: 0, saved: 0, pending: 0 });
  });
});

describe('the window of requests in flight, after one failure among successes', () => {
  /** 40 users' records in flight (the first 16, the window), the first answered with `response` or failed with `error`: how many are in flight after. */
  async function inFlightAfter(failure: { response?: TransportResponse; error?: Error }): Promise<number> {
    const t = heldTransport();
    const c = client(t, { initialBackoffMs: 60_000, maxBackoffMs: 60_000 });
    for (let i = 0; i < 40; i++) void c.sms.logIncoming({ text: `r${i}`, userId: `u${i}` }).catch(() => undefined);
    await tick();
    expect(c.stats().inFlight).toBe(16);
    if (failure.response) t.held[0].answer(failure.response);
    else t.held[0].fail(failure.error!);
    await tick();
    return c.stats().inFlight;
  }
  const coded = (code: string) => Object.assign(new Error(code), { code });

  it('an isolated 500, 503 without Retry-After or reset: one request\'s failure, the window kept (another record takes its slot)', async () => {
    expect(await inFlightAfter({ response: { status: 500 } })).toBe(16);
    expect(await inFlightAfter({ response: { status: 503 } })).toBe(16);
    expect(await inFlightAfter({ error: coded('ECONNRESET') })).toBe(16);
  });

  it('a 429, an answer with Retry-After, a timeout: the endpoint asks for less, the window shrinks (11 of 16)', async () => {
    expect(await inFlightAfter({ response: { status: 429 } })).toBe(15);
    expect(await inFlightAfter({ response: { status: 503, retryAfter: '1' } })).toBe(15);
    expect(await inFlightAfter({ error: coded('ETIMEDOUT') })).toBe(15);
  });
});
