/**
 * Requests in flight follow the endpoint: the window grows while it keeps up and shrinks when it
 * struggles, within the cap, and one user's records still go one at a time.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConcurrencyWindow, FAILURE_FACTOR, FAILURES_IN_A_ROW, INITIAL_WINDOW } from '../../src/client/concurrency.js';
import { TrackingClient } from '../../src/index.js';
import { startSink, type Reply, type Sink } from '../helpers/sink.js';

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

  it('shrinks by 30% on an overload, once per round trip, then grows by about one per round trip', () => {
    expect(FAILURE_FACTOR).toBe(0.7);
    const w = new ConcurrencyWindow(256);
    for (let i = 0; i < 48; i++) w.onSuccess(0, 100, true); // 64
    expect(w.limit).toBe(64);
    w.onFailure(200, 300, true);
    expect(w.limit).toBe(44); // 44.8
    // Other requests of the same round trip (sent before the decrease) fail too: no further decrease.
    for (let i = 0; i < 10; i++) w.onFailure(250, 310, true);
    expect(w.limit).toBe(44);
    // A request sent after the decrease that fails shrinks it again.
    w.onFailure(320, 420, true);
    expect(w.limit).toBe(31); // 31.36
    // Past the threshold growth is additive: about a round trip of successes adds one.
    for (let i = 0; i < 31; i++) w.onSuccess(500, 600, true);
    expect(w.limit).toBe(32);
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

  it('does not take slow first answers (new connections, a busy start) for queueing once faster ones come: it keeps doubling', () => {
    const w = new ConcurrencyWindow(256);
    // The first round trip: 370 ms (connections opened, the bot's turns keeping the event loop busy).
    for (let i = 0; i < 16; i++) w.onSuccess(0, 370, true);
    expect(w.limit).toBe(32);
    // Then the endpoint's real round trip, 150 ms: the window goes on doubling, no decrease.
    let t = 400;
    while (w.limit < 256 && t < 4000) {
      for (let i = 0, n = w.limit; i < n; i++) w.onSuccess(t, t + 150, true);
      t += 150;
    }
    expect(w.limit).toBe(256);
    expect(t).toBeLessThanOrEqual(400 + 3 * 150);
  });

  it('after shrinking, grows by about one per round trip at once (not by one per success)', () => {
    const w = new ConcurrencyWindow(256);
    for (let i = 0; i < 48; i++) w.onSuccess(0, 100, true); // 64
    w.onFailure(200, 300, true);
    expect(w.limit).toBe(44); // 44.8
    // 1/44.8 per success: 9 to pass 45, a round trip (45) more to pass 46.
    for (let i = 0; i < 8; i++) w.onSuccess(400, 500, true);
    expect(w.limit).toBe(44);
    w.onSuccess(400, 500, true);
    expect(w.limit).toBe(45);
    for (let i = 0; i < 44; i++) w.onSuccess(400, 500, true);
    expect(w.limit).toBe(45);
    for (let i = 0; i < 2; i++) w.onSuccess(400, 500, true);
    expect(w.limit).toBe(46);
  });

  it('shrinks again for a failure of a request sent at the very moment it last shrank', () => {
    const w = new ConcurrencyWindow(256);
    for (let i = 0; i < 48; i++) w.onSuccess(0, 100, true); // 64
    w.onFailure(200, 300, true);
    w.onFailure(299, 310, true);
    expect(w.limit).toBe(44);
    w.onFailure(300, 400, true);
    expect(w.limit).toBe(31);
  });

  it('forgets its best round trip after 30 s, so a slower path found later is not taken for queueing', () => {
    const w = new ConcurrencyWindow(256);
    for (let i = 0; i < 16; i++) w.onSuccess(0, 50, true); // best 50 ms, window 32
    // 40 s later the endpoint answers in 200 ms (another route): the new best, no decrease.
    for (let t = 40_000; t < 41_000; t += 10) w.onSuccess(t, t + 200, false);
    expect(w.limit).toBe(32);
  });

  it('keeps the best round trip it learned after forgetting the old one, and still sees queueing against it', () => {
    const w = new ConcurrencyWindow(256);
    for (let i = 0; i < 16; i++) w.onSuccess(0, 50, true); // window 32
    w.onSuccess(40_000, 40_050, false); // 40 s later: the best (50 ms) learned again
    // Then the endpoint queues: answers after 200 ms. The window shrinks by a fifth.
    let t = 40_100;
    while (w.limit === 32 && t < 42_000) {
      w.onSuccess(t, t + 200, false);
      t += 10;
    }
    expect(w.limit).toBe(25);
  });

  it('keeps its size for an isolated failure (a 500, a reset): that request\'s, not the endpoint\'s', () => {
    const w = new ConcurrencyWindow(256);
    for (let i = 0; i < 48; i++) w.onSuccess(0, 100, true); // 64
    // Three failures in a row, then a success: the window is kept.
    for (let i = 0; i < FAILURES_IN_A_ROW - 1; i++) w.onFailure(200 + i, 300 + i, false);
    expect(w.limit).toBe(64);
    w.onSuccess(400, 500, false);
    for (let i = 0; i < FAILURES_IN_A_ROW - 1; i++) w.onFailure(600 + i, 700 + i, false);
    expect(w.limit).toBe(64);
  });

  it('shrinks when failures come four in a row with no success between them (the endpoint failing altogether)', () => {
    expect(FAILURES_IN_A_ROW).toBe(4);
    const w = new ConcurrencyWindow(256);
    for (let i = 0; i < 48; i++) w.onSuccess(0, 100, true); // 64
    for (let i = 0; i < 3; i++) w.onFailure(200, 300, false);
    expect(w.limit).toBe(64);
    w.onFailure(200, 300, false);
    expect(w.limit).toBe(44);
    // Still failing, a round trip later: shrinks again.
    w.onFailure(400, 500, false);
    expect(w.limit).toBe(31);
  });

  it('shrinks at once for an overload (a 429, Retry-After, a timeout)', () => {
    const w = new ConcurrencyWindow(256);
    for (let i = 0; i < 48; i++) w.onSuccess(0, 100, true); // 64
    w.onFailure(200, 300, true);
    expect(w.limit).toBe(44);
  });

  it('never goes below one request', () => {
    const w = new ConcurrencyWindow(256);
    for (let t = 0; t < 20; t++) w.onFailure(t * 1000, t * 1000 + 1, true);
    expect(w.limit).toBe(1);
  });
});

// 100 ms away: far enough that a busy machine's timer lateness (tens of ms) does not read as the
// endpoint queueing (the window backs off when round trips pass twice the best + 20 ms).
describe('a client against an endpoint 100 ms away', () => {
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
      setTimeout(() => inFlight--, 100);
      const list = order.get(request.body.userId) ?? [];
      list.push(Number(request.body.text));
      order.set(request.body.userId, list);
      return { delayMs: 100 };
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

describe('a client whose first round trip filled its window', () => {
  it('doubles the window for the next burst, the record that filled it counted too', async () => {
    const arrivals: number[] = [];
    const sink = await startSink(() => {
      arrivals.push(performance.now());
      return { delayMs: 150 };
    });
    try {
      const client = new TrackingClient({ apiKey: 'k-fill-1', baseUrl: sink.url, logger: false });
      // Exactly 16 users, one record each: the 16th fills the window (no record waits behind it).
      await Promise.all(Array.from({ length: 16 }, (_, u) => client.sms.logIncoming({ text: 'first', userId: `u${u}` })));
      arrivals.length = 0;
      const burst = Array.from({ length: 48 }, (_, u) => client.sms.logIncoming({ text: 'second', userId: `u${u}` }));
      await Promise.all(burst);
      await client.close();
      // Requests of the burst that reached the endpoint before its first answer could have come back.
      const firstWave = arrivals.filter((t) => t < arrivals[0] + 120).length;
      expect(firstWave).toBe(32);
    } finally {
      await sink.close();
    }
  });
});

describe('a client whose first round trip did not fill its window, or was refused', () => {
  /** How many requests of a burst of 48 users reach the endpoint before its first answer could have come back, after a first round trip of `users` records answered `status`. */
  async function firstWaveAfter(users: number, status: number): Promise<number> {
    const arrivals: number[] = [];
    const sink = await startSink((_request, index) => {
      arrivals.push(performance.now());
      return { delayMs: 150, status: index < users ? status : 200 };
    });
    try {
      const client = new TrackingClient({ apiKey: 'k-fill-2', baseUrl: sink.url, logger: false });
      await Promise.allSettled(Array.from({ length: users }, (_, u) => client.sms.logIncoming({ text: 'first', userId: `u${u}` })));
      arrivals.length = 0;
      await Promise.all(Array.from({ length: 48 }, (_, u) => client.sms.logIncoming({ text: 'second', userId: `u${u}` })));
      await client.close();
      return arrivals.filter((t) => t < arrivals[0] + 120).length;
    } finally {
      await sink.close();
    }
  }

  it('keeps its window of 16 for the next burst when the first round trip left it room (15 records)', async () => {
    expect(await firstWaveAfter(15, 200)).toBe(16);
  });

  it('keeps its window of 16 for the next burst when the endpoint refused the records that filled it (HTTP 400)', async () => {
    expect(await firstWaveAfter(16, 400)).toBe(16);
  });
});

