/**
 * End to end on the Microsoft 365 Agents SDK: the sample agent (an AgentApplication on its own
 * CloudAdapter, anonymous mode) hosted the way the SDK's express host does it, on 127.0.0.1, replying
 * through a fake channel service, with the tracking middleware sending to a real local sink.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentApplication, TurnState } from '@microsoft/agents-hosting';
import { TrackingMiddleware, type TrackingMiddlewareOptions } from '../../src/index.js';
import { startChannelService, type ChannelService } from '../helpers/channel-service.js';
import { startHarness, type Harness } from './harness.js';

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
      expect(Object.keys(platformJson).filter((key) => key.startsWith('_'))).toEqual([]);
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
    await post(url, invoke({ action: { type: 'Action.Execute', verb: 'order', data: { order: 'pizza' } } }, 'adaptiveCard/action'));
    const records = await h.records();
    // The message-extension query is no message; the Action.Execute invoke is a click on the card's button.
    expect(records.map((r) => r.type)).toEqual(['incoming', 'outgoing', 'event', 'event', 'incoming']);
    expect(records[4].body).toMatchObject({ text: '', userId: 'user-1', postback: { buttonClick: { buttonId: 'order' } } });
    expect(records.slice(2, 4).map((r) => [r.platform, r.body])).toEqual([
      ['universal', { type: 'customEvent', name: 'feedback', userId: 'user-1', conversationId: 'conv-1', extraInfo: { reaction: 'like', feedbackText: 'Spot on, thanks', replyToId: reply.id } }],
      ['universal', { type: 'customEvent', name: 'feedback', userId: 'user-1', conversationId: 'conv-1', extraInfo: { reaction: 'dislike', replyToId: reply.id } }],
    ]);
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
    expect(records[1].body).toEqual({ type: 'revenueEvent', name: 'order', amount: 9.5, metadata: { dish: 'pizza', currency: 'EUR' }, userId: 'user-1', conversationId: 'conv-1' });
  });

  it('a conversationUpdate is not a message; the welcome it triggers is an outgoing record for the member added', async () => {
    const { url } = await startAgent();
    await post(url, activity({ type: 'conversationUpdate', text: undefined, membersAdded: [{ id: 'user-1', name: 'Ada' }] }));
    const records = await h.records();
    expect(records.map((r) => [r.type, r.body.text, r.body.userId])).toEqual([['outgoing', 'Welcome to the shop! Say menu, order pizza, hours or explain.', 'user-1']]);
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
