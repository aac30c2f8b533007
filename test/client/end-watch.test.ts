/**
 * A process that ends with records pending says how many it leaves behind, never nothing
 * (exit-guard.ts, `watchEnd`): on SIGINT/SIGTERM that nothing else listens for (then the signal
 * takes its course), and on `process.exit()`. The signals and the exit are emitted on `process`
 * here, as Node would deliver them; with real signals and real exits, in child processes, see
 * test/faults/awaited-delivery.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrackingClient } from '../../src/index.js';
import { othersListen, watchEnd } from '../../src/client/exit-guard.js';
import { startSink, type Sink } from '../helpers/sink.js';
import { capture } from '../helpers/capture-logger.js';

async function waitFor(check: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

let sink: Sink;
let raised: Array<{ pid: number; signal: unknown }>;
let originalKill: typeof process.kill;
const clients: TrackingClient[] = [];

beforeEach(async () => {
  // Requests are held for a long time: records stay pending.
  sink = await startSink(() => ({ delayMs: 20_000 }));
  raised = [];
  originalKill = process.kill;
  process.kill = ((pid: number, signal?: string | number) => {
    raised.push({ pid, signal });
    return true;
  }) as typeof process.kill;
});

const cleanups: (() => void)[] = [];
const onCleanup = (f: () => void) => void cleanups.push(f);

afterEach(async () => {
  for (const f of cleanups.splice(0)) f();
  for (const c of clients.splice(0)) await c.close(10);
  process.kill = originalKill;
  await sink.close();
});

function client(options: ConstructorParameters<typeof TrackingClient>[0] = {}): TrackingClient {
  const c = new TrackingClient({ apiKey: 'end-key-1', baseUrl: sink.url, ...options });
  clients.push(c);
  return c;
}

const LEFT = 'Close the client when the process ends (closeOnSignals: true, or await client.close()) to deliver them.';

describe('a client with records pending', () => {
  it('listens for SIGINT and SIGTERM only while it has records pending', async () => {
    const counts = () => [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM'), process.listenerCount('exit')];
    const before = counts();
    sink.behave(() => undefined);
    const c = client({ logger: false });
    expect(counts()).toEqual(before);
    const sent = c.sms.logIncoming({ text: 'a', userId: 'u' });
    expect(counts()).toEqual(before.map((n) => n + 1));
    await sent;
    await waitFor(() => counts()[0] === before[0]);
    expect(counts()).toEqual(before);
  });

  it('on a SIGINT nothing else listens for: says what it leaves behind, by kind, and raises the signal again', async () => {
    // Listeners other test files in this process may have left (a mutation run runs them all in one).
    const left = process.listeners('SIGINT');
    for (const l of left) process.off('SIGINT', l);
    onCleanup(() => left.forEach((l) => process.on('SIGINT', l)));
    const { logger, entries } = capture();
    const c = client({ logger });
    for (let i = 0; i < 3; i++) void c.sms.logIncoming({ text: `in ${i}`, userId: `u${i}` }).catch(() => undefined);
    void c.logEvent({ type: 'revenueEvent', name: 'buy', userId: 'u0', amount: 1 }).catch(() => undefined);
    await waitFor(() => c.stats().inFlight === 3);
    expect(othersListen('SIGINT')).toBe(false);
    process.emit('SIGINT', 'SIGINT');
    expect(entries.map((e) => e.message)).toEqual([`SIGINT: the process is ending with 4 records not delivered: 3 incoming, 1 revenueEvent. ${LEFT}`]);
    expect(entries[0]).toMatchObject({ level: 'warn', fields: { left: { incoming: 3, revenueEvent: 1 } } });
    expect(raised).toEqual([{ pid: process.pid, signal: 'SIGINT' }]);
    // It let go of the signal (else the one raised again would come back to it).
    expect(process.listenerCount('SIGINT')).toBe(0);
  });

  it('on a SIGTERM the application listens for: says nothing and raises nothing (the application decides)', async () => {
    const { logger, entries } = capture();
    const c = client({ logger });
    void c.sms.logIncoming({ text: 'a', userId: 'u' }).catch(() => undefined);
    const own = () => undefined;
    process.on('SIGTERM', own);
    try {
      expect(othersListen('SIGTERM')).toBe(true);
      process.emit('SIGTERM', 'SIGTERM');
      expect(entries).toEqual([]);
      expect(raised).toEqual([]);
    } finally {
      process.off('SIGTERM', own);
    }
  });

  it('with closeOnSignals: leaves the signal to it (delivering, then raising it once), saying nothing of records left behind', async () => {
    const left = process.listeners('SIGINT');
    for (const l of left) process.off('SIGINT', l);
    onCleanup(() => left.forEach((l) => process.on('SIGINT', l)));
    sink.behave(() => ({ delayMs: 50 }));
    const { logger, entries } = capture();
    const c = client({ logger, closeOnSignals: true });
    void c.sms.logIncoming({ text: 'a', userId: 'u' });
    await waitFor(() => c.stats().inFlight === 1);
    process.emit('SIGINT', 'SIGINT');
    await waitFor(() => raised.length > 0);
    expect(raised).toEqual([{ pid: process.pid, signal: 'SIGINT' }]);
    expect(entries.some((e) => e.message.includes('not delivered'))).toBe(false);
    expect(entries.at(-1)?.message).toContain('SIGINT: tracking closed: 1 delivered');
  });

  it('at process.exit(): says what it leaves behind, records waiting behind others included', async () => {
    const { logger, entries } = capture();
    const c = client({ logger });
    for (let i = 0; i < 3; i++) void c.sms.logOutgoing({ text: `out ${i}`, userId: 'u' }).catch(() => undefined);
    await waitFor(() => c.stats().inFlight === 1);
    process.emit('exit', 0);
    expect(entries.map((e) => e.message)).toEqual([`process exiting: the process is ending with 3 records not delivered: 3 outgoing. ${LEFT}`]);
  });

  it('at process.exit(): counts the records of deferred tasks not run yet (the middleware\'s) as records', async () => {
    const { logger, entries } = capture();
    const c = client({ logger });
    void c.sms.logOutgoing({ text: 'out', userId: 'u' }).catch(() => undefined);
    await waitFor(() => c.stats().inFlight === 1);
    c.defer(() => c.trackAndForget('sms', 'incoming', { text: 'deferred 1', userId: 'u' }));
    c.defer(() => c.trackAndForget('sms', 'incoming', { text: 'deferred 2', userId: 'u' }));
    process.emit('exit', 0);
    expect(entries.map((e) => e.message)).toEqual([`process exiting: the process is ending with 3 records not delivered: 2 record, 1 outgoing. ${LEFT}`]);
    expect(entries[0].fields).toEqual({ left: { outgoing: 1, record: 2 } });
  });

  it('with closeOnSignals listening ahead of the watch (a client made while another had records pending): the signal is its, nothing said of records left behind, raised once after close', async () => {
    const left = process.listeners('SIGINT');
    for (const l of left) process.off('SIGINT', l);
    onCleanup(() => left.forEach((l) => process.on('SIGINT', l)));
    // Another client with a record pending (held 20 s): the clients' watch listens for SIGINT from now on.
    const other = client({ logger: false });
    void other.sms.logIncoming({ text: 'other', userId: 'u9' }).catch(() => undefined);
    await waitFor(() => other.stats().inFlight === 1);
    sink.behave(() => ({ delayMs: 50 }));
    // Made now, its closeOnSignals listener goes ahead of the watch's.
    const { logger, entries } = capture();
    const c = client({ logger, closeOnSignals: ['SIGINT'] });
    void c.sms.logIncoming({ text: 'a', userId: 'u' });
    await waitFor(() => c.stats().inFlight === 1);
    process.emit('SIGINT', 'SIGINT');
    // The other client has no closeOnSignals: it says what it leaves behind (as a process would end);
    // the signal is raised only by closeOnSignals, once this client has closed.
    expect(raised).toEqual([]);
    await waitFor(() => raised.length > 0);
    expect(raised).toEqual([{ pid: process.pid, signal: 'SIGINT' }]);
    expect(entries.some((e) => e.message.includes('not delivered'))).toBe(false);
    expect(entries.at(-1)?.message).toContain('SIGINT: tracking closed: 1 delivered');
  });

  it('at process.exit() before a replay has queued anything: says nothing (the saved records stay on disk)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'end-watch-'));
    onCleanup(() => fs.rmSync(dir, { recursive: true, force: true }));
    const saved = [0, 1].map((i) => JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, i + 1], body: { text: `saved ${i}`, userId: 'u' } }));
    fs.writeFileSync(path.join(dir, 'records-1-earlier.ndjson'), `${saved.join('\n')}\n`);
    const { logger, entries } = capture();
    const c = client({ logger, persistDir: dir });
    // The replay's first round runs on the next turn of the event loop: nothing is queued yet.
    expect(c.stats()).toMatchObject({ queued: 0, inFlight: 0 });
    process.emit('exit', 0);
    expect(entries.filter((e) => e.message.includes('not delivered'))).toEqual([]);
  });

  it('at process.exit() with nothing pending: says nothing', async () => {
    sink.behave(() => undefined);
    const { logger, entries } = capture();
    const c = client({ logger });
    await c.sms.logOutgoing({ text: 'out', userId: 'u' });
    const stop = watchEnd({ signal: () => false, exit: () => undefined });
    try {
      process.emit('exit', 0);
    } finally {
      stop();
      stop();
    }
    expect(entries).toEqual([]);
  });
});

describe('watchEnd', () => {
  it('calls every watcher; a watcher that takes the signal keeps it from being raised again', () => {
    const left = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
    for (const [signal, listeners] of Object.entries(left)) for (const l of listeners) process.off(signal, l);
    onCleanup(() => {
      for (const [signal, listeners] of Object.entries(left)) for (const l of listeners) process.on(signal, l);
    });
    const exits = process.listenerCount('exit');
    const seen: string[] = [];
    const other = () => undefined;
    const stopA = watchEnd({ signal: (s) => (seen.push(`a ${s}`), true), exit: () => seen.push('a exit') });
    const stopB = watchEnd({ signal: (s) => (seen.push(`b ${s}`), false), exit: () => seen.push('b exit') });
    try {
      expect(othersListen('SIGTERM')).toBe(false);
      process.on('SIGTERM', other);
      expect(othersListen('SIGTERM')).toBe(true);
      process.off('SIGTERM', other);
      process.emit('SIGTERM', 'SIGTERM');
      process.emit('exit', 0);
      expect(seen).toEqual(['a SIGTERM', 'b SIGTERM', 'a exit', 'b exit']);
      expect(raised).toEqual([]);
      stopA();
      process.emit('SIGINT', 'SIGINT');
      expect(seen.at(-1)).toBe('b SIGINT');
      expect(raised).toEqual([{ pid: process.pid, signal: 'SIGINT' }]);
      expect(process.listenerCount('SIGINT')).toBe(0);
    } finally {
      stopA();
      stopB();
    }
    expect(process.listenerCount('exit')).toBe(exits);
  });
});