describe('a client against an endpoint that struggles', () => {
  const failures: [string, Reply][] = [
    ['503', { status: 503, delayMs: 20 }],
    ['429', { status: 429, delayMs: 20 }],
    ['connection resets', { reset: true, delayMs: 20 }],
  ];
  for (const [name, reply] of failures) {
    it(`sends fewer requests at once while it answers with ${name}, and delivers everything once it recovers`, async () => {
      // Requests in flight at the endpoint, and the most of them at once among the first 30
      // requests and among requests 60 to 90, all of which fail; from the 90th on, it answers 200.
      let inFlight = 0;
      let peakEarly = 0;
      let peakLate = 0;
      const sink = await startSink((_request, index) => {
        inFlight++;
        if (index < 30) peakEarly = Math.max(peakEarly, inFlight);
        else if (index >= 60 && index < 90) peakLate = Math.max(peakLate, inFlight);
        setTimeout(() => inFlight--, 20);
        return index < 90 ? reply : { delayMs: 20 };
      });
      try {
        const client = new TrackingClient({ apiKey: 'k-shrink-1', baseUrl: sink.url, logger: false, maxAttempts: 1_000, initialBackoffMs: 5, maxBackoffMs: 20 });
        const sent = Array.from({ length: 64 }, (_, u) => client.sms.logIncoming({ text: 'x', userId: `u${u}` }));
        const results = await Promise.allSettled(sent);
        await client.close();
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(64);
        expect(peakEarly).toBeGreaterThanOrEqual(8); // it did start with many in flight (16)…
        expect(peakLate).toBeLessThanOrEqual(4); // …and backed off to a few while every answer failed
      } finally {
        await sink.close();
      }
    }, 30_000);
  }
});

describe('the default transport', () => {
  it('keeps connections alive: 50 records of one user, one after the other, travel over one or two sockets', async () => {
    let connections = 0;
    let requests = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        requests++;
        res.end('{"ok":true}');
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = new TrackingClient({ apiKey: 'k-keepalive-1', baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, logger: false });
      for (let i = 0; i < 50; i++) await client.sms.logIncoming({ text: String(i), userId: 'u' });
      await client.close();
      expect(requests).toBe(50);
      expect(connections).toBeLessThanOrEqual(2);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
