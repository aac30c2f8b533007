import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CardFactory, MessageFactory, type Activity } from 'botbuilder';
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
