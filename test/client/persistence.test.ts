import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrackingClient, type TrackingClientOptions } from '../../src/index.js';
import { UndeliveredStore } from '../../src/client/persistence.js';
import { startScript } from '../helpers/run-script.js';
import { startSink, type Sink } from '../helpers/sink.js';

const KEY = 'persist-key-5c1d';
let sink: Sink;
let dir: string;

beforeEach(async () => {
  sink = await startSink();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bca-persist-'));
});

afterEach(async () => {
  await sink.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function make(options: TrackingClientOptions = {}): TrackingClient {
  return new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger: false, persistDir: dir, initialBackoffMs: 5, maxBackoffMs: 10, ...options });
}

function files(): string[] {
  return fs.readdirSync(dir);
}

async function waitFor(check: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the middleware path at a full queue', () => {
  it('saves the records of deferred tasks past maxQueueSize instead of dropping them; only the tasks waiting to run are bounded', async () => {
    sink.behave(() => ({ delayMs: 300 }));
    const c = make({ maxQueueSize: 3 });
    const turn = (i: number) => c.defer(() => c.trackAndForget('sms', 'incoming', { text: `turn ${i}`, userId: `u${i}` }));
    // Turns keep coming while the endpoint is slow: three at a time, each three run before the next.
    for (let round = 0; round < 3; round++) {
      for (let i = round * 3; i < round * 3 + 3; i++) turn(i);
      await new Promise((r) => setTimeout(r, 5));
    }
    // Four tasks waiting at once: past the three it takes, one is dropped (tasks hold the turns' activities).
    for (let i = 9; i < 13; i++) turn(i);
    await c.flush();
    const onDisk = files().flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean)).map((l) => JSON.parse(l).body.text as string);
    expect(c.stats()).toMatchObject({ dropped: 1, persisted: 9 });
    await c.close();
    const sent = sink.requests.map((r) => String(r.body.text));
    expect([...sent, ...onDisk].sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)))).toEqual(Array.from({ length: 12 }, (_, i) => `turn ${i}`));
  });
});

describe('persistDir', () => {
  it('saves what close() could not deliver in 0600 files without the API key, and the next client sends it', async () => {
    sink.behave(() => ({ status: 503 }));
    const first = make({ maxAttempts: 1_000 });
    const pending = ['a', 'b', 'c'].map((text) => first.sms.logIncoming({ text, userId: 'u' }));
    const closed = await first.close(200);
    expect(closed.abandoned).toBe(3);
    for (const p of pending) await expect(p).rejects.toMatchObject({ reason: 'persisted' });
    expect(closed.stats.persisted).toBe(3);
    expect(files()).toHaveLength(1);
    const file = path.join(dir, files()[0]);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).not.toContain(KEY);

    // The next client sends to an endpoint of its own, so a request of the first one still on its
    // way when it closed cannot be mistaken for a re-sent record.
    const next = await startSink();
    const second = make({ baseUrl: next.url });
    await waitFor(() => next.requests.length >= 3);
    await second.flush();
    expect(next.requests.map((r) => [r.query.apiKey, r.query.type, r.body.text])).toEqual([
      [KEY, 'incoming', 'a'],
      [KEY, 'incoming', 'b'],
      [KEY, 'incoming', 'c'],
    ]);
    await waitFor(() => files().length === 0);
    await second.close();
    await next.close();
  });

  it('saves records that overflow the queue instead of dropping them', async () => {
    sink.behave(() => ({ delayMs: 30 }));
    const c = make({ maxQueueSize: 2 });
    const results = await Promise.allSettled([1, 2, 3, 4].map((n) => c.sms.logIncoming({ text: `${n}`, userId: 'u' })));
    expect(results.map((r) => (r.status === 'fulfilled' ? 'delivered' : (r.reason as { reason: string }).reason))).toEqual(['delivered', 'delivered', 'persisted', 'persisted']);
    expect(c.stats()).toMatchObject({ dropped: 0, persisted: 2 });
    await c.close();
    expect(fs.readFileSync(path.join(dir, files()[0]), 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('saves records whose retries ran out during an outage', async () => {
    sink.behave(() => ({ reset: true }));
    const c = make({ maxAttempts: 2 });
    await expect(c.sms.logIncoming({ text: 'outage', userId: 'u' })).rejects.toMatchObject({ reason: 'persisted' });
    await c.close();
    expect(files()).toHaveLength(1);
  });

  it('never lets the directory grow past maxPersistBytes: the rest is given up and reported', async () => {
    sink.behave(() => ({ status: 503 }));
    const c = make({ maxAttempts: 1, maxPersistBytes: 200 });
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => c.sms.logIncoming({ text: `record number ${i}`, userId: `u${i}` })));
    const reasons = results.map((r) => (r as PromiseRejectedResult).reason.reason);
    expect(reasons.filter((r) => r === 'persisted').length).toBeGreaterThan(0);
    expect(reasons.filter((r) => r === 'retries-exhausted').length).toBeGreaterThan(0);
    await c.close();
    const total = files().reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0);
    expect(total).toBeLessThanOrEqual(200);
  });
});

