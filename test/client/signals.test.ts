/**
 * `closeOnSignals` in this process (the signal is emitted on `process`, as the OS would deliver
 * it), and the one line a closing client writes about what became of its records. The same
 * behaviour with real signals and real process exits is in process.test.ts and
 * test/faults/bot-shutdown.test.ts (child processes).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrackingClient } from '../../src/index.js';
import type { CloseResult } from '../../src/client/client-types.js';
import { SafeLogger } from '../../src/client/logger.js';
import { logClosed } from '../../src/client/signals.js';
import { startSink, type Sink } from '../helpers/sink.js';
import { capture, type Entry } from '../helpers/capture-logger.js';

async function waitFor(check: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

let sink: Sink;
/** Signals the client raised again with process.kill (recorded here instead of ending the test's process). */
let raised: Array<{ pid: number; signal: unknown }>;
let originalKill: typeof process.kill;

beforeEach(async () => {
  sink = await startSink();
  raised = [];
  originalKill = process.kill;
  process.kill = ((pid: number, signal?: string | number) => {
    raised.push({ pid, signal });
    return true;
  }) as typeof process.kill;
});

afterEach(async () => {
  process.kill = originalKill;
  await sink.close();
});

describe('closeOnSignals', () => {
  it('on SIGTERM delivers what is pending, says what became of it, and raises the signal again so the process ends', async () => {
    const { logger, entries } = capture();
    const before = process.listenerCount('SIGTERM');
    const client = new TrackingClient({ apiKey: 'sig-key-1', baseUrl: sink.url, logger, closeOnSignals: true });
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    expect(process.listenerCount('SIGINT')).toBeGreaterThan(0);
    const delivered = client.sms.logIncoming({ text: 'hi', userId: 'u' });
    process.emit('SIGTERM', 'SIGTERM');
    await expect(delivered).resolves.toMatchObject({ status: 'delivered' });
    await waitFor(() => raised.length > 0);
    expect(raised).toEqual([{ pid: process.pid, signal: 'SIGTERM' }]);
    expect(entries.map((e) => `${e.level} ${e.message}`)).toEqual([
      'info SIGTERM: delivering pending records before exit',
      'info SIGTERM: tracking closed: 1 delivered, 0 given up, 0 dropped, 0 saved to persistDir, 0 abandoned at the deadline; 1 records in all',
    ]);
    expect(entries[0].fields).toEqual({ signal: 'SIGTERM' });
    // It listened once, for both signals: nothing of it is left on the process.
    expect(process.listenerCount('SIGTERM')).toBe(before);
    expect(process.listenerCount('SIGINT')).toBe(0);
    await expect(client.sms.logIncoming({ text: 'late', userId: 'u' })).rejects.toMatchObject({ reason: 'client-closed' });
  });

  it('leaves the process alone after closing when the application listens for the signal itself', async () => {
    const { logger, entries } = capture();
    const heard: string[] = [];
    const own = (signal: string) => void heard.push(signal);
    process.on('SIGINT', own);
    try {
      const client = new TrackingClient({ apiKey: 'sig-key-2', baseUrl: sink.url, logger, closeOnSignals: ['SIGINT'] });
      process.emit('SIGINT', 'SIGINT');
      await waitFor(() => entries.some((e) => e.message.includes('tracking closed')));
      await new Promise((r) => setTimeout(r, 20));
      expect(heard).toEqual(['SIGINT']);
      expect(raised).toEqual([]);
      expect(process.listenerCount('SIGINT')).toBe(1);
      await client.close();
    } finally {
      process.off('SIGINT', own);
    }
  });

  it('listens only for the signals it is given, and stops listening once closed', async () => {
    const client = new TrackingClient({ apiKey: 'sig-key-3', baseUrl: sink.url, logger: false, closeOnSignals: ['SIGUSR2'] });
    expect(process.listenerCount('SIGUSR2')).toBe(1);
    expect(process.listenerCount('SIGTERM')).toBe(0);
    await client.close();
    expect(process.listenerCount('SIGUSR2')).toBe(0);
    expect(raised).toEqual([]);
  });
});

