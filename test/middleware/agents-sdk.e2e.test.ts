/**
 * End to end on the Microsoft 365 Agents SDK: the sample agent (an AgentApplication on its own
 * CloudAdapter, anonymous mode) hosted the way the SDK's express host does it, on 127.0.0.1, replying
 * through a fake channel service, with the tracking middleware sending to a real local sink.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRequire } from 'node:module';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Activity } from '@microsoft/agents-activity';
import { ActivityHandler, authorizeJWT, CloudAdapter, getAuthConfigWithDefaults, type AgentApplication, type TurnContext, type TurnState } from '@microsoft/agents-hosting';
import { setOutgoingIntent, TrackingMiddleware, type TrackingMiddlewareOptions } from '../../src/index.js';
import { transcriptEntries } from 'botbuilder-conversation-analytics-endpoint';
import type { StoredRecord } from 'botbuilder-conversation-analytics-endpoint';
import { startChannelService, type ChannelService } from '../helpers/channel-service.js';
import { startHarness, timed, type Harness } from './harness.js';

// The sample imports the package by name; here that name means the source.
vi.mock('botbuilder-conversation-analytics', () => import('../../src/index.js'));

interface Server {
  url: string;
  close(): Promise<void>;
}
type Agent = AgentApplication<TurnState>;

const load = (path: string): Promise<any> => import(/* @vite-ignore */ new URL(path, import.meta.url).href);

let channel: ChannelService;
let h: Harness;
let servers: Server[] = [];

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

/** The sample agent with the tracking middleware, listening on a free port. */
async function startAgent(options: TrackingMiddlewareOptions = {}): Promise<{ agent: Agent; url: string }> {
  const { createAgent } = await load('../../samples/agent/agent.mjs');
  const { startAgentServer } = await load('../../samples/lib/agent-server.mjs');
  const agent: Agent = createAgent();
  agent.adapter.use(new TrackingMiddleware({ client: h.client, ...options }));
  const server: Server = await startAgentServer({ agent, port: 0, authConfig: {} });
  servers.push(server);
  return { agent, url: server.url };
}

let nextId = 0;
/** An activity as a channel would POST it to the agent. */
function activity(fields: Record<string, unknown> = {}): Record<string, any> {
  nextId += 1;
  return {
    type: 'message',
    id: `in-${nextId}`,
    timestamp: '2026-05-01T10:00:00.000Z',
    channelId: 'msteams',
    serviceUrl: channel.url,
    from: { id: 'user-1', name: 'Ada', aadObjectId: 'aad-1' },
    recipient: { id: 'agent-1', name: 'Shop' },
    conversation: { id: 'conv-1', conversationType: 'personal', tenantId: 'tenant-1' },
    text: 'hello',
    locale: 'en-US',
    ...fields,
  };
}

/**
 * An ActivityHandler on a CloudAdapter of its own, hosted the way the SDK's docs host one:
 * express.json, authorizeJWT, then adapter.process. (The SDK's express host makes a new adapter for
 * an ActivityHandler, so a middleware must go on an adapter the bot creates itself.)
 */
async function startActivityHandler(handler: ActivityHandler, options: TrackingMiddlewareOptions = {}): Promise<string> {
  const authConfig = getAuthConfigWithDefaults({});
  const adapter = new CloudAdapter(authConfig);
  adapter.use(new TrackingMiddleware({ client: h.client, ...options }));
  // express, as the SDK's own host uses it (it has no type declarations here).
  const express = createRequire(import.meta.url)('express');
  const app = express();
  app.use(express.json());
  app.post('/api/messages', authorizeJWT(authConfig), (req: never, res: never) => adapter.process(req, res, (context) => handler.run(context)));
  const listening = await new Promise<HttpServer>((resolve) => {
    const server: HttpServer = app.listen(0, '127.0.0.1', () => resolve(server));
  });
  servers.push({
    url: '',
    close: () => new Promise<void>((resolve) => {
      listening.closeAllConnections();
      listening.close(() => resolve());
    }),
  });
  return `http://127.0.0.1:${(listening.address() as AddressInfo).port}/api/messages`;
}

