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

/** Saves `count` sms records of user `saved-u` as an earlier process would have; returns the file's size. */
function saveBacklog(count: number): number {
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, i + 1], body: { text: `saved ${i}`, userId: 'saved-u' } }));
  fs.writeFileSync(path.join(dir, 'records-1-earlier.ndjson'), `${lines.join('\n')}\n`);
  return fs.statSync(path.join(dir, 'records-1-earlier.ndjson')).size;
}

async function waitFor(check: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** How a promise has settled within `ms`: its rejection, or 'unsettled'. */
const rejectionWithin = (promise: Promise<unknown>, ms = 500) =>
  Promise.race([promise.then(() => 'resolved', (e: unknown) => e), new Promise((r) => setTimeout(() => r('unsettled'), ms))]);

describe('records held behind their user’s saved records (a replay under way)', () => {
  // maxQueueSize 4: the replay queues one saved record a turn and leaves one place free; with the
  // endpoint slow, three of saved-u's records end up queued, and the rest wait on disk.
  async function replayUnderWay(options: (backlogBytes: number) => TrackingClientOptions = () => ({})) {
    const backlogBytes = saveBacklog(10);
    sink.behave(() => ({ delayMs: 5_000 }));
    const errors: TrackingError[] = [];
    const c = client({ maxQueueSize: 4, maxConcurrency: 1, onError: (e) => errors.push(e), ...options(backlogBytes) });
    // saved-u still has saved records waiting: this one is held behind them.
    const held = c.sms.logIncoming({ text: 'live', userId: 'saved-u' });
    await waitFor(() => c.stats().inFlight === 1 && c.stats().queued === 3);
    return { c, held, errors };
  }

  it('counts held records against maxQueueSize: with queued and held records making exactly maxQueueSize, the next record is saved, not queued', async () => {
    const { c } = await replayUnderWay();
    // Three queued (one in flight) and one held: the queue itself has room for one more.
    expect(c.stats()).toMatchObject({ queued: 3, inFlight: 1, persisted: 0 });
    const refused = c.sms.logIncoming({ text: 'other', userId: 'v' });
    expect(c.stats()).toMatchObject({ queued: 3, inFlight: 1, persisted: 1, dropped: 0 });
    const error = (await refused.catch((e: unknown) => e)) as TrackingDeliveryError;
    expect(error).toMatchObject({ reason: 'persisted' });
    expect(error.message).toBe(
      `The tracking queue is full (maxQueueSize 4): ${sink.url}/track is not taking records as fast as they are logged; the sms incoming record was saved to persistDir and a client started with the same persistDir will send it.`,
    );
    expect(savedLines().filter((l) => (l.body as { text: string }).text === 'other')).toHaveLength(1);
  });

  it('when close() comes first, saves a held record after its user’s saved records, rejects it as persisted and counts it so', async () => {
    const { c, held, errors } = await replayUnderWay();
    await c.close(100);
    const error = (await rejectionWithin(held)) as TrackingDeliveryError;
    expect(error).toBeInstanceOf(TrackingDeliveryError);
    expect(error.reason).toBe('persisted');
    expect(error.message).toBe(
      "The sms incoming record waited behind its user's records saved by an earlier process; the client closed first, so it was saved to persistDir after them, and a client started with the same persistDir will send them in order.",
    );
    expect(errors).toContain(error);
    // Every record saved at close is reported as persisted, and counted once: the held one and the three queued saved ones.
    expect(errors.filter((e) => (e as TrackingDeliveryError).reason === 'persisted')).toHaveLength(4);
    expect(c.stats()).toMatchObject({ persisted: 4, failed: 0, dropped: 0 });
    const texts = savedLines().map((l) => (l.body as { text: string }).text);
    expect(texts).toHaveLength(11);
    expect(texts.at(-1)).toBe('live');
    expect(sink.requests.map((r) => r.body.text)).not.toContain('live');
  });

  it('when close() comes first and the held record cannot be saved (maxPersistBytes), gives it up as close-deadline, reports it and counts it failed', async () => {
    // Room for the saved records written back at close (on a line of their own), not for one more record.
    const { c, held, errors } = await replayUnderWay((backlogBytes) => ({ maxPersistBytes: backlogBytes + 20 }));
    await c.close(100);
    const error = (await rejectionWithin(held)) as TrackingDeliveryError;
    expect(error).toBeInstanceOf(TrackingDeliveryError);
    expect(error.reason).toBe('close-deadline');
    expect(error.message).toBe(
      "The sms incoming record waited behind its user's records saved by an earlier process, and could not be saved after them when the client closed (maxPersistBytes, or the disk); it was not sent.",
    );
    expect(errors).toContain(error);
    expect(c.stats()).toMatchObject({ failed: 1, persisted: 3 });
    const texts = savedLines().map((l) => (l.body as { text: string }).text);
    expect(texts).toHaveLength(10);
    expect(texts).not.toContain('live');
  });
});
