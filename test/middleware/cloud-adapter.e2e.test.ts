/**
 * End to end: real CloudAdapter bots (the samples' bot logic) on 127.0.0.1 receive activities over
 * HTTP, reply through a fake channel service, and track to a real local sink.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { CloudAdapter, ConfigurationBotFrameworkAuthentication, TeamsActivityHandler, TurnContext, type Activity, type ConversationReference, type InvokeResponse } from 'botbuilder';
import { BotFrameworkAuthenticationFactory, PasswordServiceClientCredentialFactory, type BotFrameworkAuthentication } from 'botframework-connector';
import { TrackingMiddleware, type TrackingMiddlewareOptions } from '../../src/middleware/index.js';
import { startChannelService, type ChannelService } from '../helpers/channel-service.js';
import { A_TIME, startHarness, timed, type Harness } from './harness.js';

// The samples import the package by name; here that name means the source.
vi.mock('botbuilder-conversation-analytics', () => import('../../src/index.js'));

interface BotServer {
  url: string;
  close(): Promise<void>;
}
type SampleModule = Record<string, new () => { run(context: TurnContext): Promise<void> }>;

const load = (path: string): Promise<any> => import(/* @vite-ignore */ new URL(path, import.meta.url).href);

let channel: ChannelService;
let h: Harness;
let servers: BotServer[] = [];

beforeAll(async () => {
  channel = await startChannelService();
});
afterAll(async () => {
  await channel.close();
});
beforeEach(async () => {
  h = await startHarness();
  channel.sent.length = 0;
});
afterEach(async () => {
  for (const server of servers) await server.close();
  servers = [];
  await h.close();
});

/** Starts a sample's bot on a real CloudAdapter over HTTP, with the tracking middleware. */
async function startSampleBot(modulePath: string, exportName: string, options: TrackingMiddlewareOptions = {}, auth: BotFrameworkAuthentication = new ConfigurationBotFrameworkAuthentication({})) {
  const adapter = new CloudAdapter(auth);
  adapter.use(new TrackingMiddleware({ client: h.client, ...options }));
  const { startBotServer } = await load('../../samples/lib/bot-server.mjs');
  const Bot = ((await load(modulePath)) as SampleModule)[exportName];
  const server: BotServer = await startBotServer({ adapter, bot: new Bot(), port: 0 });
  servers.push(server);
  return { adapter, url: server.url };
}

let nextId = 0;
/** A user's message as a channel would POST it to the bot. */
function activity(fields: Partial<Activity> = {}): Partial<Activity> {
  nextId += 1;
  return {
    type: 'message',
    id: `in-${nextId}`,
    timestamp: '2024-05-01T10:00:00.000Z' as unknown as Date,
    channelId: 'webchat',
    serviceUrl: channel.url,
    from: { id: 'user-1', name: 'Ada' },
    recipient: { id: 'bot-1', name: 'Bot' },
    conversation: { id: 'conv-1' } as Activity['conversation'],
    text: 'hello',
    ...fields,
  };
}

async function post(url: string, body: Partial<Activity>): Promise<number> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await response.arrayBuffer();
  return response.status;
}

