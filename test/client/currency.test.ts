/**
 * A revenue event's typed `currency` (issue 30, point 9): the client's `logEvent` and the
 * middleware's `trackEvent` send it as `metadata.currency`, upper-cased, where the endpoint reads
 * it; a value that is no currency code, or that contradicts `metadata.currency`, is refused with a
 * `TrackingValidationError` naming `currency`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrackingClient, TrackingValidationError } from '../../src/client/index.js';
import { moveCurrency } from '../../src/client/currency.js';
import { trackEvent } from '../../src/middleware/index.js';
import { adapterWith, send, startHarness, timed, userMessage, type Harness } from '../middleware/harness.js';

describe('moveCurrency', () => {
  const purchase = { type: 'revenueEvent', name: 'purchase', userId: 'u1', amount: 4.2 };

  it('moves a revenue event\'s currency to metadata.currency, upper-cased, keeping the rest of metadata, in a new object', () => {
    const event = { ...purchase, currency: 'eur', metadata: { sku: 'pz-1' } };
    expect(moveCurrency(event)).toEqual({ body: { ...purchase, metadata: { sku: 'pz-1', currency: 'EUR' } } });
    expect(event).toEqual({ ...purchase, currency: 'eur', metadata: { sku: 'pz-1' } });
    expect(moveCurrency({ ...purchase, currency: 'USD' })).toEqual({ body: { ...purchase, metadata: { currency: 'USD' } } });
  });

  it('leaves alone what has no currency field, other events, and drops a currency left undefined', () => {
    for (const body of [purchase, { type: 'customEvent', name: 'x', userId: 'u1', currency: 'nonsense' }, null, 'text', 7]) expect(moveCurrency(body)).toEqual({ body });
    expect(moveCurrency({ ...purchase, currency: undefined })).toEqual({ body: purchase });
    // The same currency in both places is one currency.
    expect(moveCurrency({ ...purchase, currency: 'eur', metadata: { currency: 'EUR' } })).toEqual({ body: { ...purchase, metadata: { currency: 'EUR' } } });
  });

  it.each([
    ['euro', '"euro"'], ['EU', '"EU"'], ['€', '"€"'], ['E1R', '"E1R"'], [' EUR', '" EUR"'], [978, 'number'], [null, 'object'], ['x'.repeat(30), JSON.stringify('x'.repeat(20))],
  ])('refuses %j, naming currency and what it takes', (currency, received) => {
    expect(moveCurrency({ ...purchase, currency })).toEqual({ issue: { path: 'currency', expected: 'an ISO 4217 currency code of three letters, such as "EUR"', received } });
  });

  it('refuses a currency that contradicts metadata.currency, and a metadata that is no object', () => {
    expect(moveCurrency({ ...purchase, currency: 'EUR', metadata: { currency: 'usd' } })).toEqual({ issue: { path: 'currency', expected: 'the currency metadata.currency gives ("usd"), or only one of the two', received: '"EUR"' } });
    expect(moveCurrency({ ...purchase, currency: 'EUR', metadata: { currency: 5 } })).toMatchObject({ issue: { path: 'currency', expected: 'the currency metadata.currency gives ("5"), or only one of the two' } });
    expect(moveCurrency({ ...purchase, currency: 'EUR', metadata: ['x'] })).toEqual({ issue: { path: 'metadata', expected: 'an object (it takes the currency as metadata.currency)', received: 'an array' } });
    expect(moveCurrency({ ...purchase, currency: 'EUR', metadata: 'x' })).toEqual({ issue: { path: 'metadata', expected: 'an object (it takes the currency as metadata.currency)', received: 'string' } });
    expect(moveCurrency({ ...purchase, currency: 'EUR', metadata: null })).toMatchObject({ issue: { path: 'metadata', received: 'object' } });
  });
});

describe('the client and the middleware, against the endpoint', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.close());

  it('logEvent sends currency as metadata.currency, and refuses a bad one with a TrackingValidationError naming currency', async () => {
    await h.client.logEvent({ type: 'revenueEvent', name: 'purchase', userId: 'u1', amount: 4.2, currency: 'eur' });
    const refused = await h.client.logEvent({ type: 'revenueEvent', name: 'purchase', userId: 'u1', amount: 4.2, currency: 'euro' }).then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(TrackingValidationError);
    expect((refused as TrackingValidationError).issues).toEqual([{ path: 'currency', expected: 'an ISO 4217 currency code of three letters, such as "EUR"', received: '"euro"' }]);
    const events = (await h.records()).filter((r) => r.type === 'event');
    expect(events.map((r) => r.body)).toEqual([{ type: 'revenueEvent', name: 'purchase', userId: 'u1', amount: 4.2, metadata: timed({ currency: 'EUR' }) }]);
  });

  it('trackEvent in a turn sends it the same way, and a bad one reaches onError', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      trackEvent(ctx, { type: 'revenueEvent', name: 'purchase', amount: 9.5, currency: 'usd', metadata: { sku: 'pz-1' } });
      trackEvent(ctx, { type: 'revenueEvent', name: 'tip', amount: 1, currency: 'dollars' });
    });
    await send(adapter, userMessage());
    const events = (await h.records()).filter((r) => r.type === 'event');
    expect(events.map((r) => r.body)).toEqual([{ type: 'revenueEvent', name: 'purchase', amount: 9.5, metadata: timed({ sku: 'pz-1', currency: 'USD' }), userId: 'user-1', conversationId: 'conv-1' }]);
    expect(h.errors).toHaveLength(1);
    expect(h.errors[0]).toBeInstanceOf(TrackingValidationError);
    expect((h.errors[0] as TrackingValidationError).issues[0]).toMatchObject({ path: 'currency', received: '"dollars"' });
  });
});

describe('the endpoint reads it', () => {
  it('as the revenue\'s currency: summary and transcript', async () => {
    const { startTrackingEndpoint } = await import('botbuilder-conversation-analytics-endpoint');
    const endpoint = await startTrackingEndpoint({ port: 0, dataFile: false, log: () => undefined });
    const client = new TrackingClient({ apiKey: 'test-key-123', baseUrl: endpoint.url, logger: false });
    try {
      await client.logEvent({ type: 'revenueEvent', name: 'purchase', userId: 'u1', amount: 4.2, currency: 'eur' });
      const summary = await (await fetch(`${endpoint.url}/api/summary`)).json() as { revenue: { byCurrency: Record<string, number> } };
      expect(summary.revenue.byCurrency).toEqual({ EUR: 4.2 });
      const { entries } = await (await fetch(`${endpoint.url}/api/transcript?user=u1`)).json() as { entries: { event?: { currency?: string } }[] };
      expect(entries[0].event?.currency).toBe('EUR');
    } finally {
      await client.close();
      await endpoint.close();
    }
  });
});