describe('closeOnSignals', () => {
  it('on SIGTERM mid-traffic, delivers every queued record before the process exits', async () => {
    sink.behave(() => ({ delayMs: 5 }));
    const run = startScript('test/client/fixtures/signal-bot.ts', { env: { TRACKING_API_KEY: KEY, SINK_URL: sink.url } });
    await waitFor(() => sink.requests.length >= 50, 15_000);
    // Signal it while records are still queued; the child prints how many it logged.
    process.kill(run.pid, 'SIGTERM');
    const result = await run.result;
    expect(result.signal === 'SIGTERM' || result.code === 0 || result.code === 143).toBe(true);
    const logged = Math.max(...[...result.stdout.matchAll(/logged (\d+)/g)].map((m) => Number(m[1])));
    const markers = new Set(sink.requests.map((r) => r.body.text));
    expect(markers.size).toBe(logged);
    expect(result.stderr).toMatch(/SIGTERM: tracking closed: \d+ delivered, 0 given up, 0 dropped/);
  }, 30_000);

  it('survives a kill mid-outage: what could not be sent is saved, and a restarted process sends it all', async () => {
    sink.behave(() => ({ status: 503 }));
    const env = { TRACKING_API_KEY: KEY, SINK_URL: sink.url, PERSIST_DIR: dir, CLOSE_TIMEOUT_MS: '300' };
    const run = startScript('test/client/fixtures/signal-bot.ts', { env });
    await waitFor(() => sink.requests.length >= 20, 15_000);
    process.kill(run.pid, 'SIGTERM');
    const first = await run.result;
    const logged = Math.max(...[...first.stdout.matchAll(/logged (\d+)/g)].map((m) => Number(m[1])));
    expect(files().length).toBeGreaterThan(0);

    sink.behave(() => undefined);
    const second = startScript('test/client/fixtures/signal-bot.ts', { env });
    const expected = new Set(Array.from({ length: logged }, (_, i) => `marker-${i + 1}`));
    await waitFor(() => {
      const accepted = new Set(sink.requests.filter((r) => r.body).map((r) => r.body.text));
      return [...expected].every((m) => accepted.has(m));
    }, 15_000);
    process.kill(second.pid, 'SIGTERM');
    await second.result;
  }, 40_000);
});

