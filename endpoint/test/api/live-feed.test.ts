/**
 * The live feed behind `GET /api/events`, over real HTTP, on a stand-in store whose changes and
 * reads the test makes happen: so the number of events a burst makes, what a change during a
 * read does, and a stalled reader are checked without depending on the machine's timing.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveFeed, type LiveFeedOptions } from '../../src/api/live.js';
import { openStore } from '../../src/store/open.js';
import type { RecordStore } from '../../src/store/store.js';

/** A store the test drives: `changed()` is a commit, `hold()` keeps reads waiting. */
class StandInStore {
  state: { lastSeq: unknown; records: number } = { lastSeq: 0, records: 0 };
  reads = 0;
  failing = false;
  private readonly listeners = new Set<() => void>();
  private gate: Promise<void> | undefined;

  watch(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get watchers(): number {
    return this.listeners.size;
  }

  changed(lastSeq: unknown, records = Number(lastSeq)): void {
    this.state = { lastSeq, records };
    for (const listener of this.listeners) listener();
  }

  /** Reads wait until the returned function is called; each returns the state as it was when it began. */
  hold(): () => void {
    let release!: () => void;
    this.gate = new Promise((resolve) => (release = resolve));
    return () => {
      this.gate = undefined;
      release();
    };
  }

  async lastSeq(): Promise<unknown> {
    this.reads++;
    const { lastSeq } = this.state;
    await this.gate;
    if (this.failing) throw new Error('the database is away');
    return lastSeq;
  }

  async count(): Promise<number> {
    const { records } = this.state;
    await this.gate;
    return records;
  }
}

interface Stream {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: { event: string; data: any }[];
  raw: () => string;
  body: any;
  closed: Promise<void>;
  isClosed: () => boolean;
  next(count: number): Promise<void>;
  pause(): void;
  destroy(): void;
}

let store: StandInStore;
let feed: LiveFeed;
let server: http.Server;
let base: string;
const streams: Stream[] = [];
/** The server side of the streams opened, in order. */
let responses: http.ServerResponse[] = [];
/** A real store a test opened (closed after it). */
let real: RecordStore | undefined;

/** Serves `feed`; a request's `x-bots` header (comma-separated, maybe empty) scopes its stream to those bots. */
async function serve(): Promise<void> {
  responses = [];
  server = http.createServer((req, res) => {
    responses.push(res);
    const bots = req.headers['x-bots'];
    feed.open(req, res, typeof bots === 'string' ? new Set(bots.split(',').filter(Boolean)) : null);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function begin(options: Partial<LiveFeedOptions> = {}): Promise<void> {
  store = new StandInStore();
  feed = new LiveFeed(store as unknown as RecordStore, { heartbeatMs: 60_000, maxStreams: 4, ...options });
  await serve();
}

afterEach(async () => {
  for (const stream of streams.splice(0)) stream.destroy();
  feed.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await real?.close();
  real = undefined;
});

function follow(method = 'GET', headers: Record<string, string> = {}): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/api/events`, { method, headers }, (res) => {
      let raw = '';
      let waiting: { count: number; resolve: () => void } | undefined;
      let closed = false;
      const events: Stream['events'] = [];
      const stream: Stream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        raw: () => raw,
        get body() {
          return JSON.parse(raw);
        },
        closed: new Promise<void>((done) => res.on('close', () => {
          closed = true;
          done();
        })),
        isClosed: () => closed,
        next: (count) => (events.length >= count ? Promise.resolve() : new Promise((done) => (waiting = { count, resolve: done }))),
        pause: () => res.socket.pause(),
        destroy: () => req.destroy(),
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        events.length = 0;
        for (const block of raw.split('\n\n').slice(0, -1)) {
          const lines = block.split('\n');
          const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
          const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
          if (event && data) events.push({ event, data: JSON.parse(data) });
        }
        if (waiting && events.length >= waiting.count) waiting.resolve();
      });
      res.on('error', () => undefined);
      streams.push(stream);
      resolve(stream);
    });
    req.on('error', reject);
    req.end();
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `check()` holds, looking every millisecond (expect.poll looks every 50 ms). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 5_000 && !check(); i++) await pause(1);
  expect(check()).toBe(true);
}

/** A record of `bot`, as the store takes it. */
const recordOf = (bot: string) => ({ platform: 'universal', platformKind: 'universal', v: '10.1.1-rest', type: 'incoming', bot, body: { text: 'hi', userId: 'u' } }) as const;

/**
 * A real store (SQLite in memory) as the feed sees it: its changes are the test's (`trigger()`, the
 * store's own are not passed on), its reads are counted (`db`: each query the read side makes
 * through it; `lastSeq`), and `hold()` keeps `lastSeq` waiting until released.
 */
async function probedStore(): Promise<{ store: RecordStore; add: (bot: string) => Promise<unknown>; trigger: () => void; counts: { db: number; lastSeq: number }; hold: () => () => void }> {
  const { store: opened } = await openStore({ database: false, log: () => undefined });
  real = opened;
  const counts = { db: 0, lastSeq: 0 };
  let listener = () => undefined as void;
  let gate: Promise<void> | undefined;
  const store = new Proxy(opened, {
    get(target, property) {
      if (property === 'db') counts.db++;
      if (property === 'watch') {
        return (heard: () => void) => {
          listener = heard;
          return () => (listener = () => undefined);
        };
      }
      if (property === 'lastSeq') {
        return async () => {
          counts.lastSeq++;
          await gate;
          return target.lastSeq();
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    store,
    add: (bot) => opened.append(recordOf(bot)),
    trigger: () => listener(),
    counts,
    hold: () => {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

describe('the live feed', () => {
  it('opens a stream with its headers, a retry hint and where the store stands', async () => {
    await begin();
    store.changed(3, 2);
    const stream = await follow();
    expect(stream.status).toBe(200);
    expect(stream.headers).toMatchObject({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    await stream.next(1);
    expect(stream.raw()).toBe('retry: 2000\nevent: records\ndata: {"lastSeq":3,"records":2}\n\n');
    expect(feed.size).toBe(1);
  });

  it('sends one event for a burst of changes, carrying the latest', async () => {
    await begin();
    const stream = await follow();
    await stream.next(1);
    for (let seq = 1; seq <= 20; seq++) store.changed(seq);
    await stream.next(2);
    expect(stream.events[1].data).toEqual({ lastSeq: 20, records: 20 });
    await pause(300);
    expect(stream.events).toHaveLength(2);
  });

  it('sends each stream the same events', async () => {
    await begin();
    const [a, b] = [await follow(), await follow()];
    await Promise.all([a.next(1), b.next(1)]);
    store.changed(1);
    await Promise.all([a.next(2), b.next(2)]);
    expect(a.events).toEqual(b.events);
  });

  it('sends a change that comes while the state is being read in one more event after it', async () => {
    await begin();
    const stream = await follow();
    await stream.next(1);
    const release = store.hold();
    store.changed(1);
    await expect.poll(() => store.reads).toBe(2);
    store.changed(2);
    release();
    await stream.next(3);
    expect(stream.events.map((e) => e.data.lastSeq)).toEqual([0, 1, 2]);
    await pause(200);
    expect(stream.events).toHaveLength(3);
  });

  it('waits coalesceMs (default 50 ms) after a change before sending it', async () => {
    await begin();
    const stream = await follow();
    await stream.next(1);
    let started = performance.now();
    store.changed(1);
    await stream.next(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    stream.destroy();
    feed.close();
    await begin({ coalesceMs: 400 });
    const slower = await follow();
    await slower.next(1);
    started = performance.now();
    store.changed(1);
    await slower.next(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(380);
  });

  it('sends nothing when the state cannot be read, and the next change brings it', async () => {
    await begin();
    store.failing = true;
    const stream = await follow();
    store.changed(1);
    await expect.poll(() => store.reads).toBe(2);
    await pause(100);
    expect(stream.events).toEqual([]);
    expect(stream.isClosed()).toBe(false);
    store.failing = false;
    store.changed(2);
    await stream.next(1);
    expect(stream.events[0].data).toEqual({ lastSeq: 2, records: 2 });
  });

  it('reads nothing from the store while no stream is open', async () => {
    await begin();
    store.changed(1);
    await pause(150);
    expect(store.reads).toBe(0);
    const stream = await follow();
    await stream.next(1);
    expect(store.reads).toBe(1);
    stream.destroy();
    await expect.poll(() => feed.size).toBe(0);
    store.changed(2);
    await pause(150);
    expect(store.reads).toBe(1);
  });

  it('reads the store once per burst of changes, and again only for a change made while it was reading', async () => {
    await begin();
    const stream = await follow();
    await stream.next(1);
    for (let seq = 1; seq <= 20; seq++) store.changed(seq);
    await stream.next(2);
    await pause(200);
    expect(store.reads).toBe(2);
    for (let seq = 21; seq <= 40; seq++) store.changed(seq);
    await stream.next(3);
    expect(stream.events[2].data).toEqual({ lastSeq: 40, records: 40 });
    await pause(200);
    expect(store.reads).toBe(3);
    const release = store.hold();
    store.changed(41);
    await expect.poll(() => store.reads).toBe(4);
    store.changed(42);
    store.changed(43);
    release();
    await stream.next(5);
    await pause(200);
    expect(store.reads).toBe(5);
    expect(stream.events.map((e) => e.data.lastSeq)).toEqual([0, 20, 40, 41, 43]);
  });

  it('sends nothing when a change leaves the state as the stream last saw it', async () => {
    await begin();
    const stream = await follow();
    await stream.next(1);
    store.changed(0, 0);
    await expect.poll(() => store.reads).toBe(2);
    await pause(100);
    expect(stream.events).toHaveLength(1);
    store.changed(1);
    await stream.next(2);
    expect(stream.events[1].data).toEqual({ lastSeq: 1, records: 1 });
  });

  it('does not shorten the wait for a change by one made while no stream was open', async () => {
    await begin({ coalesceMs: 600 });
    store.changed(1);
    await pause(400);
    const stream = await follow();
    await stream.next(1);
    const changed = performance.now();
    store.changed(2);
    await stream.next(2);
    expect(performance.now() - changed).toBeGreaterThanOrEqual(590);
    expect(stream.events[1].data).toEqual({ lastSeq: 2, records: 2 });
  });

  it('writes nothing to a stream ended by close() before its first state was read', async () => {
    await begin();
    const release = store.hold();
    const stream = await follow();
    await expect.poll(() => store.reads).toBe(1);
    feed.close();
    await stream.closed;
    release();
    await pause(100);
    expect(stream.raw()).toBe('retry: 2000\n');
  });

  it('answers HEAD with the stream\'s headers and no body, and keeps nothing open', async () => {
    await begin();
    const head = await follow('HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    await head.closed;
    expect(head.raw()).toBe('');
    expect(feed.size).toBe(0);
  });
});

describe('streams scoped to some bots (a real store)', () => {
  it('tells each stream only of its bots, reading once per scope (whatever the order of its bots), and only when its state changed', async () => {
    const probe = await probedStore();
    feed = new LiveFeed(probe.store, { heartbeatMs: 60_000, maxStreams: 8 });
    await serve();
    await probe.add('zz');
    const both = await follow('GET', { 'x-bots': 'b1,b2' });
    const again = await follow('GET', { 'x-bots': 'b2,b1' });
    const joined = await follow('GET', { 'x-bots': 'b1b2' });
    const all = await follow();
    const none = await follow('GET', { 'x-bots': '' });
    await Promise.all([both, again, joined, all, none].map((stream) => stream.next(1)));
    for (const stream of [both, again, joined, none]) expect(stream.events[0].data).toEqual({ lastSeq: 0, records: 0 });
    expect(all.events[0].data).toEqual({ lastSeq: 1, records: 1 });

    for (const bot of ['b1', 'b2', 'b2', 'b1b2']) await probe.add(bot);
    probe.counts.db = 0;
    probe.counts.lastSeq = 0;
    probe.trigger();
    await Promise.all([both, again, joined, all].map((stream) => stream.next(2)));
    expect(both.events[1].data).toEqual({ lastSeq: 4, records: 3 });
    expect(again.events[1].data).toEqual({ lastSeq: 4, records: 3 });
    expect(joined.events[1].data).toEqual({ lastSeq: 5, records: 1 });
    expect(all.events[1].data).toEqual({ lastSeq: 5, records: 5 });
    // Two queries for each scope of bots ({b1,b2} once, {b1b2}), none for no bot, lastSeq for every bot.
    expect(probe.counts).toEqual({ db: 4, lastSeq: 1 });
    await pause(100);
    expect(none.events).toHaveLength(1);

    probe.trigger();
    await expect.poll(() => probe.counts.lastSeq).toBe(2);
    await pause(100);
    expect([both, again, joined, all, none].map((stream) => stream.events.length)).toEqual([2, 2, 2, 2, 1]);
  });

  it('leaves a stream opened while the state was being read to the next change', async () => {
    const probe = await probedStore();
    feed = new LiveFeed(probe.store, { heartbeatMs: 60_000, maxStreams: 8 });
    await serve();
    const all = await follow();
    await all.next(1);
    await probe.add('b1');
    const release = probe.hold();
    probe.trigger();
    await expect.poll(() => probe.counts.lastSeq).toBe(2);
    const late = await follow('GET', { 'x-bots': 'b1' });
    await late.next(1);
    expect(late.events[0].data).toEqual({ lastSeq: 1, records: 1 });
    release();
    await all.next(2);
    expect(all.events[1].data).toEqual({ lastSeq: 1, records: 1 });
    probe.trigger();
    await expect.poll(() => probe.counts.lastSeq).toBe(3);
    await pause(100);
    expect(late.events).toHaveLength(1);
    expect(all.events).toHaveLength(2);
    await probe.add('b1');
    probe.trigger();
    await late.next(2);
    expect(late.events[1].data).toEqual({ lastSeq: 2, records: 2 });
  });
});

describe('keep-alive comments', () => {
  it('writes a comment every heartbeatMs to each open stream', async () => {
    await begin({ heartbeatMs: 50 });
    const stream = await follow();
    await expect.poll(() => stream.raw().split(': keep-alive\n\n').length - 1).toBeGreaterThanOrEqual(2);
  });

  it('writes one comment per heartbeatMs to each stream, however many are open', async () => {
    await begin({ heartbeatMs: 100 });
    const started = performance.now();
    const first = await follow();
    for (let i = 0; i < 3; i++) await follow();
    await pause(600);
    const comments = first.raw().split(': keep-alive\n\n').length - 1;
    expect(comments).toBeGreaterThanOrEqual(1);
    expect(comments).toBeLessThanOrEqual(Math.floor((performance.now() - started) / 100) + 1);
  });

  it('goes on writing them to the streams still open when another closes', async () => {
    await begin({ heartbeatMs: 50 });
    const [gone, staying] = [await follow(), await follow()];
    await Promise.all([gone.next(1), staying.next(1)]);
    gone.destroy();
    await expect.poll(() => feed.size).toBe(1);
    const before = staying.raw().length;
    await expect.poll(() => staying.raw().slice(before)).toContain(': keep-alive');
  });

  it('writes them to a stream opened after every other closed', async () => {
    await begin({ heartbeatMs: 50 });
    const first = await follow();
    await first.next(1);
    first.destroy();
    await expect.poll(() => feed.size).toBe(0);
    const second = await follow();
    await expect.poll(() => second.raw()).toContain(': keep-alive');
  });
  it('stops them when the last stream closes: a stream opened later has its first comment heartbeatMs after it opened', async () => {
    await begin({ heartbeatMs: 300 });
    const first = await follow();
    await first.next(1);
    first.destroy();
    await expect.poll(() => feed.size).toBe(0);
    await pause(200);
    const opened = performance.now();
    const second = await follow();
    await expect.poll(() => second.raw()).toContain(': keep-alive');
    expect(performance.now() - opened).toBeGreaterThanOrEqual(295);
  });
});

describe('limits and closing', () => {
  it('refuses a stream beyond maxStreams with 503 and Retry-After, naming the cap', async () => {
    await begin({ maxStreams: 2 });
    await follow();
    await follow();
    const refused = await follow();
    await refused.closed;
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.body.error).toBe('Too many live streams are open (2); close a tab, or poll /api/summary instead.');
    expect(feed.size).toBe(2);
  });

  it('ends every stream on close(), stops listening to the store, and refuses new streams with 503', async () => {
    await begin();
    const stream = await follow();
    await stream.next(1);
    expect(store.watchers).toBe(1);
    feed.close();
    await stream.closed;
    expect(feed.size).toBe(0);
    expect(store.watchers).toBe(0);
    const refused = await follow();
    await refused.closed;
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.body.error).toBe('The endpoint is stopping.');
    feed.close();
  });

  it('sends nothing after close(), even for a change it was waiting to send', async () => {
    await begin({ coalesceMs: 100 });
    const stream = await follow();
    await stream.next(1);
    const release = store.hold();
    store.changed(1);
    await expect.poll(() => store.reads).toBe(2);
    feed.close();
    release();
    await stream.closed;
    expect(stream.events).toHaveLength(1);
  });

  it('drops a stream whose reader stops reading, once a large amount is waiting for it', async () => {
    await begin({ coalesceMs: 1 });
    // A reader that sends its request and never reads a byte of the answer.
    const socket = net.connect(Number(new URL(base).port), '127.0.0.1');
    socket.pause();
    socket.on('error', () => undefined);
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write('GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    try {
      await expect.poll(() => feed.size).toBe(1);
      // Each event is about 1 MB: the socket's buffers are soon full, and what waits grows.
      const big = 'x'.repeat(1024 * 1024);
      for (let seq = 1; seq <= 200 && feed.size > 0; seq++) {
        store.changed(`${seq}${big}`);
        await pause(10);
      }
      expect(feed.size).toBe(0);
      socket.resume();
      await closed;
    } finally {
      socket.destroy();
    }
  });

  it('drops a stream at a keep-alive comment when a large amount is waiting for its reader', async () => {
    await begin({ heartbeatMs: 50, coalesceMs: 1 });
    const socket = net.connect(Number(new URL(base).port), '127.0.0.1');
    socket.pause();
    socket.on('error', () => undefined);
    socket.write('GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    try {
      await expect.poll(() => feed.size).toBe(1);
      // One event of 32 MB, written at once (nothing waits yet); then only comments come.
      store.changed(`1${'x'.repeat(32 * 1024 * 1024)}`);
      await expect.poll(() => responses[0].writableLength).toBeGreaterThan(64 * 1024);
      await expect.poll(() => feed.size).toBe(0);
    } finally {
      socket.destroy();
    }
  });

  it('keeps a stream whose reader is behind while up to 64 KiB waits for it', async () => {
    await begin({ coalesceMs: 1 });
    const socket = net.connect(Number(new URL(base).port), '127.0.0.1');
    socket.pause();
    socket.on('error', () => undefined);
    socket.write('GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    try {
      await expect.poll(() => feed.size).toBe(1);
      const res = responses[0];
      const chunk = 'x'.repeat(24 * 1024);
      let most = 0;
      for (let seq = 1; seq <= 5_000 && feed.size > 0; seq++) {
        const reads = store.reads;
        store.changed(`${seq}${chunk}`);
        await until(() => store.reads > reads);
        await pause(2);
        if (feed.size > 0) most = Math.max(most, res.writableLength);
      }
      expect(feed.size).toBe(0);
      // Kept while what waited was below 64 KiB: the last events written found over 40 KiB waiting.
      expect(most).toBeGreaterThan(32 * 1024);
    } finally {
      socket.destroy();
    }
  });
});
