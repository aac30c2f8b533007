import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CardFactory, MessageFactory } from 'botbuilder';
import { adapterWith, send, startHarness, timed, userMessage, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

describe('channels and platforms', () => {
  it.each([
    ['webchat', 'universal', '10.1.1-rest'],
    ['msteams', 'universal', '10.1.1-rest'],
    ['sms', 'sms', '11.1.0-rest'],
    ['twitter', 'twitter', '11.1.0-rest'],
    ['facebook', 'facebook', '11.1.0-rest'],
  ])('a conversation on the %s channel is recorded on platform %s with version %s', async (channelId, platform, v) => {
    const adapter = adapterWith(h, async (ctx) => {
      await ctx.sendActivity('hi there');
    });
    await send(adapter, userMessage({ channelId }));
    const records = await h.records();
    expect(records.map((r) => [r.type, r.platform, r.v, r.apiKey])).toEqual([
      ['incoming', platform, v, 'test-key-123'],
      ['outgoing', platform, v, 'test-key-123'],
    ]);
  });

  it('a custom channel mapping decides the platform', async () => {
    const adapter = adapterWith(h, async (ctx) => void (await ctx.sendActivity('ok')), {
      platformForChannel: (channel) => (channel === 'webchat' ? 'sms' : 'universal'),
    });
    await send(adapter, userMessage({ channelId: 'webchat' }));
    expect((await h.records()).map((r) => r.platform)).toEqual(['sms', 'sms']);
  });
});

describe('generic message records', () => {
  it('records the user id of the end user in both directions, never the bot id', async () => {
    const adapter = adapterWith(h, async (ctx) => void (await ctx.sendActivity('echo')));
    await send(adapter, userMessage({ text: 'hello' }));
    const [incoming, outgoing] = await h.records();
    expect(incoming.body).toMatchObject({ text: 'hello', userId: 'user-1' });
    expect(outgoing.body).toMatchObject({ text: 'echo', userId: 'user-1' });
    expect(JSON.stringify([incoming.body.userId, outgoing.body.userId])).not.toContain('bot-1');
  });

  it('records images from image attachments and from hero and thumbnail cards, leaving out inline data URLs', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      await ctx.sendActivity({
        attachments: [
          { contentType: 'image/png', contentUrl: 'https://img.example/a.png' },
          { contentType: 'image/png', contentUrl: 'data:image/png;base64,AAAA' },
          CardFactory.heroCard('Hero', ['https://img.example/hero.jpg']),
          CardFactory.thumbnailCard('Thumb', ['https://img.example/thumb.jpg']),
          { contentType: 'application/pdf', contentUrl: 'https://files.example/x.pdf' },
        ],
      });
    });
    await send(adapter, userMessage());
    const outgoing = (await h.records())[1];
    expect(outgoing.body.images).toEqual([{ url: 'https://img.example/a.png' }, { url: 'https://img.example/hero.jpg' }, { url: 'https://img.example/thumb.jpg' }]);
  });

  it('records buttons from hero card buttons and suggested actions, with values as strings', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      const card = CardFactory.heroCard('Menu', undefined, [
        { type: 'postBack', title: 'Pizza', value: 'order pizza' },
        { type: 'messageBack', title: 'Cart', value: { action: 'cart', items: 2 } },
      ]);
      const reply = MessageFactory.attachment(card);
      reply.suggestedActions = { to: [], actions: [{ type: 'imBack', title: 'Two', value: 2 }, { type: 'imBack', title: 'Help', value: 'help' }] };
      await ctx.sendActivity(reply);
    });
    await send(adapter, userMessage());
    const outgoing = (await h.records())[1];
    expect(outgoing.body.buttons).toEqual([
      { id: 'order pizza', label: 'Pizza', value: 'order pizza' },
      { id: '{"action":"cart","items":2}', label: 'Cart', value: '{"action":"cart","items":2}' },
      { id: '2', label: 'Two', value: '2' },
      { id: 'help', label: 'Help', value: 'help' },
    ]);
  });

  it('a card-only message takes the card\'s title as its text; an image-only one has empty text', async () => {
    const adapter = adapterWith(h, async (ctx) => void (await ctx.sendActivity(MessageFactory.attachment(CardFactory.heroCard('Only a card')))));
    await send(adapter, userMessage({ text: undefined, attachments: [{ contentType: 'image/jpeg', contentUrl: 'https://img.example/u.jpg' }] }));
    const [incoming, outgoing] = await h.records();
    expect(incoming.body).toMatchObject({ text: '', userId: 'user-1', images: [{ url: 'https://img.example/u.jpg' }] });
    expect(outgoing.body).toMatchObject({ text: 'Only a card', userId: 'user-1' });
    expect(h.errors).toEqual([]);
  });

  it('puts the whole activity in platformJson', async () => {
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, userMessage({ text: 'hi', locale: 'en-GB', entities: [{ type: 'clientInfo', country: 'GB' }] }));
    const [incoming] = await h.records();
    expect(incoming.body.platformJson).toMatchObject({
      type: 'message',
      text: 'hi',
      locale: 'en-GB',
      channelId: 'webchat',
      from: { id: 'user-1', name: 'Ada' },
      recipient: { id: 'bot-1' },
      conversation: { id: 'conv-1' },
      entities: [{ type: 'clientInfo', country: 'GB' }],
    });
  });

  it('keeps secrets out of platformJson: channelData tokens, serviceUrl credentials, and it survives functions and cycles', async () => {
    const channelData: Record<string, unknown> = { accessToken: 'EAAB-secret-1', nested: { client_secret: 's3cr3t', keep: 'visible' }, callback: () => 1 };
    channelData.self = channelData;
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, userMessage({ serviceUrl: 'https://bot:p4ss@channel.example/api?token=tok-123&region=eu', channelData }));
    const [incoming] = await h.records();
    const json = JSON.stringify(incoming.body.platformJson);
    for (const secret of ['EAAB-secret-1', 's3cr3t', 'p4ss', 'tok-123']) expect(json).not.toContain(secret);
    expect(incoming.body.platformJson.channelData).toEqual({ nested: { keep: 'visible' }, self: '[Circular]' });
    expect(incoming.body.platformJson.serviceUrl).toBe('https://channel.example/api?token=***&region=eu');
  });
});

