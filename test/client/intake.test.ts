/**
 * The records' way in (intake.ts) at a full queue: with `persistDir`, a record is saved instead of
 * dropped, in the order the client took it, and the caller is told so; when it cannot be saved it
 * is dropped and reported; every record is counted once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrackingClient, TrackingDeliveryError, type TrackingClientOptions, type TrackingError } from '../../src/index.js';
import { startSink, type Sink } from '../helpers/sink.js';

const KEY = 'intake-key-6d03';
let sink: Sink;
let dir: string;
let clients: TrackingClient[];

beforeEach(async () => {
  sink = await startSink(() => ({ delayMs: 150 }));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bca-intake-'));
  clients = [];
});

afterEach(async () => {
  await Promise.all(clients.map((c) => c.close(1_000)));
  await sink.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function client(options: TrackingClientOptions = {}): TrackingClient {
  const c = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger: false, persistDir: dir, ...options });
  clients.push(c);
  return c;
}

const savedLines = () =>
  fs
    .readdirSync(dir)
    .flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n'))
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { platform: string; type: string; body: unknown; at: [number, number] });

describe('a full queue with persistDir', () => {
  it('saves the record, tells the caller where it went and counts it as persisted, not dropped', async () => {
    const c = client({ maxQueueSize: 1 });
    const kept = c.sms.logIncoming({ text: 'kept', userId: 'u' });
    const error = (await c.sms.logOutgoing({ text: 'saved', userId: 'u' }).catch((e: unknown) => e)) as TrackingDeliveryError;
    expect(error).toBeInstanceOf(TrackingDeliveryError);
    expect(error).toMatchObject({ reason: 'persisted' });
    expect(error.message).toBe(
      `The tracking queue is full (maxQueueSize 1): ${sink.url}/track is not taking records as fast as they are logged; the sms outgoing record was saved to persistDir and a client started with the same persistDir will send it.`,
    );
    expect(c.stats()).toMatchObject({ logged: 2, persisted: 1, dropped: 0 });
    await kept;
    const saved = savedLines();
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({ platform: 'sms', type: 'outgoing', body: { text: 'saved', userId: 'u' } });
    // Numbered in the order the client took records: the second.
    expect(saved[0].at[1]).toBe(2);
    expect(saved[0].at[0]).toBeGreaterThan(Date.now() - 60_000);
  });

  it('reports a record trackAndForget saves as persisted', async () => {
    const errors: TrackingError[] = [];
    const c = client({ maxQueueSize: 1, onError: (e) => errors.push(e) });
    c.trackAndForget('sms', 'incoming', { text: 'kept', userId: 'u' });
    c.trackAndForget('sms', 'incoming', { text: 'saved', userId: 'u' });
    expect(errors.map((e) => (e as TrackingDeliveryError).reason)).toEqual(['persisted']);
    expect(errors[0].message).toContain('the sms incoming record was saved to persistDir');
    expect(c.stats()).toMatchObject({ persisted: 1, dropped: 0 });
  });

  it('drops and reports a record it cannot save (maxPersistBytes)', async () => {
    const errors: TrackingError[] = [];
    const c = client({ maxQueueSize: 1, maxPersistBytes: 10, onError: (e) => errors.push(e) });
    void c.sms.logIncoming({ text: 'kept', userId: 'u' });
    const error = (await c.sms.logIncoming({ text: 'too big to save', userId: 'u' }).catch((e: unknown) => e)) as TrackingDeliveryError;
    expect(error).toMatchObject({ reason: 'queue-full' });
    expect(error.message).toContain('the sms incoming record was dropped');
    expect(c.stats()).toMatchObject({ persisted: 0, dropped: 1 });
    expect(savedLines()).toEqual([]);
  });
});