describe('a CloudAdapter bot over HTTP', () => {
  it('the echo bot: the incoming message and its reply are recorded exactly', async () => {
    const bot = await startSampleBot('../../samples/echo-bot/bot.mjs', 'EchoBot');
    const sent = activity({ text: 'hello there' });
    expect(await post(bot.url, sent)).toBe(200);
    const records = await h.records();
    expect(channel.sent).toHaveLength(1);
    expect(channel.sent[0]).toMatchObject({ conversationId: 'conv-1', replyToId: sent.id, activity: { text: 'Echo: hello there' } });
    expect(records.map(({ platform, v, type }) => ({ platform, v, type }))).toEqual([
      { platform: 'universal', v: '10.1.1-rest', type: 'incoming' },
      { platform: 'universal', v: '10.1.1-rest', type: 'outgoing' },
    ]);
    const [incoming, outgoing] = records.map((r) => r.body);
    expect({ ...incoming, platformJson: undefined }).toEqual({ text: 'hello there', userId: 'user-1', platformJson: undefined });
    // The activity as CloudAdapter handed it to the turn (it adds rawTimestamp and callerId).
    expect(incoming.platformJson).toEqual({ ...sent, rawTimestamp: sent.timestamp, callerId: null });
    expect({ ...outgoing, platformJson: undefined }).toEqual({ text: 'Echo: hello there', userId: 'user-1', platformJson: undefined });
    expect(outgoing.platformJson).toEqual({
      type: 'message',
      text: 'Echo: hello there',
      inputHint: 'acceptingInput',
      channelId: 'webchat',
      serviceUrl: channel.url,
      conversation: { id: 'conv-1' },
      from: { id: 'bot-1', name: 'Bot' },
      recipient: { id: 'user-1', name: 'Ada' },
      replyToId: sent.id,
      id: channel.sent[0].id,
      // When the reply was sent (the SDK sets no timestamp on it).
      timestamp: A_TIME,
    });
  });

  it('a CloudAdapter whose authentication comes from botframework-connector records the same turn', async () => {
    // What ConfigurationBotFrameworkAuthentication does inside, spelled out with the connector's own factory.
    const auth = BotFrameworkAuthenticationFactory.create('', true, '', '', '', '', '', '', '', new PasswordServiceClientCredentialFactory('', ''), { requiredEndorsements: [] });
    const bot = await startSampleBot('../../samples/echo-bot/bot.mjs', 'EchoBot', {}, auth);
    expect(await post(bot.url, activity({ text: 'via the connector' }))).toBe(200);
    const records = await h.records();
    expect(records.map((r) => [r.type, r.body.text, r.body.userId])).toEqual([
      ['incoming', 'via the connector', 'user-1'],
      ['outgoing', 'Echo: via the connector', 'user-1'],
    ]);
    expect(channel.sent.map((s) => s.activity.text)).toEqual(['Echo: via the connector']);
  });

  it('the intent bot: the offline recognizer\'s trace gives each message its intent, and traces are not recorded', async () => {
    const bot = await startSampleBot('../../samples/intent-bot/bot.mjs', 'IntentBot', { minIntentScore: 0.5 });
    await post(bot.url, activity({ text: 'book a flight to New York tomorrow' }));
    await post(bot.url, activity({ text: 'blah' }));
    const records = await h.records();
    expect(records.map((r) => [r.type, r.body.text, r.body.intent])).toEqual([
      ['incoming', 'book a flight to New York tomorrow', { name: 'BookFlight', inputs: [{ name: 'city', value: 'New York' }, { name: 'date', value: 'tomorrow' }, { name: 'score', value: '0.9' }] }],
      ['outgoing', 'Booking a flight to New York for tomorrow.', undefined],
      // The recognizer's None (0.1, also below minIntentScore): not understood.
      ['incoming', 'blah', { name: 'NotHandled', inputs: [{ name: 'topIntent', value: 'None' }, { name: 'score', value: '0.1' }] }],
      ['outgoing', "Sorry, I didn't get that. Say help for ideas.", undefined],
    ]);
  });

  it('the messenger bot on the facebook channel: webhook payload in, send request with the channel\'s message id out', async () => {
    const bot = await startSampleBot('../../samples/messenger-bot/bot.mjs', 'MessengerBot');
    const event = { sender: { id: 'psid-1' }, recipient: { id: 'page-1' }, timestamp: 1_714_557_600_000, message: { mid: 'm_1', seq: 3, text: 'menu' } };
    await post(bot.url, activity({ channelId: 'facebook', from: { id: 'psid-1', name: 'Ada' }, recipient: { id: 'page-1', name: 'Page' }, text: 'menu', channelData: event }));
    const [incoming, outgoing] = await h.records();
    expect(incoming).toMatchObject({ platform: 'facebook', type: 'incoming', v: '11.1.0-rest' });
    expect(incoming.body).toEqual({ object: 'page', entry: [{ id: 'page-1', time: 1_714_557_600_000, messaging: [event] }] });
    expect(outgoing).toMatchObject({ platform: 'facebook', type: 'outgoing', v: '11.1.0-rest' });
    expect(outgoing.body).toEqual({
      json: {
        recipient: { id: 'psid-1' },
        message: {
          text: '',
          attachments: [{ type: 'template', payload: { template_type: 'generic', elements: [{ title: 'Today', subtitle: 'Pick a dish', image_url: 'https://example.com/images/menu.png', buttons: [{ type: 'postback', title: 'Pizza', payload: 'order pizza' }, { type: 'postback', title: 'Salad', payload: 'order salad' }] }] } }],
        },
      },
      method: 'POST',
      uri: `${channel.url}v3/conversations/conv-1/activities/${channel.sent[0].replyToId}`,
      responseBody: { recipient_id: 'psid-1', message_id: channel.sent[0].id },
    });
  });

  it('the shop bot: revenue, share and custom events carry the user and conversation of the turn', async () => {
    const bot = await startSampleBot('../../samples/events-bot/bot.mjs', 'ShopBot');
    await post(bot.url, activity({ text: 'buy coffee' }));
    await post(bot.url, activity({ text: 'share' }));
    await post(bot.url, activity({ text: 'what do you have' }));
    const events = (await h.records()).filter((r) => r.type === 'event');
    expect(events.map((r) => [r.platform, r.v, r.body])).toEqual([
      ['universal', '11.1.0-rest', { type: 'revenueEvent', name: 'purchase', amount: 3.5, referenceNumber: 'order-1', metadata: timed({ product: 'coffee', currency: 'EUR' }), userId: 'user-1', conversationId: 'conv-1' }],
      ['universal', '11.1.0-rest', { type: 'shareEvent', name: 'shared-menu', sharedMessage: { text: 'Our menu: https://example.com/menu' }, userId: 'user-1', conversationId: 'conv-1' }],
      ['universal', '11.1.0-rest', { type: 'customEvent', name: 'browsed', extraInfo: timed({ said: 'what do you have' }), userId: 'user-1', conversationId: 'conv-1' }],
    ]);
  });

  it('a proactive message sent with continueConversationAsync is recorded as outgoing to the user; the synthetic ContinueConversation event is not recorded, even with trackEventActivities', async () => {
    const bot = await startSampleBot('../../samples/echo-bot/bot.mjs', 'EchoBot', { trackEventActivities: true });
    const first = activity({ text: 'remind me' });
    await post(bot.url, first);
    const reference = TurnContext.getConversationReference(first) as ConversationReference;
    await bot.adapter.continueConversationAsync('', reference, async (context) => {
      await context.sendActivity('Your reminder!');
    });
    const records = await h.records();
    expect(records.map((r) => [r.type, r.body.text, r.body.userId])).toEqual([
      ['incoming', 'remind me', 'user-1'],
      ['outgoing', 'Echo: remind me', 'user-1'],
      ['outgoing', 'Your reminder!', 'user-1'],
    ]);
    expect(channel.sent.map((s) => s.activity.text)).toEqual(['Echo: remind me', 'Your reminder!']);
  });

  it("Teams feedback through botbuilder's CloudAdapter: the thumbs-up invoke is a `feedback` event for the reply it rates", async () => {
    /** A Teams bot whose replies have the feedback loop on, and that answers the feedback invoke. */
    class FeedbackBot extends TeamsActivityHandler {
      constructor() {
        super();
        this.onMessage(async (context, next) => {
          await context.sendActivity({ type: 'message', text: 'We open at 11:00.', channelData: { feedbackLoopEnabled: true } });
          await next();
        });
      }

      protected override async onInvokeActivity(context: TurnContext): Promise<InvokeResponse> {
        return context.activity.name === 'message/submitAction' ? { status: 200 } : super.onInvokeActivity(context);
      }
    }
    const adapter = new CloudAdapter(new ConfigurationBotFrameworkAuthentication({}));
    adapter.use(new TrackingMiddleware(h.client));
    const { startBotServer } = await load('../../samples/lib/bot-server.mjs');
    const server: BotServer = await startBotServer({ adapter, bot: new FeedbackBot(), port: 0 });
    servers.push(server);
    const teams = { channelId: 'msteams', from: { id: '29:user-1', name: 'Ada' }, conversation: { id: 'a:conv-1', conversationType: 'personal' } as Activity['conversation'] };
    await post(server.url, activity({ ...teams, text: 'when do you open?' }));
    const reply = channel.sent[0];
    const feedback = { actionName: 'feedback', actionValue: { reaction: 'like', feedback: JSON.stringify({ feedbackText: 'Quick answer' }) } };
    expect(await post(server.url, activity({ ...teams, type: 'invoke', name: 'message/submitAction', text: undefined, value: feedback, replyToId: reply.id }))).toBe(200);
    const records = await h.records();
    expect(records.map((r) => [r.platform, r.type])).toEqual([
      ['universal', 'incoming'],
      ['universal', 'outgoing'],
      ['universal', 'event'],
    ]);
    expect(records[1].body.platformJson.id).toBe(reply.id);
    expect(records[2].body).toEqual({
      type: 'customEvent', name: 'feedback', userId: '29:user-1', conversationId: 'a:conv-1',
      // Dated with the invoke's own timestamp.
      extraInfo: { reaction: 'like', feedbackText: 'Quick answer', replyToId: reply.id, timestamp: '2024-05-01T10:00:00.000Z' },
    });
  });

  it('a turn the bot fails still answers the channel and records the incoming message', async () => {
    const adapter = new CloudAdapter(new ConfigurationBotFrameworkAuthentication({}));
    adapter.use(new TrackingMiddleware(h.client));
    const failures: unknown[] = [];
    const boom = new Error('bot failed');
    adapter.onTurnError = async (_context, error) => void failures.push(error);
    const { startBotServer } = await load('../../samples/lib/bot-server.mjs');
    const server: BotServer = await startBotServer({ adapter, bot: { run: async () => Promise.reject(boom) }, port: 0 });
    servers.push(server);
    expect(await post(server.url, activity({ text: 'crash' }))).toBe(200);
    expect(failures).toEqual([boom]);
    expect((await h.records()).map((r) => [r.type, r.body.text])).toEqual([['incoming', 'crash']]);
  });
});