describe('button clicks', () => {
  it('a postBack with a value is recorded as a click on the button of that value', async () => {
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, userMessage({ text: undefined, value: { action: 'cart', items: 2 } }));
    const [incoming] = await h.records();
    expect(incoming.body.postback).toEqual({ buttonClick: { buttonId: '{"action":"cart","items":2}' } });
  });

  it("Web Chat's postBack (channelData.postBack) is recorded as a click with its text as the button id", async () => {
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, userMessage({ text: 'order pizza', channelData: { postBack: true } }));
    const [incoming] = await h.records();
    expect(incoming.body.postback).toEqual({ buttonClick: { buttonId: 'order pizza' } });
  });

  it('text equal to a button the bot just offered (an imBack click) is recorded as a click on it', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      if (ctx.activity.text === 'start') await ctx.sendActivity(MessageFactory.suggestedActions([{ type: 'imBack', title: 'Yes please', value: 'yes' }, 'no'], 'Continue?'));
    });
    await send(adapter, userMessage({ text: 'start' }));
    await h.client.flush();
    await send(adapter, userMessage({ text: 'yes' }));
    await send(adapter, userMessage({ text: 'maybe' }));
    const incoming = (await h.records()).filter((r) => r.type === 'incoming');
    expect(incoming.map((r) => r.body.postback)).toEqual([undefined, { buttonClick: { buttonId: 'yes' } }, undefined]);
  });

  it('ordinary text is not a click', async () => {
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, userMessage({ text: 'order pizza' }));
    const [incoming] = await h.records();
    expect(incoming.body).not.toHaveProperty('postback');
  });
});

describe('activities that are not messages', () => {
  it.each(['typing', 'conversationUpdate', 'event', 'invoke', 'endOfConversation', 'messageReaction', 'installationUpdate'])(
    'an incoming %s activity is not recorded',
    async (type) => {
      const adapter = adapterWith(h, async () => undefined);
      await send(adapter, userMessage({ type, name: 'something', text: undefined }));
      expect(await h.records()).toEqual([]);
    },
  );

  it('typing, trace and other non-message activities the bot sends are not recorded', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      await ctx.sendActivities([{ type: 'typing' }, { type: 'trace', name: 'Debug', value: { x: 1 } }, { type: 'event', name: 'ui' }, { type: 'message', text: 'real reply' }]);
    });
    await send(adapter, userMessage());
    expect((await h.records()).map((r) => [r.type, r.body.text])).toEqual([
      ['incoming', 'hello'],
      ['outgoing', 'real reply'],
    ]);
  });

  it('with trackEventActivities, an incoming event activity is recorded as a custom event', async () => {
    const adapter = adapterWith(h, async () => undefined, { trackEventActivities: true });
    await send(adapter, userMessage({ type: 'event', name: 'webchat/join', value: { language: 'en' }, text: undefined }));
    const records = await h.records();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ type: 'event', platform: 'universal', v: '11.1.0-rest' });
    expect(records[0].body).toEqual({ type: 'customEvent', name: 'webchat/join', userId: 'user-1', conversationId: 'conv-1', extraInfo: timed({ language: 'en' }) });
  });

  it('with trackEventActivities, an incoming event is recorded before the replies it leads to, and a trace does not give it an intent', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      await ctx.sendActivity({ type: 'trace', name: 'LuisRecognizer', valueType: 'https://www.luis.ai/schemas/trace', value: { recognizerResult: { text: 'x', intents: { Greet: { score: 1 } } } } });
      await ctx.sendActivity('Welcome!');
      await ctx.sendActivity('How can I help?');
    }, { trackEventActivities: true });
    await send(adapter, userMessage({ type: 'event', name: 'webchat/join', text: undefined }));
    const records = await h.records();
    expect(records.map((r) => [r.type, r.body.name ?? r.body.text, r.body.intent])).toEqual([
      ['event', 'webchat/join', undefined],
      ['outgoing', 'Welcome!', undefined],
      ['outgoing', 'How can I help?', undefined],
    ]);
  });

  it('without trackEventActivities, event activities are not recorded', async () => {
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, userMessage({ type: 'event', name: 'webchat/join', value: { language: 'en' } }));
    expect(await h.records()).toEqual([]);
  });
});
