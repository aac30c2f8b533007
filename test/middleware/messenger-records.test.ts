import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CardFactory, MessageFactory, type Activity } from 'botbuilder';
import { connectorUri, messengerAttachments, messengerIncoming, messengerOutgoing } from '../../src/middleware/map-messenger.js';
import { adapterWith, send, startHarness, userMessage, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

/** What the Facebook channel puts in channelData: the original messaging event. */
const facebookEvent = {
  sender: { id: 'psid-42' },
  recipient: { id: 'page-7' },
  timestamp: 1_700_000_000_123,
  message: { mid: 'm_abc', seq: 12, text: 'hi page' },
};

function facebookMessage(fields: Partial<Activity> = {}): Partial<Activity> {
  return userMessage({ channelId: 'facebook', from: { id: 'psid-42', name: 'Ada' }, recipient: { id: 'page-7', name: 'Page' }, text: 'hi page', ...fields });
}

describe('messenger incoming', () => {
  it('is the webhook payload built from the messaging event the channel put in channelData', async () => {
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, facebookMessage({ channelData: facebookEvent }));
    const [incoming] = await h.records();
    expect(incoming).toMatchObject({ type: 'incoming', platform: 'facebook' });
    expect(incoming.body).toEqual({ object: 'page', entry: [{ id: 'page-7', time: 1_700_000_000_123, messaging: [facebookEvent] }] });
  });

  it('is built from the activity when the channel gave no messaging event', async () => {
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, facebookMessage({ id: 'act-9', timestamp: new Date('2024-05-01T10:00:00.000Z'), channelData: undefined }));
    const [incoming] = await h.records();
    const time = Date.parse('2024-05-01T10:00:00.000Z');
    expect(incoming.body).toEqual({
      object: 'page',
      entry: [{ id: 'page-7', time, messaging: [{ sender: { id: 'psid-42' }, recipient: { id: 'page-7' }, timestamp: time, message: { mid: 'act-9', text: 'hi page' } }] }],
    });
  });

  it('a postback event from channelData is kept as the platform sent it', async () => {
    const postback = { sender: { id: 'psid-42' }, recipient: { id: 'page-7' }, timestamp: 1_700_000_000_999, postback: { title: 'Pizza', payload: 'order pizza' } };
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, facebookMessage({ text: 'order pizza', channelData: postback }));
    const [incoming] = await h.records();
    expect(incoming.body.entry[0].messaging[0]).toEqual(postback);
    expect(h.errors).toEqual([]);
  });
});

describe('messenger outgoing', () => {
  it("carries the channel's message id from the ResourceResponse, the recipient, and the send request", async () => {
    let responseId: string | undefined;
    const adapter = adapterWith(h, async (ctx) => {
      responseId = (await ctx.sendActivity('Hello from the page'))?.id;
    });
    await send(adapter, facebookMessage({ channelData: facebookEvent, id: 'm_abc' }));
    const outgoing = (await h.records())[1];
    expect(responseId).toMatch(/.+/);
    expect(outgoing).toMatchObject({ type: 'outgoing', platform: 'facebook', v: '11.1.0-rest' });
    expect(outgoing.body).toEqual({
      json: { recipient: { id: 'psid-42' }, message: { text: 'Hello from the page' } },
      method: 'POST',
      uri: 'https://channel.example/v3/conversations/conv-1/activities/m_abc',
      responseBody: { recipient_id: 'psid-42', message_id: responseId },
    });
  });

  it('records cards as templates and suggested actions as quick replies', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      const reply = MessageFactory.attachment(CardFactory.heroCard('Menu', 'Pick one', ['https://img.example/m.png'], [{ type: 'postBack', title: 'Pizza', value: 'order pizza' }]));
      reply.suggestedActions = { to: [], actions: [{ type: 'imBack', title: 'Help', value: 'help' }] };
      await ctx.sendActivity(reply);
    });
    await send(adapter, facebookMessage());
    const { message } = (await h.records())[1].body.json;
    expect(message).toEqual({
      text: '',
      attachments: [{ type: 'template', payload: { template_type: 'generic', elements: [{ title: 'Menu', subtitle: 'Pick one', image_url: 'https://img.example/m.png', buttons: [{ type: 'postback', title: 'Pizza', payload: 'order pizza' }] }] } }],
      quick_replies: [{ content_type: 'text', title: 'Help', payload: 'help' }],
    });
  });

  it('has no access token unless one is configured', async () => {
    const adapter = adapterWith(h, async (ctx) => void (await ctx.sendActivity('hi')));
    await send(adapter, facebookMessage());
    expect((await h.records())[1].body).not.toHaveProperty('qs');
  });

  it('carries the configured page access token as qs.access_token', async () => {
    const adapter = adapterWith(h, async (ctx) => void (await ctx.sendActivity('hi')), { messengerAccessToken: 'EAAG-page-token' });
    await send(adapter, facebookMessage());
    expect((await h.records())[1].body.qs).toEqual({ access_token: 'EAAG-page-token' });
  });

  it('never writes the access token to the log, even with debug logging on', async () => {
    const lines: string[] = [];
    const log = (fields: Record<string, unknown>, message: string) => void lines.push(`${message} ${JSON.stringify(fields)}`);
    const debug = await startHarness({ debug: true, logger: { debug: log, info: log, warn: log, error: log } });
    try {
      const adapter = adapterWith(debug, async (ctx) => void (await ctx.sendActivity('hi')), { messengerAccessToken: 'EAAG-page-token' });
      await send(adapter, facebookMessage());
      expect((await debug.records())[1].body.qs).toEqual({ access_token: 'EAAG-page-token' });
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('\n')).not.toContain('EAAG-page-token');
    } finally {
      await debug.close();
    }
  });
});

