import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrackingClient, type TrackingClientOptions } from '../../src/index.js';
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
    expect(fs.readFileSync(path.join(dir, files()[0]), 'utf8').trim().split('\n')).toHaveLength(2);
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

