/**
 * A burst that never yields, with the endpoint unreachable: past maxQueueSize every record is
 * refused at once, and the refusals share one error per kind, so a caller that keeps every promise
 * holds a promise per record, not an error with a stack trace.
 */
import { describe, expect, it } from 'vitest';
import { TrackingClient, TrackingDeliveryError } from '../../src/index.js';

describe('a burst past maxQueueSize', () => {
  it('refuses at once, and the refusals of one kind share one error', async () => {
    const client = new TrackingClient({ apiKey: 'k-burst-1', baseUrl: 'http://127.0.0.1:9', logger: false, maxQueueSize: 100 });
    const promises = Array.from({ length: 1_000 }, (_, i) => client.sms.logIncoming({ text: `m${i}`, userId: `u${i % 10}` }));
    const refused = promises.slice(100);
    const errors = await Promise.all(refused.map((p) => p.then(() => undefined, (e: unknown) => e)));
    expect(errors.every((e) => e instanceof TrackingDeliveryError && e.reason === 'queue-full')).toBe(true);
    expect(new Set(errors).size).toBe(1);
    expect(client.stats().dropped).toBe(900);
    await client.close(50);
  });
});
