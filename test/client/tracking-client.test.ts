/**
 * What `TrackingClient` itself shows a user: `stats()` splits pending records into queued and in
 * flight, deferred tasks count against `maxQueueSize`, debug logging says what is queued and how
 * each attempt went (never the key), and a full queue refuses a burst with one error per kind of
 * record per second.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TrackingClient, TrackingDeliveryError, TrackingError, type Logger, type TrackingClientOptions } from '../../src/index.js';
import { startSink, type Sink } from '../helpers/sink.js';

const KEY = 'client-key-4f19';
let sink: Sink;
let clients: TrackingClient[];

interface Line {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

function capturingLogger(lines: Line[]): Logger {
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push({ level, message, fields });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function client(options: TrackingClientOptions = {}): TrackingClient {
  const c = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger: false, initialBackoffMs: 5, maxBackoffMs: 10, ...options });
  clients.push(c);
  return c;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeEach(async () => {
  sink = await startSink();
  clients = [];
});

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(clients.map((c) => c.close(500)));
  await sink.close();
});

describe('stats()', () => {
  it('counts records waiting for a slot as queued, those sent as in flight, and deferred tasks as queued', async () => {
    sink.behave(() => ({ delayMs: 600 }));
    const c = client({ maxConcurrency: 2 });
    for (let i = 0; i < 5; i++) void c.sms.logIncoming({ text: `m${i}`, userId: `u${i}` });
    c.defer(() => undefined);
    expect(c.stats()).toMatchObject({ queued: 6, inFlight: 0, logged: 5 });
    await sleep(80);
    expect(c.stats()).toMatchObject({ queued: 3, inFlight: 2, logged: 5, delivered: 0 });
    await c.flush();
    expect(c.stats()).toEqual({ queued: 0, inFlight: 0, logged: 5, delivered: 5, retried: 0, failed: 0, dropped: 0, persisted: 0 });
  });

  it('never counts a request still in flight after close() gave its record up as queued too', async () => {
    sink.behave(() => ({ delayMs: 400 }));
    const c = client();
    const pending = c.sms.logIncoming({ text: 'slow', userId: 'u' }).catch((e: unknown) => e);
    await sleep(50);
    const result = await c.close(50);
    expect(result.abandoned).toBe(1);
    expect((await pending) as TrackingDeliveryError).toMatchObject({ reason: 'close-deadline' });
    expect(result.stats).toMatchObject({ queued: 0, failed: 1, logged: 1 });
  });
});

describe('defer() at a full queue', () => {
  it('counts pending deferred tasks against maxQueueSize: past it, a task is dropped, counted and reported naming the endpoint and what to do', async () => {
    const errors: TrackingError[] = [];
    const c = client({ maxQueueSize: 3, onError: (e) => errors.push(e) });
    const ran: number[] = [];
    for (let i = 0; i < 5; i++) c.defer(() => void ran.push(i));
    expect(c.stats()).toMatchObject({ queued: 3, dropped: 2, logged: 2 });
    expect(errors).toHaveLength(2);
    expect(errors[0]).toBeInstanceOf(TrackingDeliveryError);
    expect(errors[0]).toMatchObject({ reason: 'queue-full' });
    expect(errors[0].message).toBe(
      `The tracking queue is full (maxQueueSize 3): ${sink.url}/track is not taking records as fast as they are logged; a record was dropped. Check that the endpoint is up and reachable (TRACKING_BASE_URL), or raise maxQueueSize.`,
    );
    await c.flush();
    expect(ran).toEqual([0, 1, 2]);
  });

  it('counts queued records against it too', async () => {
    sink.behave(() => ({ delayMs: 100 }));
    const errors: TrackingError[] = [];
    const c = client({ maxQueueSize: 2, onError: (e) => errors.push(e) });
    void c.sms.logIncoming({ text: 'a', userId: 'u' });
    c.defer(() => undefined);
    let ran = false;
    c.defer(() => void (ran = true));
    await c.flush();
    expect(ran).toBe(false);
    expect(errors.map((e) => (e as TrackingDeliveryError).reason)).toEqual(['queue-full']);
  });

  it('does nothing on a disabled client', async () => {
    const c = new TrackingClient({ enabled: false, logger: false });
    let ran = false;
    c.defer(() => void (ran = true));
    await c.flush();
    await sleep(5);
    expect(ran).toBe(false);
    expect(c.stats()).toMatchObject({ queued: 0, logged: 0, dropped: 0 });
  });
});

describe('debug logging', () => {
  it('says what is queued and how each attempt went, with the key masked', async () => {
    sink.behave((_r, index) => (index === 0 ? { status: 503 } : undefined));
    const lines: Line[] = [];
    const c = client({ debug: true, logger: capturingLogger(lines), initialBackoffMs: 40, maxBackoffMs: 40 });
    await c.sms.logIncoming({ text: 'hello', userId: 'u' });
    const debug = lines.filter((l) => l.level === 'debug');
    expect(debug.map((l) => l.message)).toEqual(['queued sms incoming record', 'sms incoming attempt 1: 503', 'sms incoming attempt 2: 200']);
    expect(debug[0].fields).toEqual({ url: expect.stringContaining('apiKey=***'), body: expect.stringContaining('"text":"hello"') });
    expect(debug[1].fields).toMatchObject({ url: expect.stringContaining('apiKey=***'), attempt: 1, status: 503 });
    expect(debug[1].fields.retryInMs).toBeGreaterThanOrEqual(20);
    expect(debug[1].fields.retryInMs).toBeLessThanOrEqual(40);
    expect(debug[2].fields).toMatchObject({ attempt: 2, status: 200, retryInMs: undefined, error: undefined });
    expect(JSON.stringify(lines)).not.toContain(KEY);
  });

  it.each([202, 204])('reports a %i answer with its own status in the debug log and in what the record resolves to, not as 200', async (status) => {
    sink.behave(() => ({ status, body: status === 204 ? '' : '{}' }));
    const lines: Line[] = [];
    const c = client({ debug: true, logger: capturingLogger(lines) });
    await expect(c.sms.logIncoming({ text: 'hello', userId: 'u' })).resolves.toEqual({ status: 'delivered', httpStatus: status, attempts: 1 });
    const attempts = lines.filter((l) => l.level === 'debug' && l.message.includes('attempt'));
    expect(attempts.map((l) => [l.message, l.fields.status])).toEqual([[`sms incoming attempt 1: ${status}`, status]]);
  });

  it('says "no response" of an attempt that got none, with its error', async () => {
    sink.behave((_r, index) => (index === 0 ? { reset: true } : undefined));
    const lines: Line[] = [];
    const c = client({ debug: true, logger: capturingLogger(lines) });
    await c.sms.logIncoming({ text: 'hello', userId: 'u' });
    const attempt = lines.find((l) => l.message === 'sms incoming attempt 1: no response');
    expect(attempt?.fields).toMatchObject({ attempt: 1, status: undefined, error: expect.any(String) });
  });

  const lastAttempts: [string, () => void, TrackingClientOptions, string, Record<string, unknown>][] = [
    ['refused (HTTP 400)', () => sink.behave(() => ({ status: 400 })), {}, 'sms incoming attempt 1: 400', { status: 400 }],
    ['retries ran out without an answer', () => sink.behave(() => ({ reset: true })), { maxAttempts: 1 }, 'sms incoming attempt 1: no response', { error: expect.any(String) }],
    ['the retry budget ran out without an answer', () => sink.behave(() => ({ reset: true })), { initialBackoffMs: 400, maxBackoffMs: 400, maxRetryDurationMs: 150 }, 'sms incoming attempt 1: no response', { error: expect.any(String) }],
    ['a TLS endpoint answered in plain HTTP', () => undefined, { baseUrl: 'https' }, 'sms incoming attempt 1: no response', { error: expect.any(String) }],
  ];

  it.each(lastAttempts)('says how the last attempt of a record given up went (%s)', async (_kind, arrange, options, message, fields) => {
    arrange();
    const lines: Line[] = [];
    const baseUrl = options.baseUrl === 'https' ? sink.url.replace('http:', 'https:') : sink.url;
    const c = client({ debug: true, logger: capturingLogger(lines), ...options, baseUrl });
    await expect(c.sms.logIncoming({ text: 'hello', userId: 'u' })).rejects.toBeInstanceOf(TrackingDeliveryError);
    const attempts = lines.filter((l) => l.level === 'debug' && l.message.includes(' attempt '));
    expect(attempts.map((l) => l.message)).toEqual([message]);
    expect(attempts[0].fields).toMatchObject({ attempt: 1, ...fields });
  });

  it('writes no debug line without debug', async () => {
    const lines: Line[] = [];
    const c = client({ debug: false, logger: capturingLogger(lines) });
    await c.sms.logIncoming({ text: 'hello', userId: 'u' });
    expect(lines.filter((l) => l.level === 'debug')).toEqual([]);
  });
});

describe('a burst past maxQueueSize', () => {
  it('shares one error per kind of record for a second, then makes a new one', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000);
    sink.behave(() => ({ delayMs: 300 }));
    const c = client({ maxQueueSize: 1 });
    const kept = c.sms.logIncoming({ text: 'kept', userId: 'u' });
    const refused = (promise: Promise<unknown>) => promise.then(() => undefined, (e: unknown) => e as TrackingDeliveryError);
    const a = refused(c.sms.logIncoming({ text: 'a', userId: 'u' }));
    const b = refused(c.sms.logIncoming({ text: 'b', userId: 'u' }));
    const other = refused(c.sms.logOutgoing({ text: 'c', userId: 'u' }));
    vi.setSystemTime(1_000_000 + 1_000);
    const sameSecond = refused(c.sms.logIncoming({ text: 'd', userId: 'u' }));
    vi.setSystemTime(1_000_000 + 1_001);
    const later = refused(c.sms.logIncoming({ text: 'e', userId: 'u' }));
    const [ea, eb, eo, es, el] = await Promise.all([a, b, other, sameSecond, later]);
    expect(ea).toBe(eb);
    expect(es).toBe(ea);
    expect(eo).not.toBe(ea);
    expect(eo!.message).toContain('the sms outgoing record was dropped');
    expect(ea!.message).toContain('the sms incoming record was dropped');
    expect(el).not.toBe(ea);
    expect(el).toMatchObject({ reason: 'queue-full' });
    vi.useRealTimers();
    await kept;
    expect(c.stats()).toMatchObject({ dropped: 5, delivered: 1, logged: 6 });
  });
});

describe('the default logger', () => {
  function stderrLines(run: () => Promise<void>): Promise<string[]> {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    return run().then(
      () => {
        spy.mockRestore();
        return lines.filter((l) => l.startsWith('[conversation-analytics]'));
      },
      (error: unknown) => {
        spy.mockRestore();
        throw error;
      },
    );
  }

  it('writes info and above to stderr, debug lines too with debug on, and nothing with logger: false', async () => {
    const off = await stderrLines(async () => void new TrackingClient({ enabled: false }));
    expect(off).toEqual(['[conversation-analytics] info: Tracking is off (enabled: false or TRACKING_ENABLED=false): nothing is recorded or sent.\n']);
    const silent = await stderrLines(async () => void new TrackingClient({ enabled: false, logger: false }));
    expect(silent).toEqual([]);
    const quiet = await stderrLines(async () => {
      const c = new TrackingClient({ apiKey: KEY, baseUrl: sink.url });
      clients.push(c);
      await c.sms.logIncoming({ text: 'a', userId: 'u' });
    });
    expect(quiet).toEqual([]);
    const debug = await stderrLines(async () => {
      const c = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, debug: true });
      clients.push(c);
      await c.sms.logIncoming({ text: 'a', userId: 'u' });
    });
    expect(debug.some((l) => l.startsWith('[conversation-analytics] debug: queued sms incoming record'))).toBe(true);
    expect(debug.join('')).not.toContain(KEY);
  });
});

describe('the client as built from its options', () => {
  it('touches no persistDir when tracking is off', async () => {
    const dir = `${process.env.TMPDIR ?? '/tmp'}/bca-off-${process.pid}-${Date.now()}`;
    const c = new TrackingClient({ enabled: false, logger: false, persistDir: dir });
    await c.close();
    const fs = await import('node:fs');
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('listens for the signals closeOnSignals names (SIGTERM and SIGINT for true) until close()', async () => {
    const count = (signal: NodeJS.Signals) => process.listenerCount(signal);
    const before = { term: count('SIGTERM'), int: count('SIGINT'), usr2: count('SIGUSR2') };
    const both = client({ closeOnSignals: true });
    const one = client({ closeOnSignals: ['SIGUSR2'] });
    expect([count('SIGTERM'), count('SIGINT'), count('SIGUSR2')]).toEqual([before.term + 1, before.int + 1, before.usr2 + 1]);
    await Promise.all([both.close(), one.close()]);
    expect([count('SIGTERM'), count('SIGINT'), count('SIGUSR2')]).toEqual([before.term, before.int, before.usr2]);
  });

  it("adds the proxy note only for the default transport, which ignores HTTP_PROXY (a user's transport may not)", async () => {
    const base = 'http://127.0.0.1:9';
    const env = { HTTP_PROXY: 'http://proxy.example:3128' };
    const inner = (await import('../../src/index.js')).createNodeHttpTransport();
    const own = client({ baseUrl: base, maxAttempts: 1, env, transport: { send: (r) => inner.send(r), close: () => inner.close?.() } });
    const error = (await own.sms.logIncoming({ text: 'a', userId: 'u' }).catch((e: unknown) => e)) as TrackingDeliveryError;
    expect(error).toMatchObject({ reason: 'retries-exhausted' });
    expect(error.message).not.toContain('HTTP_PROXY');
    const byDefault = client({ baseUrl: base, maxAttempts: 1, env });
    const other = (await byDefault.sms.logIncoming({ text: 'a', userId: 'u' }).catch((e: unknown) => e)) as TrackingDeliveryError;
    expect(other.message).toContain('HTTP_PROXY is set');
  });

  it('hands a refused record to onError with its platform and type, and settles a logEvent of nothing as refused', async () => {
    const seen: [string, unknown][] = [];
    const c = client({ onError: (e, record) => seen.push([e.name, record]) });
    await expect(c.sms.logIncoming({ text: 'no user' } as never)).rejects.toMatchObject({ name: 'TrackingValidationError' });
    await expect(c.logEvent(null as never)).rejects.toMatchObject({ name: 'TrackingValidationError' });
    await expect(c.logEvent({ type: 5 } as never)).rejects.toMatchObject({ name: 'TrackingValidationError' });
    expect(seen[0]).toEqual(['TrackingValidationError', { platform: 'sms', type: 'incoming' }]);
    expect(seen.slice(1).map(([, record]) => record)).toEqual([
      { platform: 'directMessage', type: 'event' },
      { platform: 'directMessage', type: 'event' },
    ]);
  });

  it('after close(), refuses every way in: track, trackAndForget and a skipped record alike, each counted as dropped', async () => {
    const errors: TrackingError[] = [];
    const c = client({ onError: (e) => errors.push(e), ignoreUsers: ['ignored'] });
    await c.close();
    expect(c.trackAndForget('sms', 'incoming', { text: 'a', userId: 'u' })).toBeUndefined();
    await expect(c.sms.logIncoming({ text: 'b', userId: 'ignored' })).rejects.toMatchObject({ reason: 'client-closed' });
    expect(errors.map((e) => e.message)).toEqual([
      'The sms incoming record was logged after close(); it was not sent. Log records before closing the client.',
      'The sms incoming record was logged after close(); it was not sent. Log records before closing the client.',
    ]);
    expect(c.stats()).toMatchObject({ logged: 2, dropped: 2 });
  });

  it('returns nothing from trackAndForget for a skipped or disabled record', async () => {
    const c = client({ ignoreUsers: ['ignored'] });
    expect(c.trackAndForget('sms', 'incoming', { text: 'a', userId: 'ignored' })).toBeUndefined();
    const off = new TrackingClient({ enabled: false, logger: false });
    expect(off.trackAndForget('sms', 'incoming', { text: 'a', userId: 'u' })).toBeUndefined();
    await expect(off.sms.logIncoming({ text: 'a', userId: 'u' })).resolves.toEqual({ status: 'skipped', reason: 'disabled' });
    await c.flush();
    expect(sink.requests).toHaveLength(0);
  });

  it('names the wire value of each platform kind as configured', () => {
    const c = client({ platformNames: { directMessage: 'x-dm', messenger: 'x-msgr' } });
    expect([c.platformValue('sms'), c.platformValue('universal'), c.platformValue('directMessage'), c.platformValue('messenger')]).toEqual(['sms', 'universal', 'x-dm', 'x-msgr']);
    expect([c.sms.platform, c.universal.platform, c.directMessage.platform, c.messenger.platform]).toEqual(['sms', 'universal', 'x-dm', 'x-msgr']);
  });
});

describe('a deferred task that throws', () => {
  it('is reported through onError as a TrackingError naming what failed, or as the TrackingError it threw', async () => {
    const errors: TrackingError[] = [];
    const c = client({ onError: (e) => errors.push(e) });
    const own = new TrackingDeliveryError('rejected', 'refused by a hook');
    c.defer(() => {
      throw new Error('mapping failed');
    });
    c.defer(() => {
      throw 'a plain string';
    });
    c.defer(() => {
      throw own;
    });
    await c.flush();
    expect(errors).toHaveLength(3);
    expect(errors[0]).toBeInstanceOf(TrackingError);
    expect(errors.map((e) => e.message)).toEqual(['A deferred tracking task failed: mapping failed', 'A deferred tracking task failed: a plain string', 'refused by a hook']);
    expect(errors[2]).toBe(own);
  });

  it('is warned about with the label "deferred" when there is no onError', async () => {
    const lines: Line[] = [];
    const c = client({ logger: capturingLogger(lines) });
    c.defer(() => {
      throw new Error('mapping failed');
    });
    await c.flush();
    expect(lines).toEqual([{ level: 'warn', message: 'A deferred tracking task failed: mapping failed', fields: { reason: 'TrackingError', record: 'deferred' } }]);
  });
});

describe('a deferred task that throws null or undefined', () => {
  it('is reported through onError as a TrackingError naming what was thrown', async () => {
    const errors: TrackingError[] = [];
    const c = client({ onError: (e) => errors.push(e) });
    c.defer(() => {
      throw null;
    });
    c.defer(() => {
      throw undefined;
    });
    await c.flush();
    expect(errors.map((e) => e.message)).toEqual(['A deferred tracking task failed: null', 'A deferred tracking task failed: undefined']);
  });
});

describe('what the logger is told when there is no onError', () => {
  it('a task deferred after close() is warned about as client-closed, with the label "deferred"', async () => {
    const lines: Line[] = [];
    const c = client({ logger: capturingLogger(lines) });
    await c.close();
    lines.length = 0;
    c.defer(() => undefined);
    expect(lines).toEqual([
      {
        level: 'warn',
        message: 'A record was logged after close(); it was not sent. Close the client after the bot stops taking turns.',
        fields: { reason: 'client-closed', record: 'deferred' },
      },
    ]);
  });

  it('a record refused as invalid is warned about with its platform and type as the label', async () => {
    const lines: Line[] = [];
    const c = client({ logger: capturingLogger(lines) });
    await expect(c.sms.logIncoming({ text: 'no user' } as never)).rejects.toBeInstanceOf(TrackingError);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', fields: { reason: 'TrackingValidationError', record: 'sms incoming' } });
  });
});
