/**
 * Which platform a channel's records go to, how a middleware gets its client, and the fields of a
 * generic message record when the activity is odd.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestAdapter } from 'botbuilder';
import { defaultPlatformForChannel, ReceiveMiddleware, setIntent, setOutgoingIntent, TrackingMiddleware } from '../../src/middleware/index.js';
import { channelOf } from '../../src/middleware/channels.js';
import { incomingMessage, outgoingMessage } from '../../src/middleware/map-generic.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

describe('channels', () => {
  it('the default mapping: facebook to messenger, sms and twilio-sms to sms, twitter to directMessage, anything else to universal', () => {
    expect(['facebook', 'sms', 'twilio-sms', 'twitter', 'webchat', 'msteams', '', 'Facebook'].map((c) => defaultPlatformForChannel(c))).toEqual(['messenger', 'sms', 'sms', 'directMessage', 'universal', 'universal', 'universal', 'universal']);
  });

  it("the channel is the one the channel sent (the Agents SDK's channelIdChannel first), '' when there is none or it cannot be read", () => {
    expect(channelOf({ channelId: 'msteams:COPILOT', channelIdChannel: 'msteams' } as never)).toBe('msteams');
    expect(channelOf({ channelId: 'webchat' })).toBe('webchat');
    expect(channelOf({ channelId: 5 } as never)).toBe('');
    expect(channelOf({})).toBe('');
    const hostile = Object.defineProperty({}, 'channelId', { get: () => { throw new Error('boom'); } });
    expect(channelOf(hostile)).toBe('');
  });

  it('a custom mapping is called with the channel and the activity', async () => {
    const calls: [string, unknown][] = [];
    const adapter = new TestAdapter(async () => undefined).use(new TrackingMiddleware({ client: h.client, platformForChannel: (channel, activity) => (calls.push([channel, activity.text]), 'sms') }));
    await adapter.send('hi').startTest();
    expect((await h.records()).map((r) => r.platform)).toEqual(['sms']);
    expect(calls).toEqual([['test', 'hi']]);
  });
});

describe('the client of a middleware', () => {
  it('a client given directly, as options.client, or built from clientOptions is the one records go through', async () => {
    const direct = new ReceiveMiddleware(h.client);
    const inOptions = new ReceiveMiddleware({ client: h.client });
    const built = new ReceiveMiddleware({ clientOptions: { apiKey: 'built-key-789', baseUrl: h.sink.url, logger: false } });
    expect(direct.client).toBe(h.client);
    expect(inOptions.client).toBe(h.client);
    await new TestAdapter(async () => undefined).use(built).send('hi').startTest();
    await built.client.close(1000);
    expect(h.sink.requests.map((r) => r.query.apiKey)).toEqual(['built-key-789']);
  });

  it('an object with defer, track and trackAndForget counts as a client (another copy of this package); one missing any of them is options', () => {
    const duck = { defer: () => undefined, track: () => undefined, trackAndForget: () => undefined, beginTurn: () => () => undefined };
    expect(new ReceiveMiddleware(duck as never).client).toBe(duck);
    const saved = process.env.TRACKING_API_KEY;
    delete process.env.TRACKING_API_KEY;
    try {
      for (const missing of ['defer', 'track', 'trackAndForget']) {
        const partial: Record<string, unknown> = { ...duck, [missing]: 'not a function' };
        expect(() => new ReceiveMiddleware(partial as never)).toThrow(expect.objectContaining({ name: 'TrackingConfigError' }));
      }
    } finally {
      if (saved !== undefined) process.env.TRACKING_API_KEY = saved;
    }
  });
});

describe('generic message fields', () => {
  it('text: null becomes empty; blank text on a card-only message takes the card text; blank text without a card is kept', () => {
    const hero = { contentType: 'application/vnd.microsoft.card.hero', content: { title: 'Menu' } };
    expect(incomingMessage({ text: null, from: { id: 'u' } } as never, undefined).text).toBe('');
    expect(incomingMessage({ text: '  ', from: { id: 'u' }, attachments: [hero] }, undefined).text).toBe('Menu');
    expect(incomingMessage({ text: 'typed', from: { id: 'u' }, attachments: [hero] }, undefined).text).toBe('typed');
    expect(incomingMessage({ text: '  ', from: { id: 'u' } }, undefined).text).toBe('  ');
    expect(outgoingMessage({ recipient: { id: 'u' }, attachments: [{ contentType: 'image/png', contentUrl: 'https://x.example/i.png' }] }, undefined)).toEqual({
      text: '', userId: 'u', images: [{ url: 'https://x.example/i.png' }], platformJson: { recipient: { id: 'u' }, attachments: [{ contentType: 'image/png', contentUrl: 'https://x.example/i.png' }] },
    });
  });

  it('an activity with neither from nor recipient is still mapped, in both directions and without throwing: the text kept, an empty userId', () => {
    const bare = { type: 'message', text: 'who am I?' };
    expect(incomingMessage(bare, { name: 'Ask', inputs: [] })).toEqual({ text: 'who am I?', userId: '', intent: { name: 'Ask', inputs: [] }, platformJson: { type: 'message', text: 'who am I?' } });
    expect(outgoingMessage(bare, undefined)).toEqual({ text: 'who am I?', userId: '', platformJson: { type: 'message', text: 'who am I?' } });
    const nulls = { ...bare, from: null, recipient: null } as never;
    expect(incomingMessage(nulls, undefined)).toMatchObject({ text: 'who am I?', userId: '' });
    expect(outgoingMessage(nulls, undefined)).toMatchObject({ text: 'who am I?', userId: '' });
  });

  it('no images, buttons, intent or postback keys when there are none', () => {
    const message = incomingMessage({ text: 'hi', from: { id: 'u' } }, undefined);
    expect(Object.keys(message).sort()).toEqual(['platformJson', 'text', 'userId']);
  });

  it('a field that cannot be read leaves the record its other fields', () => {
    const activity = Object.defineProperties({ from: { id: 'u' } }, {
      text: { enumerable: true, get: () => { throw new Error('text'); } },
      attachments: { enumerable: true, get: () => { throw new Error('attachments'); } },
      suggestedActions: { enumerable: true, get: () => { throw new Error('actions'); } },
      value: { enumerable: true, get: () => { throw new Error('value'); } },
    });
    expect(incomingMessage(activity as never, { name: 'I', inputs: [] })).toEqual({ text: '', userId: 'u', intent: { name: 'I', inputs: [] }, platformJson: { from: { id: 'u' } } });
    const noFrom = Object.defineProperty({ text: 'hi' }, 'from', { enumerable: true, get: () => { throw new Error('from'); } });
    expect(incomingMessage(noFrom as never, undefined)).toEqual({ text: 'hi', userId: '', platformJson: { text: 'hi' } });
  });
});

describe('turn helpers outside a turn', () => {
  it('setIntent and setOutgoingIntent return false for something that is not a turn context, and never throw', () => {
    expect(setIntent({} as never, 'X')).toBe(false);
    expect(setIntent(null as never, 'X')).toBe(false);
    expect(setOutgoingIntent({} as never, 'X')).toBe(false);
    expect(setOutgoingIntent(undefined as never, 'X')).toBe(false);
  });

  it('a later setIntent and setOutgoingIntent replace earlier ones', async () => {
    const adapter = new TestAdapter(async (ctx) => {
      setIntent(ctx, 'First');
      setIntent(ctx, 'Second');
      setOutgoingIntent(ctx, 'Old');
      setOutgoingIntent(ctx, 'New');
      await ctx.sendActivity('reply');
    }).use(new TrackingMiddleware({ client: h.client }));
    await adapter.send('hi').startTest();
    expect((await h.records()).map((r) => r.body.intent?.name)).toEqual(['Second', 'New']);
  });
});
