/**
 * Channel payloads as published adapters and channels produce them: tolerated and mapped in full,
 * never refused.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Activity } from 'botbuilder';
import { adapterWith, send, startHarness, userMessage, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const page = { id: '1029384756', name: 'Pizza Page' };

/** A Messenger webhook messaging event as the channel (or botbuilder-adapter-facebook) puts it in channelData. */
function messengerActivity(messaging: Record<string, unknown>, fields: Partial<Activity> = {}): Partial<Activity> {
  return userMessage({ channelId: 'facebook', from: { id: 'psid-1', name: '' }, recipient: page, channelData: { sender: { id: 'psid-1' }, recipient: { id: page.id }, timestamp: 1_714_557_600_000, ...messaging }, ...fields });
}

describe('what published adapters send', () => {
  it('a Messenger sticker (message.text null) is recorded with an empty text, its attachment kept', async () => {
    const adapter = adapterWith(h, async () => undefined);
    const sticker = { mid: 'm_1', text: null, sticker_id: 369239263222822, attachments: [{ type: 'image', payload: { url: 'https://scontent.example/sticker.png', sticker_id: 369239263222822 } }] };
    await send(adapter, messengerActivity({ message: sticker }, { text: null as unknown as string }));
    const [incoming] = await h.records();
    expect(h.errors).toEqual([]);
    expect(incoming.body.entry[0].messaging[0].message).toEqual({ ...sticker, text: '' });
  });

  it('a numeric from.id (the Twitter adapter copies Twitter\'s numeric ids) becomes the same id as a string', async () => {
    const adapter = adapterWith(h, async (ctx) => void (await ctx.sendActivity('hi')));
    await send(adapter, userMessage({ channelId: 'twitter', from: { id: 1_234_567_890 as unknown as string, name: 'ada' }, text: 'hello' }));
    const records = await h.records();
    expect(h.errors).toEqual([]);
    expect(records.map((r) => [r.platform, r.type, r.body.userId])).toEqual([
      ['twitter', 'incoming', '1234567890'],
      ['twitter', 'outgoing', '1234567890'],
    ]);
  });

  it('a numeric sender.id in a Messenger messaging event becomes a string', async () => {
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, userMessage({ channelId: 'facebook', from: { id: '42', name: '' }, recipient: page, channelData: { sender: { id: 42 }, recipient: { id: 1029384756 }, timestamp: 1, message: { mid: 'm', text: 'hi' } } }));
    const [incoming] = await h.records();
    expect(h.errors).toEqual([]);
    expect(incoming.body.entry[0]).toMatchObject({ id: '1029384756', messaging: [{ sender: { id: '42' }, recipient: { id: '1029384756' } }] });
  });

  it('the twilio-sms channel goes to the sms platform', async () => {
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, userMessage({ channelId: 'twilio-sms', from: { id: '+15550100', name: '' }, text: 'STOP' }));
    expect((await h.records()).map((r) => [r.platform, r.body.userId])).toEqual([['sms', '+15550100']]);
  });
});

describe('channel events without a name (trackEventActivities)', () => {
  const event = (messaging: Record<string, unknown>) => messengerActivity(messaging, { type: 'event', text: undefined, name: undefined });

  it('a Messenger referral is a `referral` event with the spec\'s referral fields', async () => {
    const adapter = adapterWith(h, async () => undefined, { trackEventActivities: true });
    const referral = { ref: 'summer-promo', source: 'SHORTLINK', type: 'OPEN_THREAD', referer_uri: 'https://m.me/pizza?ref=summer-promo', ad_id: '6045246247433' };
    await send(adapter, event({ referral }));
    const [record] = await h.records();
    expect(h.errors).toEqual([]);
    expect(record).toMatchObject({ type: 'event', platform: 'facebook' });
    expect(record.body).toEqual({
      type: 'customEvent', name: 'referral', userId: 'psid-1', conversationId: 'conv-1',
      extraInfo: { ref: 'summer-promo', source: 'SHORTLINK', type: 'OPEN_THREAD', adid: '6045246247433', refereruri: 'https://m.me/pizza?ref=summer-promo', referral },
    });
  });

  it('opt-in, postback without text, thread-control handover, payment and checkout are events named after their kind', async () => {
    const adapter = adapterWith(h, async () => undefined, { trackEventActivities: true });
    const kinds = {
      optin: { ref: 'newsletter', user_ref: 'u-ref-1' },
      postback: { payload: 'GET_STARTED' },
      pass_thread_control: { new_owner_app_id: '263902037430900', metadata: 'to a human' },
      take_thread_control: { previous_owner_app_id: '263902037430900' },
      payment: { payload: 'order-7', amount: { currency: 'EUR', amount: '9.50' } },
      checkout_update: { payload: 'order-7', shipping_address: { country: 'NL' } },
    };
    for (const [kind, payload] of Object.entries(kinds)) await send(adapter, event({ [kind]: payload }));
    const records = await h.records();
    expect(h.errors).toEqual([]);
    expect(records.map((r) => [r.body.name, r.body.extraInfo])).toEqual(Object.entries(kinds));
  });

  it('delivery, read and echo receipts are skipped on purpose, even with trackEventActivities', async () => {
    const adapter = adapterWith(h, async () => undefined, { trackEventActivities: true });
    await send(adapter, event({ delivery: { mids: ['m_1'], watermark: 1 } }));
    await send(adapter, event({ read: { watermark: 1 } }));
    await send(adapter, messengerActivity({ message: { mid: 'm_2', text: 'sent by the page', is_echo: true, app_id: 1 } }));
    await send(adapter, event({ unknown_kind: { x: 1 } }));
    expect(await h.records()).toEqual([]);
  });

  it('without trackEventActivities, none of them is recorded', async () => {
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, event({ referral: { ref: 'x' } }));
    expect(await h.records()).toEqual([]);
  });
});
