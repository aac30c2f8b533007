import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestAdapter, type TurnContext } from 'botbuilder';
import type { Activity } from 'botbuilder';
import { setIntent, trackEvent } from '../../src/middleware/index.js';
import { botEventOf, customEventOf, endUserId, membershipEventsOf } from '../../src/middleware/events.js';
import { adapterWith, send, startHarness, timed, userMessage, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

describe('trackEvent', () => {
  it("fills in the end user's id and the conversation id from the turn", async () => {
    let accepted: boolean | undefined;
    const adapter = adapterWith(h, async (ctx) => {
      accepted = trackEvent(ctx, { type: 'revenueEvent', name: 'purchase', amount: 9.99, referenceNumber: 'A-1', metadata: { sku: 'cof-1' } });
    });
    await send(adapter, userMessage());
    expect(accepted).toBe(true);
    const events = (await h.records()).filter((r) => r.type === 'event');
    expect(events).toHaveLength(1);
    expect(events[0].body).toEqual({ type: 'revenueEvent', name: 'purchase', amount: 9.99, referenceNumber: 'A-1', metadata: timed({ sku: 'cof-1' }), userId: 'user-1', conversationId: 'conv-1' });
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

describe('event shapes', () => {
  it("an event's user is the activity's sender, or its recipient when the sender is the bot; an activity without either has none", () => {
    expect(endUserId({ from: { id: 'user-1' }, recipient: { id: 'bot-1' } })).toBe('user-1');
    expect(endUserId({ from: { id: 'bot-1', role: 'bot' }, recipient: { id: 'user-1' } })).toBe('user-1');
    expect(endUserId({ from: { id: 'user-1', role: 'user' }, recipient: { id: 'bot-1' } })).toBe('user-1');
    expect(endUserId({})).toBeUndefined();
    expect(endUserId({ from: { id: 'bot-1', role: 'bot' } })).toBeUndefined();
  });

  it('activities without from or recipient still give events, with an empty user id the client then reports', () => {
    expect(customEventOf({ type: 'event', name: 'opened' })).toEqual({ type: 'customEvent', name: 'opened', userId: '' });
    expect(botEventOf({ type: 'event', name: 'cart' })).toEqual({ type: 'customEvent', name: 'cart', userId: '' });
    expect(membershipEventsOf({ type: 'conversationUpdate', membersAdded: [{ id: 'user-1' }] })).toEqual([{ type: 'customEvent', name: 'memberAdded', userId: 'user-1' }]);
  });

  it('trackEvent returns false, and logs nothing, for an event that is not an object or a context that is not a turn context', async () => {
    const results: boolean[] = [];
    const adapter = adapterWith(h, async (ctx) => {
      results.push(trackEvent(ctx, 'purchase' as never), trackEvent(ctx, null as never));
    });
    await send(adapter, userMessage());
    results.push(trackEvent({} as never, { type: 'customEvent', name: 'x' }), trackEvent(null as never, { type: 'customEvent', name: 'x' }));
    expect(results).toEqual([false, false, false, false]);
    expect((await h.records()).map((r) => r.type)).toEqual(['incoming']);
    expect(h.errors).toEqual([]);
  });

  it("the adapters' own ContinueConversation and CreateConversation events are never recorded, even with trackEventActivities", async () => {
    const adapter = adapterWith(h, async () => undefined, { trackEventActivities: true });
    for (const name of ['ContinueConversation', 'CreateConversation', 'opened']) await send(adapter, userMessage({ type: 'event', name, text: undefined }));
    expect((await h.records()).map((r) => r.body.name)).toEqual(['opened']);
  });

  it('an incoming event with an empty name is a nameless channel event: named after its kind, or not recorded (and nothing reported) when it has none', async () => {
    const adapter = adapterWith(h, async () => undefined, { trackEventActivities: true });
    await send(adapter, userMessage({ type: 'event', name: '', text: undefined, channelData: { optin: { ref: 'news' } } }));
    await send(adapter, userMessage({ type: 'event', name: undefined, text: undefined }));
    await send(adapter, userMessage({ type: 'event', name: undefined, text: undefined, channelData: 'text' }));
    await send(adapter, userMessage({ type: 'event', name: undefined, text: undefined, channelData: { unknown_kind: { x: 1 } } }));
    // A kind present but null is not that kind: the next one is used.
    await send(adapter, userMessage({ type: 'event', name: undefined, text: undefined, channelData: { referral: null, postback: 'GET_STARTED' } }));
    const records = await h.records();
    expect(h.errors).toEqual([]);
    expect(records.map((r) => [r.body.name, r.body.extraInfo])).toEqual([['optin', timed({ ref: 'news' })], ['postback', timed({ value: 'GET_STARTED' })]]);
  });

  it("a referral's fields under the spec's names: the first of ad_id and adid wins, and fields that are not strings are left out", async () => {
    const adapter = adapterWith(h, async () => undefined, { trackEventActivities: true });
    const referral = { ad_id: 'first', adid: 'second', refereruri: 'https://a.example/', referer_uri: 'https://b.example/', ref: 5 };
    await send(adapter, userMessage({ type: 'event', name: undefined, text: undefined, channelData: { referral } }));
    const [record] = await h.records();
    expect(record.body.extraInfo).toEqual(timed({ adid: 'first', refereruri: 'https://b.example/', referral }));
  });

  it('a message that is a delivery or read receipt is not recorded, nor is an echo', async () => {
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, userMessage({ channelId: 'facebook', channelData: { delivery: { mids: ['m_1'] } } }));
    await send(adapter, userMessage({ channelId: 'facebook', channelData: { read: { watermark: 1 } } }));
    await send(adapter, userMessage({ channelId: 'facebook', channelData: { message: { is_echo: true } } }));
    await send(adapter, userMessage({ channelId: 'facebook', text: 'real', channelData: { message: { is_echo: false } } }));
    expect((await h.records()).map((r) => r.type)).toEqual(['incoming']);
  });

  it('trackHandoffs records only the two handoff events, not other events in either direction', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      if (ctx.activity.type === 'message') await ctx.sendActivity({ type: 'event', name: 'handoff.other' } as Partial<Activity>);
    }, { trackHandoffs: true });
    await send(adapter, userMessage({ text: 'hi' }));
    await send(adapter, userMessage({ type: 'event', name: 'other', text: undefined }));
    await send(adapter, userMessage({ type: 'event', name: 'handoff.status', text: undefined, value: { state: 'completed' } }));
    expect((await h.records()).map((r) => [r.type, r.body.name ?? r.body.text])).toEqual([['incoming', 'hi'], ['event', 'handoff.status']]);
  });

  it("the bot's events: a nameless one is not recorded, one without a value has only its time in extraInfo, a non-object value is under `value`", async () => {
    const adapter = adapterWith(h, async (ctx) => {
      await ctx.sendActivities([
        { type: 'event', name: '' },
        { type: 'event' },
        { type: 'event', name: 'plain' },
        { type: 'event', name: 'nulled', value: null },
        { type: 'event', name: 'counted', value: 0 },
      ] as Partial<Activity>[]);
    }, { trackBotEvents: true });
    await send(adapter, userMessage({ text: 'go' }));
    const events = (await h.records()).filter((r) => r.type === 'event').map((r) => r.body);
    expect(h.errors).toEqual([]);
    expect(events).toEqual([
      { type: 'customEvent', name: 'plain', userId: 'user-1', conversationId: 'conv-1', extraInfo: timed() },
      { type: 'customEvent', name: 'nulled', userId: 'user-1', conversationId: 'conv-1', extraInfo: timed() },
      { type: 'customEvent', name: 'counted', userId: 'user-1', conversationId: 'conv-1', extraInfo: timed({ value: 0 }) },
    ]);
  });

  it('membership: members without an id, with an empty id, or the bot itself give no event; a member without a name has only its time in extraInfo', async () => {
    const adapter = adapterWith(h, async () => undefined, { trackMembership: true });
    await send(adapter, userMessage({ type: 'conversationUpdate', text: undefined, membersAdded: [{ name: 'no id' }, { id: '', name: 'empty' }, { id: 'bot-1', name: 'Shop bot' }, { id: 'user-5' }, { id: 'user-6', name: 42 }] as never, membersRemoved: 'not a list' as never }));
    const bodies = (await h.records()).map((r) => r.body);
    // None given with an empty user, which the client would have refused.
    expect(h.errors).toEqual([]);
    expect(bodies).toEqual([
      { type: 'customEvent', name: 'memberAdded', userId: 'user-5', conversationId: 'conv-1', extraInfo: timed() },
      { type: 'customEvent', name: 'memberAdded', userId: 'user-6', conversationId: 'conv-1', extraInfo: timed() },
    ]);
  });
});
