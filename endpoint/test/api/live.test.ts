/**
 * `GET /api/events`: server-sent events when records arrive. Streams survive the server's
 * idle-socket timeout, never hold up `close()`, are capped, and need read access.
 */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrackingEndpoint, TrackingEndpointOptions } from '../../src/index.js';
import { KEY, Q, message, start, track } from '../helpers.js';

/** An open event stream: the events parsed so far, and a way to wait for more. */
interface Stream {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: { event: string; data: unknown }[];
  /** Raw text received, comments included. */
  raw: () => string;
  closed: Promise<void>;
  next(count: number): Promise<void>;
  destroy(): void;
}

function openStream(endpoint: TrackingEndpoint, headers: Record<string, string> = {}, base = endpoint.url): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/api/events`, { headers }, (res) => {
      let raw = '';
      let waiting: { count: number; resolve: () => void } | undefined;
      const events: Stream['events'] = [];
      const closed = new Promise<void>((done) => res.on('close', done));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        const blocks = raw.split('\n\n').slice(0, -1);
        events.length = 0;
        for (const block of blocks) {
          const lines = block.split('\n');
          const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
          const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
          if (event && data) events.push({ event, data: JSON.parse(data) });
        }
        if (waiting && events.length >= waiting.count) waiting.resolve();
      });
      res.on('error', () => undefined);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        raw: () => raw,
        closed,
        next: (count) => (events.length >= count ? Promise.resolve() : new Promise((done) => (waiting = { count, resolve: done }))),
        destroy: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

let endpoint: TrackingEndpoint | undefined;
const streams: Stream[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.destroy();
  await endpoint?.close();
  endpoint = undefined;
});

async function begin(options: TrackingEndpointOptions = {}): Promise<TrackingEndpoint> {
  endpoint = await start(options);
  return endpoint;
}

async function follow(target: TrackingEndpoint, headers?: Record<string, string>, base?: string): Promise<Stream> {
  const stream = await openStream(target, headers, base);
  streams.push(stream);
  return stream;
}

describe('GET /api/events', () => {
  it('starts with where the store stands, then sends a records event when records arrive', async () => {
    const ep = await begin();
    await track(ep, Q.universalIn, message('u1', 'first'));
    const stream = await follow(ep);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers['cache-control']).toBe('no-store');
    await stream.next(1);
    expect(stream.events[0]).toEqual({ event: 'records', data: { lastSeq: 1, records: 1 } });
    expect(stream.raw()).toMatch(/^retry: \d+\n/);

    await track(ep, Q.universalIn, message('u1', 'second'));
    await stream.next(2);
    expect(stream.events[1]).toEqual({ event: 'records', data: { lastSeq: 2, records: 2 } });
  });

  it('after a burst of records, ends with an event carrying the latest state', async () => {
    // How many events a burst over HTTP makes depends on how the machine schedules the requests;
    // live-feed.test.ts counts them where the timing is the test's own.
    const ep = await begin();
    const stream = await follow(ep);
    await stream.next(1);
    await Promise.all(Array.from({ length: 20 }, (_, i) => track(ep, Q.universalIn, message('u1', `m${i}`))));
    await expect.poll(() => stream.events.at(-1)?.data, { timeout: 10_000 }).toEqual({ lastSeq: 20, records: 20 });
  });

  it('stays open past the server\'s idle-socket timeout: a comment keeps it alive', async () => {
    // Idle sockets are closed after max(requestTimeoutMs, keepAliveTimeoutMs + 1000) = 1100 ms here.
    const ep = await begin({ requestTimeoutMs: 300, headersTimeoutMs: 300, keepAliveTimeoutMs: 100 });
    const stream = await follow(ep);
    let ended = false;
    void stream.closed.then(() => (ended = true));
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(ended).toBe(false);
    expect(stream.raw()).toContain(': keep-alive');
    await track(ep, Q.universalIn, message('u1', 'still listening'));
    await stream.next(2);
  });

  it('does not hold up close(): open streams end at once', async () => {
    const ep = await begin({ closeGraceMs: 5000 });
    const open = await Promise.all([follow(ep), follow(ep), follow(ep)]);
    await Promise.all(open.map((s) => s.next(1)));
    const started = Date.now();
    await ep.close();
    expect(Date.now() - started).toBeLessThan(1000);
    await Promise.all(open.map((s) => s.closed));
  });

  it('refuses a stream beyond the cap with 503 and Retry-After, and takes one again once another closes', async () => {
    const ep = await begin();
    const open: Stream[] = [];
    for (let i = 0; i < 32; i++) open.push(await follow(ep));
    const refused = await follow(ep);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    open[0].destroy();
    await open[0].closed;
    await expect.poll(async () => {
      const again = await follow(ep);
      return again.status;
    }).toBe(200);
  });

  it('needs read access: a reader token off loopback (a write key is refused), a loopback Host on loopback', async () => {
    const wide = await begin({ host: '0.0.0.0', readers: ['ops=reader-token-1'] });
    const base = `http://127.0.0.1:${wide.port}`;
    expect((await follow(wide, {}, base)).status).toBe(401);
    expect((await follow(wide, { authorization: `Bearer ${KEY}` }, base)).status).toBe(401);
    expect((await follow(wide, { authorization: 'Bearer reader-token-1' }, base)).status).toBe(200);
    const local = await start();
    try {
      expect((await follow(local, { host: 'evil.example' })).status).toBe(403);
    } finally {
      for (const stream of streams.splice(0)) stream.destroy();
      await local.close();
    }
  });
});
