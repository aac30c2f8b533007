/**
 * The botbuilder samples as a user runs them: each one's index.mjs in a process of its own (against
 * src/), listening on the port PORT names (0: any free one, which it prints), talked to over HTTP
 * as a channel would, replying to a fake channel service, and tracking to a real local endpoint.
 * SIGTERM stops each one the way its README says: the server stops, the tracking client delivers
 * what is queued, the process exits 0. Then the test reads what the endpoint recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTrackingEndpoint, type TrackingEndpoint } from 'botbuilder-conversation-analytics-endpoint';
import { startChannelService, type ChannelService } from '../helpers/channel-service.js';
import { startScript, type ScriptResult } from '../helpers/run-script.js';
import { ANONYMOUS, SOURCE, message, postUntilUp, storedRecord, transcript, waitForOutput } from './helpers.js';

const KEY = 'botbuilder-samples-key-41d9';

let endpoint: TrackingEndpoint;
let channel: ChannelService;

beforeAll(async () => {
  endpoint = await startTrackingEndpoint({ port: 0, dataFile: false, apiKeys: [KEY], log: () => undefined });
  channel = await startChannelService();
});
afterAll(async () => {
  await channel.close();
  await endpoint.close();
});

/**
 * Runs `samples/{name}/index.mjs`, posts each activity in turn (each answered before the next),
 * then sends SIGTERM. Resolves with the statuses, the replies the channel got for `conversation`,
 * and how the process ended.
 */
