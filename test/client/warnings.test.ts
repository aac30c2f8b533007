/**
 * A client that explains itself: every warning names the endpoint (never the key) and says what to
 * do, and a long run of identical failures is warned about once, then counted.
 */
import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TrackingClient, TrackingDeliveryError, type Logger, type TrackingClientOptions } from '../../src/index.js';
import { SafeLogger } from '../../src/client/logger.js';
import { Reporter } from '../../src/client/reporter.js';
import { startSink, type Sink } from '../helpers/sink.js';
import { closedPort } from '../helpers/ports.js';

const KEY = 'warn-key-0b7d44e1';
let sink: Sink;
beforeEach(async () => {
  sink = await startSink();
});
afterEach(async () => {
  await sink.close();
  vi.useRealTimers();
});

interface Line {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

function capturingLogger(lines: Line[]): Logger {
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push({ level, message, fields });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function client(options: TrackingClientOptions): TrackingClient {
  return new TrackingClient({ apiKey: KEY, baseUrl: sink.url, initialBackoffMs: 5, maxBackoffMs: 10, logger: false, ...options });
}

async function failure(promise: Promise<unknown>): Promise<TrackingDeliveryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TrackingDeliveryError);
  expect(String((error as Error).message)).not.toContain(KEY);
  return error as TrackingDeliveryError;
}