describe('the line a closing client writes', () => {
  const stats = { logged: 0, queued: 0, inFlight: 0, delivered: 0, retried: 0, failed: 0, dropped: 0, persisted: 0 };

  function line(result: CloseResult): Entry {
    const { logger, entries } = capture();
    logClosed('SIGTERM', result, new SafeLogger(logger, [], false));
    expect(entries).toHaveLength(1);
    return entries[0];
  }

  it('is an info line when every record was delivered, with the counts as fields', () => {
    const entry = line({ abandoned: 0, abandonedSaved: 0, stats: { ...stats, logged: 3, delivered: 3, retried: 1 } });
    expect(entry.level).toBe('info');
    expect(entry.message).toBe('SIGTERM: tracking closed: 3 delivered, 0 given up, 0 dropped, 0 saved to persistDir, 0 abandoned at the deadline; 3 records in all');
    expect(entry.fields).toEqual({ ...stats, logged: 3, delivered: 3, retried: 1, abandoned: 0, abandonedSaved: 0 });
  });

  it('is an info line when records were saved to persistDir and none lost', () => {
    const entry = line({ abandoned: 0, abandonedSaved: 0, stats: { ...stats, logged: 3, delivered: 1, persisted: 2 } });
    expect(entry.level).toBe('info');
    expect(entry.message).toBe('SIGTERM: tracking closed: 1 delivered, 0 given up, 0 dropped, 2 saved to persistDir, 0 abandoned at the deadline; 3 records in all');
  });

  it('is a warning when a record was given up, dropped, abandoned or is still pending', () => {
    expect(line({ abandoned: 0, abandonedSaved: 0, stats: { ...stats, logged: 2, delivered: 1, failed: 1 } }).level).toBe('warn');
    expect(line({ abandoned: 0, abandonedSaved: 0, stats: { ...stats, logged: 2, delivered: 1, dropped: 1 } }).level).toBe('warn');
    expect(line({ abandoned: 1, abandonedSaved: 1, stats: { ...stats, logged: 2, delivered: 1, persisted: 1 } }).level).toBe('warn');
    const pending = line({ abandoned: 0, abandonedSaved: 0, stats: { ...stats, logged: 3, delivered: 1 } });
    expect(pending.level).toBe('warn');
    expect(pending.message).toBe('SIGTERM: tracking closed: 1 delivered, 0 given up, 0 dropped, 0 saved to persistDir, 0 abandoned at the deadline, 2 still pending; 3 records in all');
  });

  it('counts each record once: abandoned ones are split into saved and given up, and not counted again', () => {
    const allSaved = line({ abandoned: 2, abandonedSaved: 2, stats: { ...stats, logged: 5, delivered: 2, failed: 1, persisted: 2 } });
    expect(allSaved.message).toBe(
      'SIGTERM: tracking closed: 2 delivered, 1 given up, 0 dropped, 0 saved to persistDir, 2 abandoned at the deadline (all saved to persistDir); 5 records in all',
    );
    const noneSaved = line({ abandoned: 2, abandonedSaved: 0, stats: { ...stats, logged: 6, delivered: 2, failed: 3, dropped: 1 } });
    expect(noneSaved.message).toBe('SIGTERM: tracking closed: 2 delivered, 1 given up, 1 dropped, 0 saved to persistDir, 2 abandoned at the deadline (given up); 6 records in all');
    const some = line({ abandoned: 3, abandonedSaved: 1, stats: { ...stats, logged: 7, delivered: 1, failed: 3, persisted: 3 } });
    expect(some.message).toBe(
      'SIGTERM: tracking closed: 1 delivered, 1 given up, 0 dropped, 2 saved to persistDir, 3 abandoned at the deadline (1 saved to persistDir, 2 given up); 7 records in all',
    );
  });
});

