/**
 * Requests in flight follow the endpoint: the window grows while it keeps up and shrinks when it
 * struggles, within the cap, and one user's records still go one at a time.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConcurrencyWindow, INITIAL_WINDOW } from '../../src/client/concurrency.js';
import { TrackingClient } from '../../src/index.js';
import { startSink, type Sink } from '../helpers/sink.js';

describe('the concurrency window', () => {
  it('starts at 16 (or the cap), doubles per round trip in slow start, and never passes the cap', () => {
    expect(new ConcurrencyWindow(4).limit).toBe(4);
    const w = new ConcurrencyWindow(256);
    expect(w.limit).toBe(INITIAL_WINDOW);
    // One round trip: each of the 16 requests in flight succeeds.
    for (let i = 0; i < 16; i++) w.onSuccess(0, 100, true);
    expect(w.limit).toBe(32);
    for (let t = 1; t < 20; t++) for (let i = 0; i < w.limit; i++) w.onSuccess(t * 100, t * 100 + 100, true);
    expect(w.limit).toBe(256);
  });

  it('does not grow when the window was not full and nothing waited', () => {
    const w = new ConcurrencyWindow(256);
    for (let i = 0; i < 100; i++) w.onSuccess(0, 100, false);
    expect(w.limit).toBe(INITIAL_WINDOW);
  });

  it('halves on a failure, once per round trip, then grows by about one per round trip', () => {
    const w = new ConcurrencyWindow(256);
    for (let i = 0; i < 48; i++) w.onSuccess(0, 100, true); // 64
    expect(w.limit).toBe(64);
    w.onFailure(200, 300);
    expect(w.limit).toBe(32);
    // Other requests of the same round trip (sent before the decrease) fail too: no further halving.
    for (let i = 0; i < 10; i++) w.onFailure(250, 310);
    expect(w.limit).toBe(32);
    // A request sent after the decrease that fails halves again.
    w.onFailure(320, 420);
    expect(w.limit).toBe(16);
    // Past the threshold growth is additive: about a round trip of successes adds one.
    for (let i = 0; i < 18; i++) w.onSuccess(500, 600, true);
    expect(w.limit).toBe(17);
  });

  it('shrinks when the smoothed round trip rises well above the best seen (the endpoint is queueing), not on one slow answer', () => {
    const w = new ConcurrencyWindow(256);
    for (let i = 0; i < 16; i++) w.onSuccess(0, 50, true); // best 50 ms, window 32
    expect(w.limit).toBe(32);
    // One answer after 400 ms moves the smoothed round trip to about 94 ms (≤ 2 × 50 + 20): no decrease.
    w.onSuccess(100, 500, false);
    expect(w.limit).toBe(32);
    // Answers keep coming after 200 ms: the smoothed round trip passes 120 ms, and the window shrinks by a fifth, once.
    let t = 600;
    while (w.limit === 32 && t < 5000) {
      w.onSuccess(t, t + 200, false);
      t += 10;
    }
    expect(w.limit).toBe(25);
    // Answers to requests sent before that decrease do not shrink it again.
    w.onSuccess(t - 50, t + 150, false);
    expect(w.limit).toBe(25);
  });

  it('never goes below one request', () => {
    const w = new ConcurrencyWindow(256);
    for (let t = 0; t < 20; t++) w.onFailure(t * 1000, t * 1000 + 1);
    expect(w.limit).toBe(1);
  });
});

describe('a client against an endpoint 40 ms away', () => {
  let sink: Sink;
  let inFlight = 0;
  let peak = 0;
  const order = new Map<string, number[]>();

  beforeEach(async () => {
    inFlight = 0;
    peak = 0;
    order.clear();
    sink = await startSink((request) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      setTimeout(() => inFlight--, 40);
      const list = order.get(request.body.userId) ?? [];
      list.push(Number(request.body.text));
      order.set(request.body.userId, list);
      return { delayMs: 40 };
    });
  });
  afterEach(async () => {
    await sink.close();
  });

  async function send(client: TrackingClient, users: number, perUser: number): Promise<void> {
    const sent: Promise<unknown>[] = [];
    for (let i = 0; i < perUser; i++) for (let u = 0; u < users; u++) sent.push(client.sms.logIncoming({ text: String(i), userId: `u${u}` }));
    await Promise.all(sent);
    await client.close();
  }

  it('grows past its first 16 requests towards one per user, and keeps each user\'s order', async () => {
    const client = new TrackingClient({ apiKey: 'k-conc-1', baseUrl: sink.url, logger: false });
    await send(client, 150, 6);
    expect(peak).toBeGreaterThan(3 * 16); // well past the first window (the old fixed 16), towards 150
    expect(peak).toBeLessThanOrEqual(150);
    for (const [, texts] of order) expect(texts).toEqual([0, 1, 2, 3, 4, 5]);
    expect(client.stats().delivered).toBe(900);
  });

  it('never has more than maxConcurrency requests in flight', async () => {
    const client = new TrackingClient({ apiKey: 'k-conc-2', baseUrl: sink.url, logger: false, maxConcurrency: 24 });
    await send(client, 100, 4);
    expect(peak).toBe(24);
  });
});