describe('messenger shapes', () => {
  const at = Date.parse('2024-05-01T10:00:00.000Z');

  it('a whole webhook payload in channelData is used as it is, with the intent on every messaging event and numeric ids as strings', () => {
    const payload = { object: 'page', entry: [{ id: 'page-7', time: 5, messaging: [{ sender: { id: 42 }, recipient: { id: 7 }, timestamp: 5, message: { text: null } }, 'odd'] }, { id: 'page-8', time: 6 }] };
    const body = messengerIncoming({ channelData: payload }, { name: 'Greet', inputs: [] }, at);
    expect(body).toEqual({ object: 'page', entry: [{ id: 'page-7', time: 5, messaging: [{ sender: { id: '42' }, recipient: { id: '7' }, timestamp: 5, message: { text: '' }, intent: { name: 'Greet', inputs: [] } }, 'odd'] }, { id: 'page-8', time: 6 }] });
    // An entry list that is empty, or an `object` that is not a string, is not a webhook payload.
    const built = messengerIncoming({ id: 'm1', text: 'hi', from: { id: 'u' }, recipient: { id: 'p' }, channelData: { object: 'page', entry: [] } }, undefined, at);
    expect(built.entry[0].messaging[0]).toEqual({ sender: { id: 'u' }, recipient: { id: 'p' }, timestamp: at, message: { mid: 'm1', text: 'hi' } });
    expect(messengerIncoming({ from: { id: 'u' }, channelData: { object: 1, entry: [{}] } }, undefined, at).entry[0].messaging[0]).toMatchObject({ sender: { id: 'u' } });
  });

  it('a messaging event in channelData gets the recipient and timestamp from the activity when it lacks them, and no intent key without an intent', () => {
    const body = messengerIncoming({ recipient: { id: 'page-7' }, timestamp: '2024-05-01T10:00:00.000Z', channelData: { sender: { id: 'psid' }, message: { text: 'x' } } }, undefined, 1);
    expect(body).toEqual({ object: 'page', entry: [{ id: 'page-7', time: at, messaging: [{ sender: { id: 'psid' }, recipient: { id: 'page-7' }, timestamp: at, message: { text: 'x' } }] }] });
    expect('intent' in body.entry[0].messaging[0]).toBe(false);
    // Its own recipient and numeric timestamp are kept; a sender without a usable id means it is not a messaging event.
    expect(messengerIncoming({ recipient: { id: 'other' }, channelData: { sender: { id: 'psid' }, recipient: { id: 'page-9' }, timestamp: 77 } }, undefined, 1).entry[0]).toMatchObject({ id: 'page-9', time: 77 });
    expect(messengerIncoming({ from: { id: 'u' }, text: 't', channelData: { sender: { id: null } } }, undefined, 1).entry[0].messaging[0]).toEqual({ sender: { id: 'u' }, recipient: { id: '' }, timestamp: 1, message: { text: 't' } });
    // Without a timestamp anywhere, the time the turn received it.
    expect(messengerIncoming({ channelData: { sender: { id: 'psid' } } }, undefined, 99).entry[0].time).toBe(99);
  });

  it('an activity with neither from nor recipient is still mapped, in both directions and without throwing: empty ids where the sides are unknown, the text and message id kept', () => {
    const bare = { type: 'message', id: 'm9', text: 'who am I?' };
    expect(messengerIncoming(bare, { name: 'Ask', inputs: [] }, at)).toEqual({
      object: 'page',
      entry: [{ id: '', time: at, messaging: [{ sender: { id: '' }, recipient: { id: '' }, timestamp: at, message: { mid: 'm9', text: 'who am I?' }, intent: { name: 'Ask', inputs: [] } }] }],
    });
    expect(messengerOutgoing(bare, { id: 'sent-1' }, undefined)).toEqual({ json: { recipient: { id: '' }, message: { text: 'who am I?' } }, method: 'POST', responseBody: { recipient_id: '', message_id: 'sent-1' } });
    // from and recipient present but null, as some adapters send them.
    const nulls = { ...bare, from: null, recipient: null } as never;
    expect(messengerIncoming(nulls, undefined, at).entry[0].messaging[0]).toMatchObject({ sender: { id: '' }, recipient: { id: '' } });
    expect(messengerOutgoing(nulls, undefined, undefined).json.recipient).toEqual({ id: '' });
  });

  it('a message built from the activity has its attachments: images, video, audio, files, cards as templates; inline data is left out', () => {
    const body = messengerIncoming({
      from: { id: 'u' }, text: undefined,
      attachments: [
        { contentType: 'image/png', contentUrl: 'https://cdn.example/a.png?sig=abc' },
        { contentType: 'video/mp4', contentUrl: 'https://cdn.example/v.mp4' },
        { contentType: 'audio/mpeg', contentUrl: 'https://cdn.example/s.mp3' },
        { contentType: 'application/pdf', contentUrl: 'https://cdn.example/f.pdf' },
        { contentUrl: 'https://cdn.example/photo.JPG' },
        { contentType: 'image/png', contentUrl: 'data:image/png;base64,AAAA' },
        { contentType: 'application/json', content: { type: 'template', payload: { template_type: 'button' } } },
        { contentType: 'application/x-thing', content: { a: 1 } },
        { content: 'plain' },
        { contentType: 'text/plain' },
        null,
      ],
    } as never, undefined, 1);
    expect(body.entry[0].messaging[0].message).toEqual({
      text: '',
      attachments: [
        { type: 'image', payload: { url: 'https://cdn.example/a.png?sig=***' } },
        { type: 'video', payload: { url: 'https://cdn.example/v.mp4' } },
        { type: 'audio', payload: { url: 'https://cdn.example/s.mp3' } },
        { type: 'file', payload: { url: 'https://cdn.example/f.pdf' } },
        { type: 'image', payload: { url: 'https://cdn.example/photo.JPG' } },
        { type: 'template', payload: { template_type: 'button' } },
        { type: 'application/x-thing', payload: { a: 1 } },
        { type: 'template', payload: 'plain' },
      ],
    });
  });

  it('a hero or thumbnail card is a generic template: openUrl buttons as web_url, others as postback, subtitle else text, no empty buttons', () => {
    const attachments = messengerAttachments({ attachments: [
      { contentType: 'application/vnd.microsoft.card.thumbnail', content: { title: 'T', text: 'body text', images: [{ url: 'https://img.example/t.png' }], buttons: [{ type: 'openUrl', title: 'Site', value: 'https://shop.example/' }, { type: 'imBack', title: 'Buy', value: 'buy' }, 'odd'] } },
      { contentType: 'application/vnd.microsoft.card.hero', content: JSON.stringify({ title: 'H', subtitle: 'S', text: 'ignored' }) },
      { contentType: 'application/vnd.microsoft.card.hero', content: { images: ['not an object'] } },
    ] });
    expect(attachments).toEqual([
      { type: 'template', payload: { template_type: 'generic', elements: [{ title: 'T', subtitle: 'body text', image_url: 'https://img.example/t.png', buttons: [{ type: 'web_url', title: 'Site', url: 'https://shop.example/' }, { type: 'postback', title: 'Buy', payload: 'buy' }] }] } },
      { type: 'template', payload: { template_type: 'generic', elements: [{ title: 'H', subtitle: 'S' }] } },
      { type: 'template', payload: { template_type: 'generic', elements: [{}] } },
    ]);
    expect(messengerAttachments({ attachments: 'none' } as never)).toEqual([]);
  });

  it('an attachment whose fields throw when read is left out, the others kept', () => {
    const hostile = Object.defineProperty({}, 'contentType', { enumerable: true, get: () => { throw new Error('boom'); } });
    expect(messengerAttachments({ attachments: [hostile, { contentType: 'image/png', contentUrl: 'https://x.example/i.png' }] } as never)).toEqual([{ type: 'image', payload: { url: 'https://x.example/i.png' } }]);
  });

  it('outgoing: quick replies from suggested actions (title else value), native channelData attachment and quick replies win, message id from the response else the activity', () => {
    const record = messengerOutgoing({
      recipient: { id: 'psid' }, text: 'Pick', id: 'act-1',
      suggestedActions: { actions: [{ type: 'imBack', value: 'yes' }, { type: 'imBack', title: 'No', value: 'no' }, null] },
    } as never, undefined, undefined);
    expect(record).toEqual({
      json: { recipient: { id: 'psid' }, message: { text: 'Pick', quick_replies: [{ content_type: 'text', title: 'yes', payload: 'yes' }, { content_type: 'text', title: 'No', payload: 'no' }] } },
      method: 'POST',
      responseBody: { recipient_id: 'psid', message_id: 'act-1' },
    });
    const native = messengerOutgoing({ recipient: { id: 'psid' }, suggestedActions: { actions: [{ value: 'x' }] }, channelData: { attachment: { type: 'template', payload: {} }, quick_replies: [{ content_type: 'location' }] } } as never, { id: 'm_9' }, { name: 'Ask', inputs: [] }, { uri: 'https://graph.example/send', accessToken: '' });
    expect(native).toEqual({
      json: { recipient: { id: 'psid' }, message: { text: '', attachment: { type: 'template', payload: {} }, quick_replies: [{ content_type: 'location' }] } },
      method: 'POST', uri: 'https://graph.example/send', responseBody: { recipient_id: 'psid', message_id: 'm_9' }, intent: { name: 'Ask', inputs: [] },
    });
    // No id anywhere, or an empty one: no message_id; no suggested actions: no quick_replies.
    expect(messengerOutgoing({ recipient: { id: 'psid' }, id: '', suggestedActions: { actions: [] }, channelData: { quick_replies: 'x', attachment: 'y' } } as never, { id: '' }, undefined)).toEqual({ json: { recipient: { id: 'psid' }, message: { text: '' } }, method: 'POST', responseBody: { recipient_id: 'psid' } });
  });

  it("outgoing: a sticker and the Send API's fields the Facebook adapter copies from channelData are kept (sticker in the message, the others beside it)", () => {
    const record = messengerOutgoing({ recipient: { id: 'psid' }, channelData: { sticker_id: 369239263222822, messaging_type: 'MESSAGE_TAG', tag: 'POST_PURCHASE_UPDATE', notification_type: 'SILENT_PUSH', persona_id: 'p-1', unknown_field: 'x' } } as never, { id: 'm_1' }, undefined);
    expect(record.json).toEqual({
      recipient: { id: 'psid' },
      message: { text: '', sticker_id: 369239263222822 },
      messaging_type: 'MESSAGE_TAG', tag: 'POST_PURCHASE_UPDATE', notification_type: 'SILENT_PUSH', persona_id: 'p-1',
    });
    expect(messengerOutgoing({ recipient: { id: 'psid' }, channelData: { sender_action: 'typing_on', sticker_id: { odd: 1 }, tag: 5 } } as never, undefined, undefined).json).toEqual({ recipient: { id: 'psid' }, message: { text: '' }, sender_action: 'typing_on' });
  });

  it("outgoing uri: where the bot posted the reply, with the conversation and reply ids escaped, trailing slashes trimmed and secrets masked; none without serviceUrl or conversation", () => {
    expect(connectorUri({ serviceUrl: 'https://channel.example//', conversation: { id: 'a/b c' }, replyToId: 'r?1' })).toBe('https://channel.example/v3/conversations/a%2Fb%20c/activities/r%3F1');
    expect(connectorUri({ serviceUrl: 'https://user:pw@channel.example/', conversation: { id: 'c' } })).toBe('https://channel.example/v3/conversations/c/activities');
    expect(connectorUri({ serviceUrl: 'https://channel.example/', conversation: { id: 'c\ud800' }, replyToId: '' })).toBe('https://channel.example/v3/conversations/c%EF%BF%BD/activities');
    expect(connectorUri({ serviceUrl: '', conversation: { id: 'c' } })).toBeUndefined();
    expect(connectorUri({ conversation: { id: 'c' } })).toBeUndefined();
    expect(connectorUri({ serviceUrl: 'https://channel.example/', conversation: { id: 5 as never } })).toBeUndefined();
    expect(connectorUri({ serviceUrl: 'https://channel.example/' })).toBeUndefined();
  });
});