/** Paths of keys starting with `_` anywhere in a JSON value: a private field of an SDK class that leaked into a record. */
function privateKeys(value: unknown, path = '$'): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => (key.startsWith('_') ? [`${path}.${key}`] : privateKeys(child, `${path}.${key}`)));
}

async function post(url: string, body: Record<string, unknown>): Promise<{ status: number; body: string }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.text() };
}

describe('an AgentApplication on the Agents SDK over HTTP', () => {
  it('a text reply: the incoming message and its reply are one record each, platformJson with the public fields', async () => {
    const { url } = await startAgent();
    const sent = activity({ text: 'what is this' });
    expect((await post(url, sent)).status).toBe(200);
    const records = await h.records();
    expect(channel.sent.map((s) => s.activity.text)).toEqual(['Sorry, I don\'t know "what is this" yet. Say menu, order pizza, hours or explain.']);
    expect(records.map(({ platform, type }) => [platform, type])).toEqual([
      ['universal', 'incoming'],
      ['universal', 'outgoing'],
    ]);
    const [incoming, outgoing] = records.map((r) => r.body);
    expect(incoming).toMatchObject({ text: 'what is this', userId: 'user-1', intent: { name: 'NotHandled' } });
    expect(outgoing).toMatchObject({ text: channel.sent[0].activity.text, userId: 'user-1' });
    // The activity as the channel sent it: public fields only, none of the Activity class's private ones.
    for (const { platformJson } of [incoming, outgoing]) {
      expect(platformJson.channelId).toBe('msteams');
      expect(privateKeys(platformJson)).toEqual([]);
    }
    expect(incoming.platformJson).toMatchObject(sent);
    expect(outgoing.platformJson).toMatchObject({
      type: 'message',
      text: channel.sent[0].activity.text,
      channelId: 'msteams',
      serviceUrl: channel.url,
      conversation: { id: 'conv-1' },
      from: { id: 'agent-1', name: 'Shop' },
      recipient: { id: 'user-1', name: 'Ada' },
      replyToId: sent.id,
      id: channel.sent[0].id,
    });
  });

  it('an Adaptive Card reply is one outgoing record holding the card', async () => {
    const { url } = await startAgent();
    await post(url, activity({ text: 'menu' }));
    const records = await h.records();
    expect(records.map((r) => [r.type, r.body.text, r.body.intent?.name])).toEqual([
      ['incoming', 'menu', 'ShowMenu'],
      ['outgoing', "Today's menu", undefined],
    ]);
    expect(channel.sent).toHaveLength(1);
    const { MENU_CARD } = await load('../../samples/agent/agent.mjs');
    expect(records[1].body.platformJson.attachments).toEqual([{ contentType: 'application/vnd.microsoft.card.adaptive', content: MENU_CARD }]);
    expect(records[1].body.images).toEqual([{ url: 'https://example.com/images/menu.png' }]);
    expect(records[1].body.buttons).toEqual([
      { id: '{"order":"pizza"}', label: 'Pizza', value: '{"order":"pizza"}' },
      { id: '{"order":"salad"}', label: 'Salad', value: '{"order":"salad"}' },
    ]);
  });

  it('a click on the card\'s Action.Submit (its data, plus the card\'s inputs) is recorded as a click on that button', async () => {
    const { url } = await startAgent();
    await post(url, activity({ text: 'menu' }));
    // Teams and Web Chat send a submit as a message without text whose value is the data with the inputs merged in.
    await post(url, activity({ text: undefined, value: { order: 'salad', note: 'no onions' } }));
    const records = await h.records();
    expect(records[2]).toMatchObject({ type: 'incoming', body: { text: '', userId: 'user-1', postback: { buttonClick: { buttonId: '{"order":"salad"}' } } } });
  });

  it('a streamed reply: the interim typing activities are not records; the message is ONE outgoing record with the final text', async () => {
    const { url } = await startAgent();
    await post(url, activity({ text: 'explain' }));
    const records = await h.records();
    // What the channel got: typing activities carrying a streaminfo entity, then the final message.
    const kinds = channel.sent.map((s) => [s.activity.type, s.activity.entities?.find((e: any) => e.type === 'streaminfo')?.streamType]);
    expect(kinds.at(-1)).toEqual(['message', 'final']);
    expect(kinds.slice(0, -1).length).toBeGreaterThanOrEqual(1);
    for (const kind of kinds.slice(0, -1)) expect(kind).toEqual(['typing', expect.stringMatching(/^(informative|streaming)$/)]);
    expect(records.map((r) => [r.type, r.body.text])).toEqual([
      ['incoming', 'explain'],
      ['outgoing', 'Our dough rests for 48 hours.'],
    ]);
    // The final message is marked AI-generated (setGeneratedByAILabel), and the record keeps it.
    expect(records[1].body.platformJson.entities).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'https://schema.org/Message', additionalType: ['AIGeneratedContent'] })]));
  });

  it('a reply marked AI-generated keeps its marking and citations in platformJson', async () => {
    const { url } = await startAgent();
    await post(url, activity({ text: 'hours' }));
    const [, outgoing] = await h.records();
    const { aiGeneratedEntity } = await load('../../samples/agent/agent.mjs');
    expect(outgoing.body.text).toBe('We are open from 11:00 to 22:00 every day [1].');
    expect(outgoing.body.platformJson.entities).toEqual([aiGeneratedEntity()]);
    expect(outgoing.body.platformJson.channelData).toEqual({ feedbackLoopEnabled: true });
  });

  it('a proactive message through continueConversation is recorded as outgoing; the synthetic ContinueConversation event is not recorded', async () => {
    for (const trackEventActivities of [false, true]) {
      const { agent, url } = await startAgent({ trackEventActivities });
      const first = activity({ text: 'hours' });
      await post(url, first);
      const reference = {
        activityId: first.id,
        user: first.from,
        agent: first.recipient,
        conversation: first.conversation,
        channelId: first.channelId,
        serviceUrl: first.serviceUrl,
        locale: first.locale,
      };
      await agent.adapter.continueConversation('agent-app-id', reference as any, async (context) => {
        await context.sendActivity('Your pizza is on its way.');
      });
      const records = await h.records();
      expect(records.slice(-3).map((r) => [r.type, r.body.text ?? r.body.name, r.body.userId])).toEqual([
        ['incoming', 'hours', 'user-1'],
        ['outgoing', 'We are open from 11:00 to 22:00 every day [1].', 'user-1'],
        ['outgoing', 'Your pizza is on its way.', 'user-1'],
      ]);
      expect(channel.sent.at(-1)!.activity.text).toBe('Your pizza is on its way.');
    }
    expect((await h.records()).filter((r) => r.type === 'event')).toEqual([]);
  });

  it('invokes are not messages (an Action.Execute is a click); the Teams feedback invoke becomes a `feedback` custom event for the user who gave it', async () => {
    const { url } = await startAgent();
    await post(url, activity({ text: 'hours' }));
    const reply = channel.sent[0];
    const invoke = (value: unknown, name = 'message/submitAction') => activity({ type: 'invoke', name, text: undefined, value, replyToId: reply.id });
    const answer = await post(url, invoke({ actionName: 'feedback', actionValue: { reaction: 'like', feedback: JSON.stringify({ feedbackText: 'Spot on, thanks' }) } }));
    expect(answer.status).toBe(200);
    await post(url, invoke({ actionName: 'feedback', actionValue: { reaction: 'dislike', feedback: '' } }));
    await post(url, invoke({ commandId: 'searchMenu', parameters: [{ name: 'query', value: 'pizza' }] }, 'composeExtension/query'));
    // A card's automatic refresh sends the same invoke as a click, with trigger 'automatic': nobody clicked.
    await post(url, invoke({ action: { type: 'Action.Execute', verb: 'refresh' }, trigger: 'automatic' }, 'adaptiveCard/action'));
    // A dialog opened from a button the agent never offered.
    await post(url, invoke({ data: { msteams: { type: 'task/fetch' }, dialog: 'help' }, context: { theme: 'default' } }, 'task/fetch'));
    await post(url, invoke({ state: '123456' }, 'signin/verifyState'));
    await post(url, invoke({ action: { type: 'Action.Execute', verb: 'order', data: { order: 'pizza' } }, trigger: 'manual' }, 'adaptiveCard/action'));
    const records = await h.records();
    // Only the Action.Execute a user clicked is a message: a click on the card's button.
    expect(records.map((r) => r.type)).toEqual(['incoming', 'outgoing', 'event', 'event', 'incoming']);
    expect(records[4].body).toMatchObject({ text: '', userId: 'user-1', postback: { buttonClick: { buttonId: 'order' } } });
    expect(records.slice(2, 4).map((r) => [r.platform, r.body])).toEqual([
      ['universal', { type: 'customEvent', name: 'feedback', userId: 'user-1', conversationId: 'conv-1', extraInfo: { reaction: 'like', feedbackText: 'Spot on, thanks', replyToId: reply.id, timestamp: '2026-05-01T10:00:00.000Z' } }],
      ['universal', { type: 'customEvent', name: 'feedback', userId: 'user-1', conversationId: 'conv-1', extraInfo: { reaction: 'dislike', replyToId: reply.id, timestamp: '2026-05-01T10:00:00.000Z' } }],
    ]);
  });

  it("a reply's platformJson.id is the id the channel service answered for it, and Teams feedback on that reply names the same id", async () => {
    const { url } = await startAgent();
    const hours = activity({ text: 'hours' });
    const other = activity({ text: 'what is this' });
    await post(url, hours);
    await post(url, other);
    // What the channel service answered for each reply.
    expect(channel.sent.map((s) => s.id)).toEqual(['channel-msg-1', 'channel-msg-2']);
    // Teams sends the rated reply's id (the one the channel gave it) as the invoke's replyToId.
    await post(url, activity({ type: 'invoke', name: 'message/submitAction', text: undefined, replyToId: 'channel-msg-1', value: { actionName: 'feedback', actionValue: { reaction: 'like', feedback: '' } } }));
    const records = await h.records();
    expect(records.map((r) => [r.type, r.body.platformJson?.id, r.body.extraInfo?.replyToId])).toEqual([
      ['incoming', hours.id, undefined],
      ['outgoing', 'channel-msg-1', undefined],
      ['incoming', other.id, undefined],
      ['outgoing', 'channel-msg-2', undefined],
      ['event', undefined, 'channel-msg-1'],
    ]);
    // Read back as the endpoint reads them, the feedback names the reply it rates, and only that one.
    const entries = records.map((record, i) => transcriptEntries({ seq: i + 1, receivedAt: '2026-05-01T10:00:00.000Z', platform: record.platform, platformKind: 'universal', type: record.type, body: record.body } as unknown as StoredRecord)[0]);
    const feedback = entries.find((e) => e.event?.name === 'feedback');
    const rated = entries.filter((e) => e.direction === 'outgoing' && e.activityId === feedback?.event?.extraInfo?.replyToId);
    expect(rated.map((e) => e.text)).toEqual(['We are open from 11:00 to 22:00 every day [1].']);
  });

  it("an agent's reply with an id of its own goes out without it (the SDK drops it), and its record has the channel's id", async () => {
    const { agent, url } = await startAgent();
    agent.onMessage('stamped', async (context: TurnContext) => {
      await context.sendActivity(Activity.fromObject({ type: 'message', id: 'agent-own-id', text: 'Stamped.' }));
    }, undefined, 0);
    await post(url, activity({ text: 'stamped' }));
    const [, outgoing] = await h.records();
    expect(channel.sent.map((s) => [s.id, s.activity.id])).toEqual([['channel-msg-1', undefined]]);
    expect(outgoing.body.platformJson).toMatchObject({ text: 'Stamped.', id: 'channel-msg-1' });
  });

  it('trackFeedback: false records no feedback event', async () => {
    const { url } = await startAgent({ trackFeedback: false });
    await post(url, activity({ type: 'invoke', name: 'message/submitAction', text: undefined, value: { actionName: 'feedback', actionValue: { reaction: 'like' } } }));
    expect(await h.records()).toEqual([]);
  });

  it('setIntent and trackEvent work with the Agents SDK TurnContext: the intent on the incoming record, the event with the turn\'s user and conversation', async () => {
    const { url } = await startAgent();
    await post(url, activity({ text: 'order pizza' }));
    const records = await h.records();
    expect(records.map((r) => [r.type, r.body.text ?? r.body.name])).toEqual([
      ['incoming', 'order pizza'],
      ['event', 'order'],
      ['outgoing', 'One pizza, coming up.'],
    ]);
    expect(records[0].body.intent).toEqual({ name: 'Order', inputs: [{ name: 'dish', value: 'pizza' }] });
    expect(records[1].body).toEqual({ type: 'revenueEvent', name: 'order', amount: 9.5, metadata: timed({ dish: 'pizza', currency: 'EUR' }), userId: 'user-1', conversationId: 'conv-1' });
  });

  it('a conversationUpdate is not a message; the welcome it triggers is an outgoing record for the member added', async () => {
    const { url } = await startAgent();
    await post(url, activity({ type: 'conversationUpdate', text: undefined, membersAdded: [{ id: 'user-1', name: 'Ada' }] }));
    const records = await h.records();
    expect(records.map((r) => [r.type, r.body.text, r.body.userId])).toEqual([['outgoing', 'Welcome to the shop! Say menu, order pizza, hours or explain.', 'user-1']]);
  });

  it('a Teams activity from a sub-channel (a ProductInfo entity, here Copilot): platformJson has the channelId the channel sent, and so has the platform mapping', async () => {
    const channels: string[] = [];
    const { url } = await startAgent({ platformForChannel: (channelId) => (channels.push(channelId), 'universal') });
    const sent = activity({ text: 'what is this', entities: [{ type: 'ProductInfo', id: 'COPILOT' }] });
    expect((await post(url, sent)).status).toBe(200);
    const [incoming, outgoing] = (await h.records()).map((r) => r.body);
    expect(channels).toEqual(['msteams', 'msteams']);
    expect(incoming.platformJson.channelId).toBe('msteams');
    expect(incoming.platformJson.entities).toEqual([{ type: 'ProductInfo', id: 'COPILOT' }]);
    // The reply as the SDK put it on the wire: channelId msteams, the sub-channel in its entity.
    expect(channel.sent[0].activity).toMatchObject({ channelId: 'msteams', entities: [{ type: 'ProductInfo', id: 'COPILOT' }] });
    expect(outgoing.platformJson).toMatchObject({ channelId: channel.sent[0].activity.channelId, entities: channel.sent[0].activity.entities });
    expect([privateKeys(incoming.platformJson), privateKeys(outgoing.platformJson)]).toEqual([[], []]);
  });

  it('setOutgoingIntent on the Agents SDK TurnContext labels the next outgoing message, not the typing before it nor the message after it', async () => {
    const { agent, url } = await startAgent();
    agent.onMessage('confirm', async (context: TurnContext) => {
      expect(setOutgoingIntent(context, { name: 'ConfirmOrder', inputs: [{ name: 'dish', value: 'pizza' }] })).toBe(true);
      await context.sendActivity(Activity.fromObject({ type: 'typing' }));
      await context.sendActivity('Your pizza is confirmed.');
      await context.sendActivity('Anything else?');
    }, undefined, 0);
    await post(url, activity({ text: 'confirm' }));
    const records = await h.records();
    expect(channel.sent.map((s) => s.activity.type)).toEqual(['typing', 'message', 'message']);
    expect(records.map((r) => [r.type, r.body.text, r.body.intent])).toEqual([
      ['incoming', 'confirm', undefined],
      ['outgoing', 'Your pizza is confirmed.', { name: 'ConfirmOrder', inputs: [{ name: 'dish', value: 'pizza' }] }],
      ['outgoing', 'Anything else?', undefined],
    ]);
  });

  it('a turn the agent fails still records the incoming message, and the error reaches the adapter untouched', async () => {
    const { agent, url } = await startAgent();
    const boom = new Error('agent failed');
    agent.onMessage('crash', async () => Promise.reject(boom), undefined, 0);
    const failures: unknown[] = [];
    agent.adapter.onTurnError = async (_context, error) => void failures.push(error);
    await post(url, activity({ text: 'crash' }));
    expect(failures).toEqual([boom]);
    expect((await h.records()).map((r) => [r.type, r.body.text])).toEqual([['incoming', 'crash']]);
  });
});

