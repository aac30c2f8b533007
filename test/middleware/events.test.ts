import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestAdapter, type TurnContext } from 'botbuilder';
import { setIntent, trackEvent } from '../../src/middleware/index.js';
import { adapterWith, send, startHarness, userMessage, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

describe('trackEvent', () => {
  it("fills in the end user's id and the conversation id from the turn", async () => {
    const adapter = adapterWith(h, async (ctx) => {
      trackEvent(ctx, { type: 'revenueEvent', name: 'purchase', amount: 9.99, referenceNumber: 'A-1', metadata: { sku: 'cof-1' } });
    });
    await send(adapter, userMessage());
    const events = (await h.records()).filter((r) => r.type === 'event');
    expect(events).toHaveLength(1);
    expect(events[0].body).toEqual({ type: 'revenueEvent', name: 'purchase', amount: 9.99, referenceNumber: 'A-1', metadata: { sku: 'cof-1' }, userId: 'user-1', conversationId: 'conv-1' });
  });

  it('keeps a user id and conversation id the bot gave', async () => {
    const adapter = adapterWith(h, async (ctx) => void trackEvent(ctx, { type: 'customEvent', name: 'x', userId: 'crm-7', conversationId: 'case-3' }));
    await send(adapter, userMessage());
    const event = (await h.records()).find((r) => r.type === 'event');
    expect(event?.body).toMatchObject({ userId: 'crm-7', conversationId: 'case-3' });
  });

  it("sends the event on the platform of the turn's channel, with version 11.1.0-rest", async () => {
    const adapter = adapterWith(h, async (ctx) => void trackEvent(ctx, { type: 'shareEvent', name: 'shared', sharedMessage: { text: 'look' } }));
    await send(adapter, userMessage({ channelId: 'sms' }));
    await send(adapter, userMessage({ channelId: 'webchat' }));
    const events = (await h.records()).filter((r) => r.type === 'event');
    expect(events.map((r) => [r.platform, r.v])).toEqual([
      ['sms', '11.1.0-rest'],
      ['universal', '11.1.0-rest'],
    ]);
  });

  it('sends the event on the platform given in its options', async () => {
    const adapter = adapterWith(h, async (ctx) => void trackEvent(ctx, { type: 'pageLaunchEvent', name: 'opened', extraInfo: { url: 'https://x.example' } }, { platform: 'directMessage' }));
    await send(adapter, userMessage());
    expect((await h.records()).find((r) => r.type === 'event')?.platform).toBe('twitter');
  });

  it('is queued after the incoming message it follows, for the same user', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      await ctx.sendActivity('thanks');
      trackEvent(ctx, { type: 'customEvent', name: 'after-reply' });
    });
    await send(adapter, userMessage());
    expect((await h.records()).map((r) => r.type)).toEqual(['incoming', 'outgoing', 'event']);
  });

  it('an event logged before the first reply is recorded after the incoming message and before the reply', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      trackEvent(ctx, { type: 'customEvent', name: 'before-reply' });
      setIntent(ctx, 'LateButBeforeReply');
      await ctx.sendActivity('thanks');
    });
    await send(adapter, userMessage());
    const records = await h.records();
    expect(records.map((r) => r.type)).toEqual(['incoming', 'event', 'outgoing']);
    expect(records[0].body.intent).toEqual({ name: 'LateButBeforeReply', inputs: [] });
  });

  it('an event logged in a turn without a reply is recorded after the incoming message', async () => {
    const adapter = adapterWith(h, async (ctx) => void trackEvent(ctx, { type: 'customEvent', name: 'silent' }));
    await send(adapter, userMessage());
    expect((await h.records()).map((r) => r.type)).toEqual(['incoming', 'event']);
  });

  it('returns false and sends nothing when no tracking middleware ran in the turn', async () => {
    let accepted: boolean | undefined;
    const adapter = new TestAdapter(async (ctx) => {
      accepted = trackEvent(ctx, { type: 'customEvent', name: 'lost' });
    });
    await adapter.send('hi').startTest();
    expect(accepted).toBe(false);
    expect(await h.records()).toEqual([]);
  });

  it('returns false instead of throwing when called after the turn ended', async () => {
    let saved: TurnContext | undefined;
    const adapter = adapterWith(h, async (ctx) => {
      saved = ctx;
    });
    await send(adapter, userMessage());
    expect(trackEvent(saved!, { type: 'customEvent', name: 'late' })).toBe(false);
  });

  it('an invalid event is reported through the client, not thrown', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      trackEvent(ctx, { type: 'revenueEvent', name: 'purchase', amount: Number.NaN });
    });
    await send(adapter, userMessage());
    expect((await h.records()).filter((r) => r.type === 'event')).toEqual([]);
    expect(h.errors.map((e) => e.name)).toEqual(['TrackingValidationError']);
    expect(h.errors[0].message).toContain('amount');
  });
});