describe('what a warning says', () => {
  it('close() at its deadline: names the record, the endpoint and how far it got, and says what to do', async () => {
    sink.behave(() => ({ delayMs: 3_000 }));
    const c = client({});
    const first = failure(c.sms.logIncoming({ text: 'slow', userId: 'u' }));
    const second = failure(c.sms.logIncoming({ text: 'behind it', userId: 'u' }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await c.close(200);
    expect((await first).message).toBe(`close() reached its deadline (200 ms) before the sms incoming record could be delivered to ${sink.url}/track (1 attempt, none answered). Raise closeTimeoutMs to give records more time, or set persistDir to keep such records for the next start.`);
    expect((await second).message).toContain(`to ${sink.url}/track (not sent yet: records ahead of it were still under way)`);
  });

  it('a full queue: names the endpoint that is not keeping up, and says what to do', async () => {
    sink.behave(() => ({ delayMs: 200 }));
    const c = client({ maxQueueSize: 1 });
    const kept = c.sms.logIncoming({ text: 'one', userId: 'u' });
    const error = await failure(c.sms.logIncoming({ text: 'two', userId: 'u' }));
    expect(error.reason).toBe('queue-full');
    expect(error.message).toContain(`The tracking queue is full (maxQueueSize 1): ${sink.url}/track is not taking records as fast as they are logged`);
    expect(error.message).toMatch(/raise maxQueueSize, or set persistDir/);
    await kept;
    await c.close();
  });

  it('a full queue on the middleware path (a deferred record): the same endpoint and the same advice as a log call', async () => {
    sink.behave(() => ({ delayMs: 200 }));
    const lines: Line[] = [];
    const c = client({ maxQueueSize: 1, logger: capturingLogger(lines) });
    const kept = c.sms.logIncoming({ text: 'one', userId: 'u' });
    c.defer(() => undefined);
    const direct = await failure(c.sms.logIncoming({ text: 'two', userId: 'u' }));
    const deferred = lines.find((l) => l.fields.record === 'deferred');
    expect(deferred?.message).toBe(
      `The tracking queue is full (maxQueueSize 1): ${sink.url}/track is not taking records as fast as they are logged; a record was dropped. Check that the endpoint is up and reachable (TRACKING_BASE_URL), or raise maxQueueSize.`,
    );
    // One source for the words: the log call's warning says the same, and adds persistDir, which keeps what it refuses.
    expect(direct.message).toBe(
      `The tracking queue is full (maxQueueSize 1): ${sink.url}/track is not taking records as fast as they are logged; the sms incoming record was dropped. Check that the endpoint is up and reachable (TRACKING_BASE_URL), raise maxQueueSize, or set persistDir to keep such records.`,
    );
    await kept;
    await c.close();
  });

  it('429: says the client slows down and what to do if it keeps happening', async () => {
    sink.behave(() => ({ status: 429 }));
    const c = client({ maxAttempts: 2 });
    const error = await failure(c.sms.logIncoming({ text: 'hi', userId: 'u' }));
    expect(error.message).toContain(`${sink.url}/track is rate-limiting this bot (HTTP 429)`);
    expect(error.message).toContain("ask the endpoint's operator for a higher limit, or lower maxConcurrency");
    await c.close();
  });

  it('407: says a proxy asks for credentials and how to give them', async () => {
    sink.behave(() => ({ status: 407 }));
    const c = client({});
    const error = await failure(c.sms.logIncoming({ text: 'hi', userId: 'u' }));
    expect(error.reason).toBe('rejected');
    expect(error.message).toContain(`A proxy between this process and ${sink.url}/track asks for credentials (HTTP 407)`);
    expect(error.message).toContain('createAxiosTransport');
    await c.close();
  });

  it('HTTP_PROXY set, default transport: a network failure says node:http does not use the proxy and what to pass instead', async () => {
    const base = `http://127.0.0.1:${await closedPort()}`;
    const withProxy = client({ baseUrl: base, maxAttempts: 1, env: { HTTP_PROXY: 'http://proxy.example:3128' } });
    const error = await failure(withProxy.sms.logIncoming({ text: 'hi', userId: 'u' }));
    expect(error.message).toContain('HTTP_PROXY is set, but the default transport (node:http) does not use it and connects to 127.0.0.1 directly');
    expect(error.message).toContain('createAxiosTransport() does (axios reads HTTP_PROXY, HTTPS_PROXY and NO_PROXY)');
    await withProxy.close();
    // Not said when the host bypasses the proxy, or for the other scheme's variable.
    for (const env of [{ HTTP_PROXY: 'http://proxy.example:3128', NO_PROXY: 'localhost,127.0.0.1' }, { HTTPS_PROXY: 'http://proxy.example:3128' }]) {
      const other = client({ baseUrl: base, maxAttempts: 1, env });
      expect((await failure(other.sms.logIncoming({ text: 'hi', userId: 'u' }))).message).not.toContain('_PROXY');
      await other.close();
    }
  });
});

describe('a run of identical failures', () => {
  function reporter(lines: Line[]): Reporter {
    return new Reporter(undefined, new SafeLogger(capturingLogger(lines), [KEY], false));
  }
  const outage = () => new TrackingDeliveryError('retries-exhausted', `Gave up the sms incoming record after 5 attempts; the last failed with HTTP 503. ${sink.url}/track is failing (HTTP 503).`, { status: 503 });

  it('is warned about once in full, then counted: a long outage gets a "still failing" line at most every 5 minutes, never the same warning again', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(0);
    const lines: Line[] = [];
    const r = reporter(lines);
    // One failure every 10 s for an hour.
    for (let t = 0; t <= 3_600_000; t += 10_000) {
      vi.setSystemTime(t);
      r.report(outage(), 'sms incoming');
    }
    r.flush();
    const full = lines.filter((l) => l.message.startsWith('Gave up'));
    expect(full).toHaveLength(1);
    const summaries = lines.filter((l) => l.message.startsWith('still failing: '));
    expect(summaries.length).toBeGreaterThanOrEqual(10);
    expect(summaries.length).toBeLessThanOrEqual(12);
    for (const line of summaries) expect(line.message).toMatch(/^still failing: \d+ more records refused or given up \(retries-exhausted, HTTP 503\) since the last report/);
    // Every failure is accounted for: the one warned in full, and the ones counted.
    const counted = lines.filter((l) => l !== full[0]).reduce((sum, l) => sum + Number(l.fields.count), 0);
    expect(1 + counted).toBe(361);
  });

  it('ends when no such failure has come for 5 minutes: the next one is warned in full again, after a count of the last run', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(0);
    const lines: Line[] = [];
    const r = reporter(lines);
    for (let i = 0; i < 3; i++) r.report(outage(), 'sms incoming');
    vi.setSystemTime(6 * 60_000);
    r.report(outage(), 'sms incoming');
    expect(lines.map((l) => l.message.slice(0, 40))).toEqual([outage().message.slice(0, 40), '2 more records were refused or given up ', outage().message.slice(0, 40)]);
  });

  it('a new cause without an HTTP status is a new run: a refused connection, then a timeout, are each warned in full, and the timeouts after are counted', async () => {
    const port = await closedPort();
    const lines: Line[] = [];
    const c = client({ baseUrl: `http://127.0.0.1:${port}`, maxAttempts: 1, requestTimeoutMs: 150, logger: capturingLogger(lines) });
    await c.sms.logIncoming({ text: 'refused', userId: 'u' }).catch(() => undefined);
    // The endpoint comes up at that address but never answers.
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
    try {
      for (let i = 0; i < 3; i++) await c.sms.logIncoming({ text: `timed out ${i}`, userId: 'u' }).catch(() => undefined);
      await c.close(500);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
    // The count by kind (tally.ts) comes at close, after the run's summary.
    expect(lines.at(-1)?.message).toBe('tracking: 4 records given up: 4 incoming');
    const warnings = lines.filter((l) => l.level === 'warn' && !l.message.startsWith('tracking: '));
    expect(warnings.map((l) => l.fields.code)).toEqual(['ECONNREFUSED', 'ETIMEDOUT', undefined]);
    expect(warnings[0].message).toContain(`Nothing is listening at http://127.0.0.1:${port}/track`);
    expect(warnings[1].message).toContain(`http://127.0.0.1:${port}/track did not answer in time (requestTimeoutMs)`);
    expect(warnings[2].message).toBe('2 more records were refused or given up (retries-exhausted, ETIMEDOUT) since the last report');
  });

  it('401s: the key problem is an error said once, and the records after it are counted, not silently dropped from the report', async () => {
    sink.behave(() => ({ status: 401 }));
    const lines: Line[] = [];
    const c = client({ logger: capturingLogger(lines) });
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => c.sms.logIncoming({ text: `r${i}`, userId: `u${i}` })));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    await c.close();
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors.map((l) => l.message)).toEqual([
      `The tracking endpoint refused the API key (HTTP 401). Check TRACKING_API_KEY (or the apiKey option): ${sink.url}/track does not accept it.`,
      '4 more records were refused or given up (unauthorized, HTTP 401) since the last report',
    ]);
  });
});