describe('an ActivityHandler on the Agents SDK CloudAdapter over HTTP', () => {
  /** A Teams bot written as an ActivityHandler: it echoes, offers a card, and answers the card's click. */
  function shopHandler(): ActivityHandler {
    const handler = new ActivityHandler();
    handler.onMessage(async (context, next) => {
      if (context.activity.text === 'menu') {
        await context.sendActivity(Activity.fromObject({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.hero', content: { title: 'Menu', buttons: [{ type: 'imBack', title: 'Pizza', value: 'pizza' }] } }] }));
      } else {
        await context.sendActivity(`You said ${context.activity.text}`);
      }
      await next();
    });
    handler.onMembersAdded(async (context, next) => {
      await context.sendActivity('Welcome!');
      await next();
    });
    return handler;
  }

  it('records the message, the reply, a card and the imBack click on it, and the welcome; platformJson as the channel sent it', async () => {
    const url = await startActivityHandler(shopHandler());
    const first = activity({ text: 'hi' });
    expect((await post(url, first)).status).toBe(200);
    await post(url, activity({ text: 'menu' }));
    await post(url, activity({ text: 'pizza' }));
    await post(url, activity({ type: 'conversationUpdate', text: undefined, membersAdded: [{ id: 'user-2', name: 'Bo' }] }));
    const records = await h.records();
    expect(h.errors).toEqual([]);
    expect(channel.sent.map((s) => s.activity.text ?? s.activity.attachments?.[0].content.title)).toEqual(['You said hi', 'Menu', 'You said pizza', 'Welcome!']);
    expect(records.map((r) => [r.platform, r.type, r.body.text, r.body.userId, r.body.postback?.buttonClick.buttonId])).toEqual([
      ['universal', 'incoming', 'hi', 'user-1', undefined],
      ['universal', 'outgoing', 'You said hi', 'user-1', undefined],
      ['universal', 'incoming', 'menu', 'user-1', undefined],
      ['universal', 'outgoing', 'Menu', 'user-1', undefined],
      ['universal', 'incoming', 'pizza', 'user-1', 'pizza'],
      ['universal', 'outgoing', 'You said pizza', 'user-1', undefined],
      ['universal', 'outgoing', 'Welcome!', 'user-1', undefined],
    ]);
    expect(records[0].body.platformJson).toMatchObject(first);
    expect(records[1].body.platformJson).toMatchObject({ channelId: 'msteams', replyToId: first.id, id: channel.sent[0].id, recipient: { id: 'user-1' } });
    expect(records.flatMap((r) => privateKeys(r.body.platformJson))).toEqual([]);
  });
});
