import { afterEach, beforeEach, expect, it } from 'vitest';
import { TrackingClient, type TrackingClientOptions, type TrackingError } from '../../src/index.js';
import { startSink, type Sink } from '../helpers/sink.js';

let sink: Sink;
let client: TrackingClient | undefined;

beforeEach(async () => {
  sink = await startSink();
});

afterEach(async () => {
  await client?.close(1000);
  client = undefined;
  await sink.close();
});

function make(options: Partial<TrackingClientOptions> = {}): TrackingClient {
  client = new TrackingClient({ apiKey: 'forget-key-1', baseUrl: sink.url, logger: false, ...options });
  return client;
}

it('trackAndForget delivers the record as track does, and returns nothing', async () => {
  const c = make();
  expect(c.trackAndForget('sms', 'incoming', { text: 'hi', userId: 'u1' })).toBeUndefined();
  await c.flush();
  expect(sink.requests.map((r) => [r.query.platform, r.query.type, r.body])).toEqual([['sms', 'incoming', { text: 'hi', userId: 'u1' }]]);
  expect(c.stats().delivered).toBe(1);
});

it('a record trackAndForget refuses is reported through onError, never thrown', () => {
  const errors: TrackingError[] = [];
  const c = make({ onError: (e) => errors.push(e) });
  expect(() => c.trackAndForget('sms', 'incoming', { text: 'no user' })).not.toThrow();
  expect(errors.map((e) => e.name)).toEqual(['TrackingValidationError']);
  expect(sink.requests).toHaveLength(0);
});

it('records trackAndForget drops at a full queue are counted and each reported through onError', async () => {
  const errors: TrackingError[] = [];
  const c = make({ maxQueueSize: 2, onError: (e) => errors.push(e) });
  for (let i = 0; i < 5; i++) c.trackAndForget('sms', 'incoming', { text: `m${i}`, userId: 'u1' });
  expect(c.stats().dropped).toBe(3);
  expect(errors.map((e) => (e as { reason?: string }).reason)).toEqual(['queue-full', 'queue-full', 'queue-full']);
  await c.flush();
  expect(sink.requests.map((r) => r.body.text)).toEqual(['m0', 'm1']);
});

it('without onError, drops at a full queue are counted and warned about once per window, with the count of the rest', async () => {
  const warnings: { fields: Record<string, unknown>; message: string }[] = [];
  const logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (fields: Record<string, unknown>, message: string) => warnings.push({ fields, message }),
    error: () => undefined,
  };
  const c = make({ maxQueueSize: 1, logger });
  for (let i = 0; i < 4; i++) c.trackAndForget('sms', 'incoming', { text: `m${i}`, userId: 'u1' });
  expect(c.stats().dropped).toBe(3);
  expect(warnings).toHaveLength(1);
  expect(warnings[0].message).toMatch(/queue is full/);
  await c.close(1000);
  expect(warnings.map((w) => w.message).slice(1)).toEqual(['2 more records were refused or given up (queue-full) since the last report', 'tracking: 3 records dropped: 3 incoming']);
});