/** Resolves once the endpoint's record count has not changed for 150 ms (at most 5 s). */
async function settled(): Promise<void> {
  const deadline = Date.now() + 5_000;
  let last = -1;
  let since = Date.now();
  while (Date.now() < deadline) {
    const count = await endpoint.store.count();
    if (count !== last) [last, since] = [count, Date.now()];
    else if (Date.now() - since >= 150) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** `activity` dated now: its `timestamp`, and a Messenger webhook event's own in its channelData. */
function sentNow(activity: Record<string, unknown>): Record<string, unknown> {
  const channelData = activity.channelData as Record<string, unknown> | undefined;
  const now = Date.now();
  return {
    ...activity,
    timestamp: new Date(now).toISOString(),
    ...(typeof channelData?.timestamp === 'number' ? { channelData: { ...channelData, timestamp: now } } : {}),
  };
}

async function converse(name: string, activities: Record<string, unknown>[], env: Record<string, string> = {}) {
  const listening = waitForOutput(/listening on (http:\/\/127\.0\.0\.1:\d+\/api\/messages)/, 25_000);
  const bot = startScript(`samples/${name}/index.mjs`, {
    nodeArgs: SOURCE,
    env: { ...ANONYMOUS, TRACKING_API_KEY: KEY, TRACKING_BASE_URL: endpoint.url, PORT: '0', ...env },
    timeoutMs: 40_000,
    onOutput: listening.onOutput,
  });
  let result: ScriptResult;
  const statuses: number[] = [];
  try {
    const [, url] = await Promise.race([listening.match, bot.result.then((r) => Promise.reject(new Error(`samples/${name} exited early:\n${r.stderr}`)))]);
    // Dated when sent, as a channel dates what it posts (records are placed by when they happened).
    for (const activity of activities) {
      statuses.push(await postUntilUp(url, sentNow(activity), Date.now() + 5_000));
      // As a person types the next message after reading the answer: the turn's records (a Messenger
      // reply and a share event have no time of their own and are placed when they arrive) are in first.
      await settled();
    }
  } finally {
    process.kill(bot.pid, 'SIGTERM');
    result = await bot.result;
  }
  const conversations = new Set(activities.map((a) => (a.conversation as { id: string }).id));
  const replies = channel.sent.map((s) => s.activity).filter((a) => a.type === 'message' && conversations.has(a.conversation?.id));
  return { statuses, replies, result };
}

describe('samples/intent-bot (botbuilder, an offline recognizer)', () => {
  it("answers by intent; each incoming message is recorded with the recognizer's intent and entities, a low score as NotHandled; SIGTERM delivers and exits 0", async () => {
    const from = { id: 'intent-user', name: 'Ines' };
    const conversation = { id: 'intent-conv' };
    const { statuses, replies, result } = await converse('intent-bot', [
      message(channel.url, 'book a flight to Paris tomorrow', 'intent-1', { from, conversation }),
      message(channel.url, 'weather in Oslo', 'intent-2', { from, conversation }),
      message(channel.url, 'what is the meaning of life', 'intent-3', { from, conversation }),
    ]);
    expect(statuses).toEqual([200, 200, 200]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Intent bot listening on http:\/\/127\.0\.0\.1:\d+\/api\/messages/);
    // The recognizer's trace is for the Emulator: the channel gets the answers only.
    expect(replies.map((r) => r.text)).toEqual(['Booking a flight to Paris for tomorrow.', 'It is sunny in Oslo.', "Sorry, I didn't get that. Say help for ideas."]);

    const entries = await transcript(endpoint, 'intent-user');
    // Three turns, a message in and a reply out each: the recognizer's trace is not a message.
    expect(entries.map((e) => [e.direction, e.text])).toEqual([
      ['incoming', 'book a flight to Paris tomorrow'],
      ['outgoing', 'Booking a flight to Paris for tomorrow.'],
      ['incoming', 'weather in Oslo'],
      ['outgoing', 'It is sunny in Oslo.'],
      ['incoming', 'what is the meaning of life'],
      ['outgoing', "Sorry, I didn't get that. Say help for ideas."],
    ]);
    const [flight, , weather, , none] = entries;
    expect(flight.intent?.name).toBe('BookFlight');
    expect(flight.intent?.inputs).toEqual(expect.arrayContaining([{ name: 'city', value: 'Paris' }, { name: 'date', value: 'tomorrow' }]));
    expect(weather.intent?.name).toBe('Weather');
    expect(weather.intent?.inputs).toEqual(expect.arrayContaining([{ name: 'city', value: 'Oslo' }]));
    // "None" (score 0.1, below the sample's minIntentScore of 0.5) is counted as not understood,
    // with what the recognizer said as inputs.
    expect(none.intent?.name).toBe('NotHandled');
    expect(none.intent?.inputs).toEqual(expect.arrayContaining([{ name: 'topIntent', value: 'None' }, { name: 'score', value: '0.1' }]));
  }, 60_000);
});

describe('samples/messenger-bot (botbuilder, the messenger platform)', () => {
  const PAGE_TOKEN = 'EAAB-sample-page-token-9f3c';

  it('on the facebook channel records the webhook payload in and the send request out, with the card as a template; the page token never reaches the store', async () => {
    const user = { id: 'psid-4242', name: 'Mo' };
    const page = { id: 'page-77', name: 'Pizzeria' };
    const conversation = { id: 'psid-4242-page-77' };
    const webhookEvent = (text: string, mid: string, timestamp: number) => ({ sender: { id: user.id }, recipient: { id: page.id }, timestamp, message: { mid, seq: 1, text } });
    const { statuses, replies, result } = await converse('messenger-bot', [
      message(channel.url, 'menu', 'm_menu', { channelId: 'facebook', from: user, recipient: page, conversation, channelData: webhookEvent('menu', 'm_menu', 1_700_000_000_001) }),
      message(channel.url, 'order pizza', 'm_order', { channelId: 'facebook', from: user, recipient: page, conversation, channelData: webhookEvent('order pizza', 'm_order', 1_700_000_000_002) }),
    ], { FACEBOOK_PAGE_ACCESS_TOKEN: PAGE_TOKEN });
    expect(statuses).toEqual([200, 200]);
    expect(result.code).toBe(0);
    expect(replies.map((r) => r.text ?? r.attachments?.[0]?.contentType)).toEqual(['application/vnd.microsoft.card.hero', 'One pizza coming up!']);

    const entries = await transcript(endpoint, user.id);
    expect(entries.map((e) => [e.direction, e.platform])).toEqual([
      ['incoming', 'facebook'], ['outgoing', 'facebook'], ['incoming', 'facebook'], ['outgoing', 'facebook'],
    ]);
    expect(entries[1].images).toEqual(['https://example.com/images/menu.png']);
    expect(entries[1].buttons?.map((b) => b.label)).toEqual(['Pizza', 'Salad']);

    const [incoming, outgoing] = await Promise.all([storedRecord(endpoint, entries[0].seq), storedRecord(endpoint, entries[1].seq)]);
    expect(incoming).toMatchObject({ platform: 'facebook', type: 'incoming' });
    // The webhook as the channel passed it (dated when sent: see sentNow).
    const sentAt = (incoming.body as { entry: { time: number }[] }).entry[0].time;
    expect(sentAt).toBeGreaterThan(1_700_000_000_001);
    expect(incoming.body).toEqual({ object: 'page', entry: [{ id: page.id, time: sentAt, messaging: [webhookEvent('menu', 'm_menu', sentAt)] }] });
    expect(outgoing).toMatchObject({ platform: 'facebook', type: 'outgoing' });
    expect(outgoing.body.json.recipient).toEqual({ id: user.id });
    expect(outgoing.body.json.message.attachments).toEqual([{
      type: 'template',
      payload: { template_type: 'generic', elements: [expect.objectContaining({ title: 'Today', image_url: 'https://example.com/images/menu.png' })] },
    }]);
    expect(outgoing.body.responseBody.recipient_id).toBe(user.id);
    // The sample passes FACEBOOK_PAGE_ACCESS_TOKEN as messengerAccessToken: sent in the record, replaced at ingestion.
    expect(outgoing.body.qs.access_token).toMatch(/removed/);
    const stored = await (await fetch(`${endpoint.url}/api/transcript?user=${user.id}`)).text();
    expect(stored + JSON.stringify(outgoing) + result.stdout + result.stderr).not.toContain(PAGE_TOKEN);
  }, 60_000);

  it('maps the Emulator channel to the messenger platform too, so the records are messenger-shaped locally', async () => {
    const from = { id: 'emulator-user', name: 'Em' };
    const { statuses, result } = await converse('messenger-bot', [
      message(channel.url, 'hello', 'emu-1', { channelId: 'emulator', from, conversation: { id: 'emu-conv' } }),
    ]);
    expect(statuses).toEqual([200]);
    expect(result.code).toBe(0);
    const entries = await transcript(endpoint, 'emulator-user');
    expect(entries.map((e) => [e.direction, e.platform, e.text])).toEqual([
      ['incoming', 'facebook', 'hello'],
      ['outgoing', 'facebook', 'Hi! Type menu to see what we have.'],
    ]);
    const incoming = await storedRecord(endpoint, entries[0].seq);
    expect(incoming.body.object).toBe('page');
    // Suggested actions become quick replies.
    const outgoing = await storedRecord(endpoint, entries[1].seq);
    expect(outgoing.body.json.message.quick_replies.map((q: { title: string }) => q.title)).toEqual(['menu', 'help']);
  }, 60_000);
});

describe('samples/events-bot (botbuilder, trackEvent)', () => {
  it('records a revenue, a share and a custom event with the messages of the turn that reported them', async () => {
    const from = { id: 'events-user', name: 'Eve' };
    const conversation = { id: 'events-conv' };
    const { statuses, replies, result } = await converse('events-bot', [
      message(channel.url, 'buy coffee', 'ev-1', { from, conversation }),
      message(channel.url, 'share', 'ev-2', { from, conversation }),
      message(channel.url, 'what do you sell', 'ev-3', { from, conversation }),
    ]);
    expect(statuses).toEqual([200, 200, 200]);
    expect(result.code).toBe(0);
    expect(replies.map((r) => r.text)).toEqual([
      'Thanks! One coffee, that is 3.50 EUR.',
      'Shared the menu. Thanks for spreading the word!',
      'We sell coffee, tea, cake. Say "buy coffee", or "share".',
    ]);

    const entries = await transcript(endpoint, 'events-user');
    // Each turn: the message in, the event it reported, the reply.
    expect(entries.map((e) => [e.direction, e.text ?? e.event?.type])).toEqual([
      ['incoming', 'buy coffee'], ['event', 'revenueEvent'], ['outgoing', 'Thanks! One coffee, that is 3.50 EUR.'],
      // A share event has no time of its own (the spec's shape has no place for one): it is placed when it arrived, after the reply sent in its turn.
      ['incoming', 'share'], ['outgoing', 'Shared the menu. Thanks for spreading the word!'], ['event', 'shareEvent'],
      ['incoming', 'what do you sell'], ['event', 'customEvent'], ['outgoing', 'We sell coffee, tea, cake. Say "buy coffee", or "share".'],
    ]);
    expect(entries[1].event).toMatchObject({ name: 'purchase', type: 'revenueEvent', amount: 3.5, referenceNumber: 'order-1' });
    expect(entries[5].event).toMatchObject({ name: 'shared-menu', type: 'shareEvent' });
    expect(entries[7].event).toMatchObject({ name: 'browsed', type: 'customEvent' });
    // The events sit in the conversation of the messages.
    expect(new Set(entries.map((e) => e.conversationId))).toEqual(new Set(['events-conv']));
    const [revenue, custom] = await Promise.all([storedRecord(endpoint, entries[1].seq), storedRecord(endpoint, entries[7].seq)]);
    expect(revenue.body).toMatchObject({ type: 'revenueEvent', userId: 'events-user', conversationId: 'events-conv', metadata: { product: 'coffee', currency: 'EUR' } });
    expect(custom.body).toMatchObject({ type: 'customEvent', name: 'browsed', userId: 'events-user', extraInfo: { said: 'what do you sell' } });
  }, 60_000);
});
