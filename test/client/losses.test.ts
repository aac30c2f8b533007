/**
 * What the client says about records it did not deliver, by kind (tally.ts through
 * tracking-client.ts): logged after close(), deferred past a full queue, given up, or saved to
 * persistDir; and what a refusing endpoint's answer adds to the error. With a transport of the
 * test's own that holds or answers each request as the test says, and a logger that keeps lines.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TrackingClient, TrackingDeliveryError, type Transport, type TransportResponse } from '../../src/index.js';
import { capture, type Entry } from '../helpers/capture-logger.js';

/** A transport whose requests never answer. */
const holding: Transport = { send: () => new Promise<TransportResponse>(() => undefined) };
/** A transport that answers every request with `response`. */
const answering = (response: TransportResponse): Transport => ({ send: async () => response });

const clients: TrackingClient[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close(10);
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function client(options: ConstructorParameters<typeof TrackingClient>[0]): TrackingClient {
  const c = new TrackingClient({ apiKey: 'loss-key-1', baseUrl: 'http://127.0.0.1:9', initialBackoffMs: 1, maxBackoffMs: 1, ...options });
  clients.push(c);
  return c;
}

const tallyLines = (entries: Entry[]) => entries.filter((e) => e.message.startsWith('tracking: ')).map((e) => e.message);

describe('records refused after close()', () => {
  it('are counted as dropped by kind: an event by its event type, a record by its type, a deferred task as a record', async () => {
    const { logger, entries } = capture();
    const c = client({ logger, onError: () => undefined });
    await c.close(10);
    await expect(c.logEvent({ type: 'revenueEvent', name: 'buy', userId: 'u1', amount: 5 })).rejects.toMatchObject({ reason: 'client-closed' });
    await expect(c.sms.logIncoming({ text: 'late', userId: 'u1' })).rejects.toMatchObject({ reason: 'client-closed' });
    let ran = false;
    c.defer(() => void (ran = true));
    await expect(c.flush()).resolves.toEqual({ delivered: 0, givenUp: 0, saved: 0, pending: 0 });
    expect(ran).toBe(false);
    expect(tallyLines(entries)).toEqual(['tracking: 3 records dropped: 1 incoming, 1 record, 1 revenueEvent']);
    expect(c.stats()).toMatchObject({ logged: 3, dropped: 3 });
  });

  it('an event that cannot be read as JSON is counted as an event', async () => {
    const { logger, entries } = capture();
    const c = client({ logger, onError: () => undefined });
    await c.close(10);
    const cyclic: Record<string, unknown> = { type: 'customEvent', name: 'x', userId: 'u1' };
    cyclic.self = cyclic;
    await expect(c.track('directMessage', 'event', cyclic)).rejects.toBeInstanceOf(TrackingDeliveryError);
    await c.flush();
    expect(tallyLines(entries)).toEqual(['tracking: 1 record dropped: 1 event']);
  });
});

describe('deferred tasks past a full queue', () => {
  it('are dropped and counted as records; the first is warned about in full, the rest of the run only counted', async () => {
    const { logger, entries } = capture();
    const c = client({ logger, transport: holding, maxQueueSize: 2 });
    void c.sms.logIncoming({ text: 'a', userId: 'u1' }).catch(() => undefined);
    void c.sms.logIncoming({ text: 'b', userId: 'u2' }).catch(() => undefined);
    const ran: number[] = [];
    for (let i = 0; i < 3; i++) c.defer(() => void ran.push(i));
    const full = entries.filter((e) => e.message.includes('The tracking queue is full (maxQueueSize 2)'));
    expect(full).toHaveLength(1);
    expect(full[0].message).toContain('a record was dropped. Check that the endpoint is up and reachable (TRACKING_BASE_URL), or raise maxQueueSize.');
    await expect(c.flush({ timeoutMs: 20 })).resolves.toMatchObject({ pending: 2 });
    expect(ran).toEqual([]);
    expect(tallyLines(entries)).toEqual(['tracking: 3 records dropped: 3 record']);
    expect(c.stats()).toMatchObject({ dropped: 3, queued: 0, inFlight: 2 });
  });
});

describe('records the endpoint did not take', () => {
  it('given up: counted as given up, by kind', async () => {
    const { logger, entries } = capture();
    const c = client({ logger, onError: () => undefined, transport: answering({ status: 503 }), maxAttempts: 1 });
    await expect(c.sms.logIncoming({ text: 'a', userId: 'u1' })).rejects.toMatchObject({ reason: 'retries-exhausted' });
    await expect(c.flush()).resolves.toMatchObject({ givenUp: 0 });
    expect(tallyLines(entries)).toEqual(['tracking: 1 record given up: 1 incoming']);
  });

  it('with persistDir: counted as saved to persistDir, not as given up', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'losses-'));
    dirs.push(dir);
    const { logger, entries } = capture();
    const c = client({ logger, onError: () => undefined, transport: answering({ status: 503 }), maxAttempts: 1, persistDir: dir });
    await expect(c.logEvent({ type: 'revenueEvent', name: 'buy', userId: 'u1', amount: 5 })).rejects.toMatchObject({ reason: 'persisted' });
    await c.flush();
    expect(tallyLines(entries)).toEqual(['tracking: 1 record saved to persistDir: 1 revenueEvent']);
    expect(c.stats()).toMatchObject({ persisted: 1, failed: 0 });
  });

  it('refused (HTTP 400): the error quotes the start of the answer, with the API key masked', async () => {
    const errors: unknown[] = [];
    const c = client({ logger: false, onError: (error) => void errors.push(error), transport: answering({ status: 400, body: 'text: expected a string; apiKey loss-key-1 is fine' }) });
    await expect(c.sms.logIncoming({ text: 'a', userId: 'u1' })).rejects.toMatchObject({ reason: 'rejected' });
    const message = (errors[0] as Error).message;
    expect(message).toContain('refused the sms incoming record (HTTP 400); it is not retried: text: expected a string; apiKey ');
    expect(message).not.toContain('loss-key-1');
  });
});
