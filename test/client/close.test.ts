/**
 * The end of a client (shutdown.ts, exit-guard.ts): `close()` lets running turns finish within half
 * its deadline, then refuses records, waits for pending ones until the deadline counted from its
 * call, says of each record it gives up how far it got, and frees the transport even when that
 * fails; a client left with records to retry when the process runs out of work closes itself.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNodeHttpTransport, TrackingClient, TrackingDeliveryError, type Logger, type TrackingClientOptions, type Transport } from '../../src/index.js';
import { startSink, type Sink } from '../helpers/sink.js';

const KEY = 'close-key-8e2a';
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
const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (e: unknown) => e as TrackingDeliveryError);

beforeEach(async () => {
  sink = await startSink();
  clients = [];
});

afterEach(async () => {
  await Promise.all(clients.map((c) => c.close(500)));
  await sink.close();
});

describe('close() and running turns', () => {
  it('takes the records of a turn still running when close() is called, and refuses records once it has ended', async () => {
    const c = client();
    const endTurn = c.beginTurn();
    const closed = c.close(2_000);
    await sleep(50);
    const inTurn = c.sms.logOutgoing({ text: 'reply', userId: 'u' });
    endTurn();
    const result = await closed;
    await expect(inTurn).resolves.toMatchObject({ status: 'delivered' });
    expect(result).toMatchObject({ abandoned: 0, stats: { delivered: 1, logged: 1 } });
    await expect(c.sms.logIncoming({ text: 'late', userId: 'u' })).rejects.toMatchObject({ reason: 'client-closed' });
  });

  it('ending a turn twice does not end another turn still running', async () => {
    const c = client();
    const first = c.beginTurn();
    const second = c.beginTurn();
    first();
    first();
    const closed = c.close(2_000);
    await sleep(50);
    // The second turn still runs: its record is taken.
    const inTurn = c.sms.logOutgoing({ text: 'reply', userId: 'u' });
    second();
    await closed;
    await expect(inTurn).resolves.toMatchObject({ status: 'delivered' });
  });

  it('stops waiting for a turn that does not end after half its deadline, then refuses its records', async () => {
    const c = client();
    c.beginTurn(); // never ended
    const started = performance.now();
    const closed = c.close(400);
    await sleep(50);
    const early = c.sms.logOutgoing({ text: 'in time', userId: 'u' });
    await closed;
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    // Half of 400 ms, not the whole deadline or more.
    expect(performance.now() - started).toBeLessThan(390);
    await expect(early).resolves.toMatchObject({ status: 'delivered' });
    await expect(c.sms.logOutgoing({ text: 'too late', userId: 'u' })).rejects.toMatchObject({ reason: 'client-closed' });
  });

  it('does not wait for a turn begun after close() started', async () => {
    sink.behave(() => ({ delayMs: 100 }));
    const c = client();
    const pending = c.sms.logIncoming({ text: 'a', userId: 'u' });
    const closed = c.close(5_000);
    const endLate = c.beginTurn();
    const result = await closed;
    expect(result.abandoned).toBe(0);
    await expect(pending).resolves.toMatchObject({ status: 'delivered' });
    endLate(); // harmless
    await expect(c.sms.logIncoming({ text: 'b', userId: 'u' })).rejects.toMatchObject({ reason: 'client-closed' });
  });

  it('goes on as soon as the last running turn ends, not at half its deadline', async () => {
    const c = client();
    const first = c.beginTurn();
    const second = c.beginTurn();
    const started = performance.now();
    const closed = c.close(4_000);
    await sleep(30);
    first();
    await sleep(30);
    // One turn still runs: its record is taken.
    const inTurn = c.sms.logOutgoing({ text: 'reply', userId: 'u' });
    second();
    await closed;
    // Half of 4 000 ms would be 2 000.
    expect(performance.now() - started).toBeLessThan(1_000);
    await expect(inTurn).resolves.toMatchObject({ status: 'delivered' });
  });

  it('does not count a turn begun after close() started among those it waits for', async () => {
    const c = client();
    const running = c.beginTurn();
    const started = performance.now();
    const closed = c.close(4_000);
    const late = c.beginTurn(); // never ended
    await sleep(30);
    running();
    await closed;
    expect(performance.now() - started).toBeLessThan(1_000);
    late();
  });

  it('counts the time spent waiting for turns into its deadline', async () => {
    sink.behave(() => ({ status: 503 }));
    const c = client({ maxAttempts: 1_000 });
    const endTurn = c.beginTurn();
    const pending = rejection(c.sms.logIncoming({ text: 'a', userId: 'u' }));
    setTimeout(endTurn, 450);
    const started = performance.now();
    const result = await c.close(1_000);
    const took = performance.now() - started;
    expect(result.abandoned).toBe(1);
    expect((await pending)?.reason).toBe('close-deadline');
    expect(took).toBeGreaterThanOrEqual(950);
    // Had the deadline started after the turn ended, close() would take 1 450 ms.
    expect(took).toBeLessThan(1_400);
  });
});

describe('what close() says of the records it gives up', () => {
  it('names the attempts made and the last status, in the singular and the plural', async () => {
    sink.behave(() => ({ status: 503 }));
    const c = client({ maxAttempts: 1_000, initialBackoffMs: 2_000, maxBackoffMs: 2_000 });
    const once = rejection(c.sms.logIncoming({ text: 'a', userId: 'one' }));
    await sleep(150); // one attempt answered, the retry waits
    const result = await c.close(300);
    expect(result.abandoned).toBe(1);
    const error = (await once)!;
    expect(error).toBeInstanceOf(TrackingDeliveryError);
    expect(error).toMatchObject({ reason: 'close-deadline', status: 503, attempts: 1 });
    expect(error.message).toContain('(1 attempt, the last answered HTTP 503)');
    expect(error.message).toMatch(/Raise closeTimeoutMs to give records more time, or set persistDir/);

    const twice = client({ maxAttempts: 1_000, initialBackoffMs: 30, maxBackoffMs: 30 });
    const second = rejection(twice.sms.logIncoming({ text: 'b', userId: 'two' }));
    while (twice.stats().retried < 2) await sleep(5);
    await twice.close(10);
    expect((await second)!.message).toMatch(/\(\d+ attempts, the last answered HTTP 503\)/);
  });

  it('says "none answered" of attempts that got no answer, in the plural too', async () => {
    sink.behave(() => ({ reset: true }));
    const c = client({ maxAttempts: 1_000, initialBackoffMs: 20, maxBackoffMs: 20 });
    const pending = rejection(c.sms.logIncoming({ text: 'a', userId: 'u' }));
    while (c.stats().retried < 2) await sleep(5);
    await c.close(10);
    const error = (await pending)!;
    expect(error.status).toBeUndefined();
    expect(error.message).toMatch(/\(\d+ attempts, none answered\)/);
  });

  it('with persistDir: saves what it gives up, counts it in abandonedSaved, and advises only a longer deadline', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bca-close-'));
    try {
      sink.behave(() => ({ status: 503 }));
      const c = client({ persistDir: dir, maxAttempts: 1_000 });
      const pending = [rejection(c.sms.logIncoming({ text: 'a', userId: 'u' })), rejection(c.sms.logIncoming({ text: 'b', userId: 'v' }))];
      await sleep(50);
      const result = await c.close(100);
      expect(result).toMatchObject({ abandoned: 2, abandonedSaved: 2, stats: { persisted: 2, failed: 0 } });
      for (const error of await Promise.all(pending)) {
        expect(error).toMatchObject({ reason: 'persisted' });
        expect(error!.message).toContain('Raise closeTimeoutMs to give records more time. It was saved to persistDir');
        expect(error!.message).not.toContain('or set persistDir');
      }
      expect(fs.readdirSync(dir).length).toBeGreaterThan(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('returns the same result to every caller of close(), and abandons nothing when all was delivered', async () => {
    const c = client();
    void c.sms.logIncoming({ text: 'a', userId: 'u' });
    const first = c.close();
    expect(c.close()).toBe(first);
    expect(await first).toEqual({ abandoned: 0, abandonedSaved: 0, stats: expect.objectContaining({ delivered: 1, queued: 0, inFlight: 0 }) });
  });
});

describe('the transport at close()', () => {
  it('is closed once; when closing it fails, close() still resolves and says so', async () => {
    const lines: Line[] = [];
    const inner = createNodeHttpTransport();
    let closes = 0;
    const transport: Transport = {
      send: (request) => inner.send(request),
      close: async () => {
        closes++;
        await inner.close?.();
        throw new Error('socket pool stuck');
      },
    };
    const c = client({ transport, logger: capturingLogger(lines) });
    await c.sms.logIncoming({ text: 'a', userId: 'u' });
    await expect(c.close()).resolves.toMatchObject({ abandoned: 0 });
    await c.close();
    expect(closes).toBe(1);
    expect(lines.filter((l) => l.message === 'closing the transport failed')).toHaveLength(1);
    expect(lines.find((l) => l.message === 'closing the transport failed')!.level).toBe('warn');
  });
});

describe('a process that runs out of work', () => {
  const exitListeners = () => process.listenerCount('beforeExit');

  it('closes a client that still has records to retry, and says in one line what became of them', async () => {
    sink.behave(() => ({ status: 503 }));
    const lines: Line[] = [];
    const before = exitListeners();
    // A retry a second away: when the process runs out of work, the record waits for it (no request in flight).
    const c = client({ maxAttempts: 1_000, initialBackoffMs: 1_000, maxBackoffMs: 1_000, closeTimeoutMs: 200, logger: capturingLogger(lines) });
    const pending = rejection(c.sms.logIncoming({ text: 'a', userId: 'u' }));
    expect(exitListeners()).toBe(before + 1);
    await sleep(30);
    process.emit('beforeExit', 0);
    expect((await pending)?.reason).toBe('close-deadline');
    await sleep(20);
    const line = lines.find((l) => l.message.startsWith('process exiting: tracking closed: '));
    expect(line?.message).toContain('1 abandoned at the deadline (given up); 1 records in all');
    expect(line?.level).toBe('warn');
    await expect(c.sms.logIncoming({ text: 'b', userId: 'u' })).rejects.toMatchObject({ reason: 'client-closed' });
    expect(exitListeners()).toBe(before);
  });

  describe('with persistDir', () => {
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bca-close-'));
    });
    afterEach(async () => {
      await Promise.all(clients.map((c) => c.close(500)));
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const savedTexts = () =>
      fs
        .readdirSync(dir)
        .flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n'))
        .filter((l) => l.trim() !== '')
        .map((l) => (JSON.parse(l) as { body: { text: string } }).body.text);

    it('closes a client still re-sending saved records, and keeps for the next start those it has not re-sent', async () => {
      const saved = Array.from({ length: 10 }, (_, i) => JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, i + 1], body: { text: `saved ${i}`, userId: 'saved-u' } }));
      fs.writeFileSync(path.join(dir, 'records-1-earlier.ndjson'), `${saved.join('\n')}\n`);
      const lines: Line[] = [];
      const before = exitListeners();
      // maxQueueSize 4: the replay queues one saved record every 100 ms.
      const c = client({ persistDir: dir, maxQueueSize: 4, closeTimeoutMs: 500, logger: capturingLogger(lines) });
      expect(exitListeners()).toBe(before + 1);
      // Between two of the replay's turns: nothing queued, nothing in flight, saved records still to send.
      const until = Date.now() + 5_000;
      while (!(sink.requests.length >= 1 && c.stats().queued === 0 && c.stats().inFlight === 0) && Date.now() < until) await sleep(5);
      expect(c.stats()).toMatchObject({ queued: 0, inFlight: 0 });
      process.emit('beforeExit', 0);
      await sleep(50);
      expect(lines.find((l) => l.message.startsWith('process exiting: tracking closed: '))).toBeDefined();
      await expect(c.sms.logIncoming({ text: 'b', userId: 'u' })).rejects.toMatchObject({ reason: 'client-closed' });
      const sent = sink.requests.map((r) => r.body.text as string);
      expect(sent.length).toBeLessThan(10);
      expect([...sent, ...savedTexts()].sort()).toEqual(saved.map((_, i) => `saved ${i}`).sort());
      expect(exitListeners()).toBe(before);
    });

    it('with nothing saved to re-send, watches for the end of the process only once it has a record', async () => {
      const before = exitListeners();
      const c = client({ persistDir: dir });
      expect(exitListeners()).toBe(before);
      await c.sms.logIncoming({ text: 'a', userId: 'u' });
      expect(exitListeners()).toBe(before + 1);
    });
  });

  it('waits for a request in flight instead of closing: the record is delivered and the client stays open', async () => {
    sink.behave(() => ({ delayMs: 100 }));
    const lines: Line[] = [];
    const c = client({ closeTimeoutMs: 1_000, logger: capturingLogger(lines) });
    const pending = c.sms.logIncoming({ text: 'a', userId: 'u' });
    await sleep(30);
    expect(c.stats().inFlight).toBe(1);
    process.emit('beforeExit', 0);
    await expect(pending).resolves.toMatchObject({ status: 'delivered' });
    await expect(c.sms.logIncoming({ text: 'b', userId: 'u' })).resolves.toMatchObject({ status: 'delivered' });
    expect(lines).toEqual([]);
  });

  it('with a request in flight at the deadline, closes the client, cuts the request off, and counts its record once', async () => {
    sink.behave(() => ({ delayMs: 60_000 }));
    const lines: Line[] = [];
    const c = client({ closeTimeoutMs: 300, logger: capturingLogger(lines) });
    const pending = rejection(c.sms.logIncoming({ text: 'a', userId: 'u' }));
    await sleep(30);
    const ranOut = performance.now();
    process.emit('beforeExit', 0);
    expect((await pending)?.reason).toBe('close-deadline');
    expect(performance.now() - ranOut).toBeGreaterThanOrEqual(250);
    expect(performance.now() - ranOut).toBeLessThan(1_000);
    await sleep(50);
    const line = lines.find((l) => l.message.startsWith('process exiting: tracking closed: '));
    expect(line?.message).toBe('process exiting: tracking closed: 0 delivered, 0 given up, 0 dropped, 0 saved to persistDir, 1 abandoned at the deadline (given up); 1 records in all');
    // Cut off: the request's socket was destroyed, not left to the 10 s request timeout.
    expect(c.stats()).toMatchObject({ inFlight: 0, failed: 1, logged: 1 });
  });

  it('closes a client whose record waits to be retried at once, and still delivers the retry within the deadline', async () => {
    sink.behave((_request, index) => (index === 0 ? { status: 503 } : undefined));
    const lines: Line[] = [];
    const c = client({ initialBackoffMs: 150, maxBackoffMs: 150, closeTimeoutMs: 2_000, logger: capturingLogger(lines) });
    const pending = c.sms.logIncoming({ text: 'a', userId: 'u' });
    await sleep(50);
    expect(c.stats()).toMatchObject({ inFlight: 0, queued: 1 });
    process.emit('beforeExit', 0);
    // Closed there and then: it takes no more records, but keeps trying for the one it has.
    await expect(c.sms.logIncoming({ text: 'b', userId: 'u' })).rejects.toMatchObject({ reason: 'client-closed' });
    await expect(pending).resolves.toMatchObject({ status: 'delivered' });
    await sleep(20);
    expect(lines.find((l) => l.message.startsWith('process exiting: tracking closed: '))?.message).toContain('1 delivered');
  });

  it('leaves a client whose request in flight was answered open, also past the deadline', async () => {
    sink.behave(() => ({ delayMs: 100 }));
    const lines: Line[] = [];
    const c = client({ closeTimeoutMs: 300, logger: capturingLogger(lines) });
    const pending = c.sms.logIncoming({ text: 'a', userId: 'u' });
    await sleep(30);
    process.emit('beforeExit', 0);
    await expect(pending).resolves.toMatchObject({ status: 'delivered' });
    await sleep(500);
    expect(lines).toEqual([]);
    await expect(c.sms.logIncoming({ text: 'b', userId: 'u' })).resolves.toMatchObject({ status: 'delivered' });
  });

  it('counts the deadline from when the process first ran out of work, across requests that ended in retries', async () => {
    // The first request is answered 503 after 100 ms; its retry is never answered.
    sink.behave((_request, index) => (index === 0 ? { status: 503, delayMs: 100 } : { delayMs: 60_000 }));
    const c = client({ closeTimeoutMs: 1_000 });
    const pending = rejection(c.sms.logIncoming({ text: 'a', userId: 'u' }));
    await sleep(30);
    process.emit('beforeExit', 0);
    await sleep(1_500);
    expect(sink.requests).toHaveLength(2);
    expect(c.stats().inFlight).toBe(1);
    // The process runs out of work again, its deadline long past: the client is closed at once.
    const ranOutAgain = performance.now();
    process.emit('beforeExit', 0);
    expect((await pending)?.reason).toBe('close-deadline');
    expect(performance.now() - ranOutAgain).toBeLessThan(700);
  });

  it('counts the deadline afresh once the client has been idle: a later request in flight is waited for', async () => {
    sink.behave(() => ({ delayMs: 100 }));
    const lines: Line[] = [];
    const c = client({ closeTimeoutMs: 300, logger: capturingLogger(lines) });
    const first = c.sms.logIncoming({ text: 'a', userId: 'u' });
    await sleep(30);
    process.emit('beforeExit', 0);
    await expect(first).resolves.toMatchObject({ status: 'delivered' });
    // Well past the first deadline, the script logs another record and runs out of work while it is in flight.
    await sleep(400);
    const second = c.sms.logIncoming({ text: 'b', userId: 'u' });
    await sleep(30);
    expect(c.stats().inFlight).toBe(1);
    process.emit('beforeExit', 0);
    await expect(second).resolves.toMatchObject({ status: 'delivered' });
    expect(lines).toEqual([]);
  });

  it('keeps the process alive for a request in flight by its socket, or by a timer when the transport cannot hold it', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    sink.behave(() => ({ delayMs: 60_000 }));
    // The default transport: the request's socket holds the process, no timer of the client does.
    // Not awaited (a rejection handler only): an awaited record would hold the process itself (keep-alive.ts).
    const held = client({ closeTimeoutMs: 5_000 });
    void held.sms.logIncoming({ text: 'a', userId: 'u' }).catch(() => undefined);
    await sleep(30);
    expect(held.stats().inFlight).toBe(1);
    let before = timers();
    process.emit('beforeExit', 0);
    expect(timers()).toBe(before);
    await held.close(100);
    // A transport of the user's, whose request never settles: the client's deadline timer holds the process.
    const transport: Transport = { send: () => new Promise(() => undefined) };
    const unheld = client({ transport, closeTimeoutMs: 5_000 });
    void unheld.sms.logIncoming({ text: 'a', userId: 'u' }).catch(() => undefined);
    await sleep(30);
    expect(unheld.stats().inFlight).toBe(1);
    before = timers();
    process.emit('beforeExit', 0);
    expect(timers()).toBe(before + 1);
    await unheld.close(100);
    expect(timers()).toBe(before);
  });

  it('with two requests in flight, one answered, still closes the client at the deadline for the other', async () => {
    sink.behave((request) => (request.body.userId === 'quick' ? { delayMs: 50 } : { delayMs: 60_000 }));
    const c = client({ closeTimeoutMs: 300 });
    const quick = c.sms.logIncoming({ text: 'a', userId: 'quick' });
    const stuck = rejection(c.sms.logIncoming({ text: 'b', userId: 'stuck' }));
    await sleep(30);
    expect(c.stats().inFlight).toBe(2);
    process.emit('beforeExit', 0);
    await expect(quick).resolves.toMatchObject({ status: 'delivered' });
    const outcome = await Promise.race([stuck, sleep(3_000).then(() => 'still waiting')]);
    expect(outcome).toMatchObject({ reason: 'close-deadline' });
  });

  it('leaves an idle client open, and stops watching until it has records again', async () => {
    const before = exitListeners();
    const c = client();
    expect(exitListeners()).toBe(before);
    await c.sms.logIncoming({ text: 'a', userId: 'u' });
    expect(exitListeners()).toBe(before + 1);
    process.emit('beforeExit', 0);
    expect(exitListeners()).toBe(before);
    // Not closed: it still takes records, and watches again while they are pending.
    const next = c.sms.logIncoming({ text: 'b', userId: 'u' });
    expect(exitListeners()).toBe(before + 1);
    await expect(next).resolves.toMatchObject({ status: 'delivered' });
    expect(c.stats().delivered).toBe(2);
  });

  it('shares one listener among many clients, and removes it when the last one is done', async () => {
    sink.behave(() => ({ delayMs: 30 }));
    const before = exitListeners();
    const many = Array.from({ length: 15 }, () => client());
    const pending = many.map((c, i) => c.sms.logIncoming({ text: 'a', userId: `u${i}` }));
    expect(exitListeners()).toBe(before + 1);
    await Promise.all(pending);
    await Promise.all(many.slice(0, 14).map((c) => c.close()));
    expect(exitListeners()).toBe(before + 1);
    await many[14].close();
    expect(exitListeners()).toBe(before);
  });

  it('leaves a client already closing to its own close()', async () => {
    sink.behave(() => ({ delayMs: 150 }));
    const lines: Line[] = [];
    const before = exitListeners();
    const c = client({ logger: capturingLogger(lines) });
    const pending = c.sms.logIncoming({ text: 'a', userId: 'u' });
    const closed = c.close(2_000);
    process.emit('beforeExit', 0);
    expect(exitListeners()).toBe(before);
    expect(await closed).toMatchObject({ abandoned: 0 });
    await expect(pending).resolves.toMatchObject({ status: 'delivered' });
    await sleep(20);
    expect(lines.filter((l) => l.message.startsWith('process exiting'))).toEqual([]);
  });
});