describe('persistDir under attack', () => {
  const line = (record: Record<string, unknown>) => `${JSON.stringify(record)}\n`;
  const good = (text: string) => ({ platform: 'sms', type: 'incoming', body: { text, userId: 'u' } });

  it('skips unreadable, foreign and half-written lines, reports them by reason, and sends the rest: it never stops the bot', async () => {
    fs.writeFileSync(path.join(dir, 'records-1-old.ndjson'), [
      line(good('first')),
      line({ platform: 'carrier-pigeon', type: 'incoming', body: {} }),
      line({ platform: 'sms', body: { text: 'no type', userId: 'u' } }),
      line({ platform: 'sms', type: 'incoming' }),
      '[1,2,3]\n',
      '{"platform":"sms","type":"incoming","body":{"text":"torn',
      `\n${line(good('last'))}`,
    ].join(''));
    const warnings: string[] = [];
    const log = (level: string) => (_o: unknown, msg?: string) => void (level === 'warn' && warnings.push(msg ?? ''));
    const c = make({ logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') } });
    await waitFor(() => sink.requests.length >= 2);
    await c.flush();
    expect(sink.requests.map((r) => r.body.text)).toEqual(['first', 'last']);
    expect(warnings).toEqual(['skipped 5 saved lines in persistDir that cannot be re-sent (1 unknown platform, 1 unknown type, 1 no body, 2 unreadable); the other 2 are re-sent']);
    await waitFor(() => files().length === 0);
    await c.close();
    // The next start finds nothing claimed or left over: no crash loop.
    expect(files()).toEqual([]);
  });

  it('a write torn by a full disk or a crash never swallows the next record', () => {
    const store = new UndeliveredStore(dir, 1_000_000);
    // What a torn append leaves in the store's own file: half a line, no newline.
    const file = (store as unknown as { file: string }).file;
    fs.writeFileSync(file, '{"platform":"sms","type":"incoming","body":{"text":"to');
    expect(store.save([{ platform: 'sms', type: 'incoming', at: [1, 1], key: 'k', body: JSON.stringify({ text: 'after the tear', userId: 'u' }) }])).toBe(1);
    const next = new UndeliveredStore(dir, 1_000_000);
    const claimed = next.claim(() => ({ userId: 'u' }));
    expect(claimed.records.map((r) => JSON.parse(r.body).text)).toEqual(['after the tear']);
    expect(claimed.skipped).toEqual({ unreadable: 1 });
    claimed.release([]);
  });

  it('keeps what was saved through any number of restarts during an outage, within maxPersistBytes counted once', async () => {
    sink.behave(() => ({ status: 503 }));
    const first = make({ maxAttempts: 1_000 });
    const logged = Array.from({ length: 200 }, (_, i) => first.sms.logIncoming({ text: `r${i}`, userId: `u${i % 10}` }));
    await first.close(100);
    await Promise.allSettled(logged);
    const savedBytes = files().reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
    // The bound fits the backlog once, not twice: a restart that re-sends it and saves it again must not count it twice.
    const maxPersistBytes = Math.ceil(savedBytes * 1.5);
    for (let restart = 0; restart < 4; restart++) {
      const c = make({ maxAttempts: 1_000, maxPersistBytes });
      await new Promise((r) => setTimeout(r, 150));
      const { stats } = await c.close(100);
      expect(stats.failed).toBe(0); // nothing given up unsaved
    }
    sink.behave(() => undefined);
    const last = make({ maxPersistBytes });
    await waitFor(() => new Set(sink.requests.filter((r) => r.body.text).map((r) => r.body.text)).size >= 200, 15_000);
    await last.close();
    expect(new Set(sink.requests.map((r) => r.body.text)).size).toBe(200);
  }, 30_000);

  it('keeps each user\'s order across the spool: a user\'s saved records go before anything newer of theirs', async () => {
    sink.behave(() => ({ status: 503 }));
    const first = make({ maxAttempts: 1_000 });
    const old = [];
    for (let i = 0; i < 5; i++) for (let u = 0; u < 10; u++) old.push(first.sms.logIncoming({ text: `u${u}:${i}`, userId: `u${u}` }));
    await first.close(100);
    await Promise.allSettled(old);
    // The second client sends to an endpoint of its own: a request of the first one still on its
    // way when it closed cannot land among the second one's and be taken for a re-sent record.
    const next = await startSink(() => ({ delayMs: 2 }));
    // A small queue makes the replay take several rounds, while new records arrive at once.
    const second = make({ baseUrl: next.url, maxQueueSize: 20 });
    const fresh = Array.from({ length: 10 }, (_, u) => second.sms.logIncoming({ text: `u${u}:new`, userId: `u${u}` }));
    await Promise.all(fresh);
    await second.flush();
    await second.close();
    await next.close();
    const byUser = new Map<string, string[]>();
    for (const r of next.requests) {
      const list = byUser.get(r.body.userId) ?? [];
      list.push(r.body.text);
      byUser.set(r.body.userId, list);
    }
    for (let u = 0; u < 10; u++) expect(byUser.get(`u${u}`)).toEqual([0, 1, 2, 3, 4].map((i) => `u${u}:${i}`).concat(`u${u}:new`));
  });
});

describe('what a restarted client re-sends', () => {
  const line = (record: Record<string, unknown>) => `${JSON.stringify(record)}\n`;

  it('checks saved bodies as it checks new records: a foreign body (null, 5, an object that is no record) is skipped and reported, not sent with its key', async () => {
    fs.writeFileSync(path.join(dir, 'records-1-foreign.ndjson'), [
      line({ platform: 'sms', type: 'incoming', body: { text: 'good', userId: 'u' } }),
      line({ platform: 'sms', type: 'incoming', body: null }),
      line({ platform: 'sms', type: 'incoming', body: 5 }),
      line({ platform: 'sms', type: 'incoming', body: { evil: true } }),
      line({ platform: 'messenger', type: 'outgoing', body: { evil: true } }),
    ].join(''));
    const warnings: string[] = [];
    const log = (level: string) => (_o: unknown, msg?: string) => void (level === 'warn' && warnings.push(msg ?? ''));
    const c = make({ logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') } });
    await waitFor(() => files().every((f) => !f.includes('.claimed-')));
    await c.flush();
    await c.close();
    expect(sink.requests.map((r) => r.rawBody)).toEqual(['{"text":"good","userId":"u"}']);
    expect(warnings).toEqual(['skipped 4 saved lines in persistDir that cannot be re-sent (3 not a valid sms incoming record, 1 not a valid messenger outgoing record); the other 1 are re-sent']);
  });

  it('re-sends a file claimed by an earlier process that had this very PID (PID 1 again after a container restart)', async () => {
    const earlier = path.join(dir, `records-1-old.ndjson.claimed-${process.pid}-4f2a9c`);
    fs.writeFileSync(earlier, line({ platform: 'sms', type: 'incoming', at: [1, 1], body: { text: 'claimed by my PID before me', userId: 'u' } }));
    const c = make();
    await waitFor(() => sink.requests.length >= 1);
    await c.flush();
    await c.close();
    expect(sink.requests.map((r) => r.body.text)).toEqual(['claimed by my PID before me']);
    await waitFor(() => files().length === 0);
  });

  it("re-sends a claim of a live process that has not been touched for 10 minutes (its PID is someone else's now), and leaves a fresh one alone", async () => {
    const alive = process.ppid; // a live process that is not this one
    const stale = path.join(dir, `records-1-stale.ndjson.claimed-${alive}-aaaaaa`);
    const fresh = path.join(dir, `records-2-fresh.ndjson.claimed-${alive}-bbbbbb`);
    fs.writeFileSync(stale, line({ platform: 'sms', type: 'incoming', at: [1, 1], body: { text: 'stale claim', userId: 'u' } }));
    fs.writeFileSync(fresh, line({ platform: 'sms', type: 'incoming', at: [1, 2], body: { text: 'fresh claim', userId: 'u' } }));
    const hourAgo = new Date(Date.now() - 60 * 60_000);
    fs.utimesSync(stale, hourAgo, hourAgo);
    const c = make();
    await waitFor(() => sink.requests.length >= 1);
    await c.flush();
    await c.close();
    expect(sink.requests.map((r) => r.body.text)).toEqual(['stale claim']);
    expect(files()).toEqual([path.basename(fresh)]);
  });

  it("keeps each user's order when close() interrupts a replay: records held behind saved ones are saved after them, never sent ahead", async () => {
    const saved = [];
    for (let i = 0; i < 20; i++) for (let u = 0; u < 10; u++) saved.push(line({ platform: 'sms', type: 'incoming', at: [1, i * 10 + u + 1], body: { text: `u${u}:${i}`, userId: `u${u}` } }));
    fs.writeFileSync(path.join(dir, 'records-1-backlog.ndjson'), saved.join(''));
    // A slow endpoint and a small queue: the replay is far from done when close() comes.
    sink.behave(() => ({ delayMs: 40 }));
    const first = make({ maxQueueSize: 20 });
    const fresh = Array.from({ length: 10 }, (_, u) => first.sms.logIncoming({ text: `u${u}:new`, userId: `u${u}` }));
    await new Promise((resolve) => setTimeout(resolve, 150));
    await first.close(100);
    for (const result of await Promise.allSettled(fresh)) expect(result).toMatchObject({ status: 'rejected', reason: { reason: 'persisted' } });
    // Whatever the first sent is in; a request of its still on its way is cut off (and re-sent by the next).
    await sink.close();
    const firstRequests = [...sink.requests];
    const next = await startSink();
    const second = make({ baseUrl: next.url });
    await waitFor(() => files().every((f) => !f.includes('.claimed-')) && second.stats().queued === 0);
    await second.flush();
    await second.close();
    await next.close();
    sink = await startSink(); // for afterEach
    const byUser = new Map<string, string[]>();
    for (const r of [...firstRequests, ...next.requests]) {
      const list = byUser.get(r.body.userId) ?? [];
      if (!list.includes(r.body.text)) list.push(r.body.text); // first copies
      byUser.set(r.body.userId, list);
    }
    for (let u = 0; u < 10; u++) expect(byUser.get(`u${u}`)).toEqual([...Array.from({ length: 20 }, (_, i) => `u${u}:${i}`), `u${u}:new`]);
  }, 20_000);

  it('holds no more than maxPersistBytes on disk while a replay is under way: the files it claimed count until they are gone', async () => {
    const saved = Array.from({ length: 100 }, (_, i) => line({ platform: 'sms', type: 'incoming', at: [1, i + 1], key: `saved-key-${i}`, body: { text: `saved ${i}`, userId: `s${i % 5}` } }));
    fs.writeFileSync(path.join(dir, 'records-1-backlog.ndjson'), saved.join(''));
    const backlog = fs.statSync(path.join(dir, 'records-1-backlog.ndjson')).size;
    const maxPersistBytes = Math.ceil(backlog * 1.2);
    const size = () => files().reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0);
    sink.behave(() => ({ status: 503 }));
    const c = make({ maxAttempts: 1_000, maxQueueSize: 5, maxPersistBytes });
    // Far more new records than fit: the first 5 take the queue (and are retried), those past it are
    // saved while they fit, the rest dropped.
    const logged = Array.from({ length: 200 }, (_, i) => c.sms.logIncoming({ text: `new record number ${i}`, userId: `n${i % 5}` }));
    const results = await Promise.allSettled(logged.slice(5));
    expect(results.some((r) => r.status === 'rejected' && r.reason.reason === 'persisted')).toBe(true);
    expect(results.some((r) => r.status === 'rejected' && r.reason.reason === 'queue-full')).toBe(true);
    expect(size()).toBeLessThanOrEqual(maxPersistBytes);
    await c.close(100);
    expect(size()).toBeLessThanOrEqual(maxPersistBytes);
  });
});