describe("with the package's local tracking endpoint", () => {
  it('every record a CloudAdapter bot sends is accepted and stored by the endpoint', async () => {
    const { startTrackingEndpoint } = await import('botbuilder-conversation-analytics-endpoint');
    const endpoint = await startTrackingEndpoint({ port: 0, host: '127.0.0.1', dataFile: false, log: () => undefined });
    const errors: unknown[] = [];
    const { TrackingClient } = await import('../../src/client/index.js');
    const client = new TrackingClient({ apiKey: 'test-key-123', baseUrl: endpoint.url, logger: false, onError: (e) => errors.push(e) });
    try {
      const adapter = new CloudAdapter(new ConfigurationBotFrameworkAuthentication({}));
      adapter.use(new TrackingMiddleware({ client, trackEventActivities: true }));
      const { startBotServer } = await load('../../samples/lib/bot-server.mjs');
      const { ShopBot } = await load('../../samples/events-bot/bot.mjs');
      const server: BotServer = await startBotServer({ adapter, bot: new ShopBot(), port: 0 });
      servers.push(server);
      await post(server.url, activity({ text: 'buy cake' }));
      await post(server.url, activity({ channelId: 'facebook', text: 'share', channelData: { sender: { id: 'user-1' }, recipient: { id: 'page-1' }, timestamp: 1, message: { mid: 'm', text: 'share' } } }));
      await post(server.url, activity({ type: 'event', name: 'webchat/join', value: { lang: 'en' }, text: undefined }));
      await client.flush();
      expect(errors).toEqual([]);
      expect((await (await endpoint.store.records({ limit: 1_000_000 }))).map((r) => [r.platform, r.type])).toEqual([
        ['universal', 'incoming'],
        ['universal', 'event'],
        ['universal', 'outgoing'],
        ['facebook', 'incoming'],
        ['facebook', 'event'],
        ['facebook', 'outgoing'],
        ['universal', 'event'],
      ]);
    } finally {
      await client.close(1000);
      await endpoint.close();
    }
  });
});

describe('a BotFrameworkAdapter bot over HTTP', () => {
  it('records the turn and a proactive message sent with continueConversation', async () => {
    const { BotFrameworkAdapter } = await import('botbuilder');
    const adapter = new BotFrameworkAdapter({});
    adapter.use(new TrackingMiddleware(h.client));
    const { startBotServer } = await load('../../samples/lib/bot-server.mjs');
    const { EchoBot } = await load('../../samples/echo-bot/bot.mjs');
    const server: BotServer = await startBotServer({ adapter, bot: new EchoBot(), port: 0 });
    servers.push(server);
    const first = activity({ text: 'hi classic', from: { id: 'user-9', name: 'Bo' } });
    expect(await post(server.url, first)).toBe(200);
    await adapter.continueConversation(TurnContext.getConversationReference(first), async (context) => {
      await context.sendActivity('later');
    });
    expect((await h.records()).map((r) => [r.type, r.body.text, r.body.userId])).toEqual([
      ['incoming', 'hi classic', 'user-9'],
      ['outgoing', 'Echo: hi classic', 'user-9'],
      ['outgoing', 'later', 'user-9'],
    ]);
  });
});
