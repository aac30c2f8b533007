/**
 * Channel payloads as published adapters and channels produce them: tolerated and mapped in full,
 * never refused.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Activity } from 'botbuilder';
import { trackEvent } from '../../src/middleware/index.js';
import { adapterWith, send, startHarness, timed, userMessage, type Harness } from './harness.js';

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

  it('a numeric conversation.id becomes the same id as a string on every event, and the message is still recorded', async () => {
    const adapter = adapterWith(h, async (ctx) => void trackEvent(ctx, { type: 'customEvent', name: 'opened' }), { trackEventActivities: true, trackMembership: true });
    const numeric = { id: 9_876_543_210 } as unknown as Activity['conversation'];
    await send(adapter, userMessage({ channelId: 'twitter', conversation: numeric }));
    await send(adapter, userMessage({ channelId: 'twitter', conversation: numeric, type: 'event', name: 'page-opened', value: { page: 'menu' } }));
    await send(adapter, userMessage({ channelId: 'twitter', conversation: numeric, type: 'conversationUpdate', membersAdded: [{ id: 'user-2', name: 'Bo' }] }));
    const records = await h.records();
    expect(h.errors).toEqual([]);
    // Each user's records come in order; two users' records may interleave, so they are compared per user.
    const byUser = (userId: string) => records.filter((r) => r.body.userId === userId).map((r) => [r.type, r.body.name ?? r.body.text, r.body.conversationId]);
    expect(byUser('user-1')).toEqual([
      ['incoming', 'hello', undefined],
      ['event', 'opened', '9876543210'],
      ['event', 'page-opened', '9876543210'],
      ['event', 'opened', '9876543210'],
      ['event', 'opened', '9876543210'],
    ]);
    expect(byUser('user-2')).toEqual([['event', 'memberAdded', '9876543210']]);
  });

  it('Twilio MMS (botbuilder-adapter-twilio-sms): incoming MediaUrl0…N are images by their content type; outgoing channelData.mediaUrl ones by their URL', async () => {
    const media = 'https://api.twilio.com/2010-04-01/Accounts/AC0123/Messages/MM0456/Media';
    const adapter = adapterWith(h, async (ctx) => {
      await ctx.sendActivity({ type: 'message', text: 'Here is your receipt', channelData: { mediaUrl: ['https://contoso.example/receipts/7.png', 'https://contoso.example/receipts/7.pdf'] } });
      await ctx.sendActivity({ type: 'message', text: 'And the map', channelData: { mediaUrl: 'https://contoso.example/map.jpg?sig=SECRET' } });
    });
    // What the adapter builds from Twilio's webhook: the form fields as channelData.
    const webhook = { MessageSid: 'MM0456', AccountSid: 'AC0123', From: '+15550100', To: '+15550199', Body: 'wrong pizza', NumMedia: '3', MediaUrl0: `${media}/ME1`, MediaContentType0: 'image/jpeg', MediaUrl1: `${media}/ME2`, MediaContentType1: 'video/mp4', MediaUrl2: `${media}/ME3`, MediaContentType2: 'image/png' };
    await send(adapter, userMessage({ channelId: 'twilio-sms', from: { id: '+15550100', name: '' }, recipient: { id: '+15550199', name: '' }, text: 'wrong pizza', channelData: webhook }));
    const records = await h.records();
    expect(h.errors).toEqual([]);
    expect(records.map((r) => [r.platform, r.type, r.body.text, r.body.images])).toEqual([
      ['sms', 'incoming', 'wrong pizza', [{ url: `${media}/ME1` }, { url: `${media}/ME3` }]],
      ['sms', 'outgoing', 'Here is your receipt', [{ url: 'https://contoso.example/receipts/7.png' }]],
      ['sms', 'outgoing', 'And the map', [{ url: 'https://contoso.example/map.jpg?sig=***' }]],
    ]);
    // The video stays where it was: in platformJson.
    expect(records[0].body.platformJson.channelData).toMatchObject({ MediaUrl1: `${media}/ME2`, MediaContentType1: 'video/mp4' });
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
      extraInfo: timed({ ref: 'summer-promo', source: 'SHORTLINK', type: 'OPEN_THREAD', adid: '6045246247433', refereruri: 'https://m.me/pizza?ref=summer-promo', referral }),
    });
  });

  it('opt-in, postback without text, thread-control handover, payment, checkout and message edit are events named after their kind', async () => {
    const adapter = adapterWith(h, async () => undefined, { trackEventActivities: true });
    const kinds = {
      optin: { ref: 'newsletter', user_ref: 'u-ref-1' },
      postback: { payload: 'GET_STARTED' },
      pass_thread_control: { new_owner_app_id: '263902037430900', metadata: 'to a human' },
      take_thread_control: { previous_owner_app_id: '263902037430900' },
      payment: { payload: 'order-7', amount: { currency: 'EUR', amount: '9.50' } },
      checkout_update: { payload: 'order-7', shipping_address: { country: 'NL' } },
      message_edit: { mid: 'm_AbCdEf1', text: 'two pizzas, not one', num_edit: 1 },
    };
    for (const [kind, payload] of Object.entries(kinds)) await send(adapter, event({ [kind]: payload }));
    const records = await h.records();
    expect(h.errors).toEqual([]);
    expect(records.map((r) => [r.body.name, r.body.extraInfo])).toEqual(Object.entries(kinds).map(([kind, payload]) => [kind, timed(payload)]));
  });

  it('delivery, read and echo receipts are skipped on purpose, even with trackEventActivities', async () => {
    const adapter = adapterWith(h, async () => undefined, { trackEventActivities: true });
    await send(adapter, event({ delivery: { mids: ['m_1'], watermark: 1 } }));
    await send(adapter, event({ read: { watermark: 1 } }));
    await send(adapter, messengerActivity({ message: { mid: 'm_2', text: 'sent by the page', is_echo: true, app_id: 1 } }));
    expect(await h.records()).toEqual([]);
  });

  it('without trackEventActivities, none of them is recorded', async () => {
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, event({ referral: { ref: 'x' } }));
    expect(await h.records()).toEqual([]);
  });
});
