/**
 * What the corpus of recorded conversations still missed, replayed over HTTP through real
 * CloudAdapters (botbuilder's and the Microsoft 365 Agents SDK's) with the tracking middleware,
 * replying through a fake channel service: a click on an older card is a click on the button the
 * user saw; a Messenger event of a kind no list names is a custom event named after it; the
 * page-level events Meta sends without a sender are no record. No record is refused.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloudAdapter as BotbuilderCloudAdapter, ConfigurationBotFrameworkAuthentication, type Activity } from 'botbuilder';
import { authorizeJWT, CloudAdapter as AgentsCloudAdapter, getAuthConfigWithDefaults } from '@microsoft/agents-hosting';
import { validate } from '../../src/protocol/index.js';
import { TrackingMiddleware, type TrackingMiddlewareOptions } from '../../src/middleware/index.js';
import { startChannelService, type ChannelService } from '../helpers/channel-service.js';
import type { Conversation, Saw } from './fixtures/conversations.js';
import { messengerEventKinds } from './fixtures/messenger-event-kinds.js';
import { teamsOlderCard, webchatOlderCard } from './fixtures/older-card-clicks.js';
import { pageLevelEvents } from './fixtures/page-level-events.js';
import { startHarness, type Harness } from './harness.js';
import { KIND, shown } from './transcript-view.js';

let channel: ChannelService;
let h: Harness;
let closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  channel = await startChannelService();
});
afterAll(async () => {
  await channel.close();
});
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  for (const close of closers) await close();
  closers = [];
  await h.close();
});

/** The replies the bot sends in the current turn (the fixture's step). */
type Replies = { current: Record<string, unknown>[] };

/** Listens on 127.0.0.1 (a free port) with express, as both SDKs' samples host a bot; returns the messaging URL. */
async function listen(route: (app: any) => void): Promise<string> {
  const express = createRequire(import.meta.url)('express');
  const app = express();
  app.use(express.json());
  route(app);
  const server = await new Promise<HttpServer>((resolve) => {
    const listening: HttpServer = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  closers.push(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/messages`;
}

/** A bot on botbuilder's CloudAdapter that sends the step's replies. */
async function botbuilderBot(options: TrackingMiddlewareOptions, replies: Replies): Promise<string> {
  const adapter = new BotbuilderCloudAdapter(new ConfigurationBotFrameworkAuthentication({}));
  adapter.use(new TrackingMiddleware({ client: h.client, ...options }));
  return listen((app) => app.post('/api/messages', (req: never, res: never) => adapter.process(req, res, async (context) => {
    for (const reply of replies.current) await context.sendActivity(reply as Partial<Activity>);
  })));
}

/** An agent on the Agents SDK's CloudAdapter (anonymous), hosted as the SDK documents, that sends the step's replies. */
async function agentsBot(options: TrackingMiddlewareOptions, replies: Replies): Promise<string> {
  const authConfig = getAuthConfigWithDefaults({});
  const adapter = new AgentsCloudAdapter(authConfig);
  adapter.use(new TrackingMiddleware({ client: h.client, ...options }));
  return listen((app) => app.post('/api/messages', authorizeJWT(authConfig), (req: never, res: never) => adapter.process(req, res, async (context) => {
    for (const reply of replies.current) await context.sendActivity(reply as never);
  })));
}

const SDKS = [['botbuilder', botbuilderBot], ['the Agents SDK', agentsBot]] as const;
const FIXTURES: [string, Conversation][] = [
  ['a click on an older card in Web Chat (text data)', webchatOlderCard],
  ['a click on an older card in Teams (object data, the newest card a form)', teamsOlderCard],
  ['Messenger events of kinds no list names', messengerEventKinds],
  ["Messenger's page-level events without a sender", pageLevelEvents],
];

describe.each(SDKS)('on %s over HTTP', (_sdk, start) => {
  it.each(FIXTURES)('%s: every record is accepted and shows what the user saw', async (_name, conversation) => {
    const replies: Replies = { current: [] };
    const url = await start(conversation.options ?? {}, replies);
    const expected: Saw[] = [];
    for (const [index, step] of conversation.steps.entries()) {
      replies.current = step.bot;
      const activity = { id: `act-${index}`, timestamp: new Date(1_714_557_600_000 + index * 1000).toISOString(), channelId: conversation.channel, serviceUrl: channel.url, conversation: { id: `conv-${conversation.channel}` }, ...step.user };
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(activity) });
      await response.arrayBuffer();
      expect(response.status).toBeLessThan(300);
      // An event is dated with its activity's timestamp (in extraInfo, where the endpoint reads an event's time).
      if (step.userSaw) expected.push(step.userSaw.extraInfo === undefined ? step.userSaw : { ...step.userSaw, extraInfo: { ...step.userSaw.extraInfo, timestamp: activity.timestamp } });
      expected.push(...step.botSaw);
    }
    const records = await h.records();
    expect(h.errors).toEqual([]);
    for (const record of records) {
      expect(record.platform).toBe(conversation.platform);
      expect(validate(KIND[record.platform], record.type as 'incoming' | 'outgoing' | 'event', record.body)).toEqual([]);
    }
    const offered = new Map<string, string>();
    expect(records.map((record, i) => shown(record, i + 1, offered, true))).toEqual(expected);
  });
});
