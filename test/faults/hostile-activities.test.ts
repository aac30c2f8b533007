/**
 * Hostile activities through the real middleware: fast-check builds Activity-like objects with
 * wrong types, huge strings, deep nesting, circular channel data, `__proto__`/`constructor` keys,
 * throwing getters and `toJSON`s, and runs each through a TestAdapter with TrackingMiddleware
 * (tracking to a real local endpoint) and through the same adapter without it. The middleware
 * must never change the turn's outcome, and every record must be either stored by the endpoint
 * or refused with a TrackingValidationError (non-message activities are skipped, not refused).
 */
import fc from 'fast-check';
import { TestAdapter, type Activity, type TurnContext } from 'botbuilder';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrackingClient, type TrackingError } from '../../src/index.js';
import { TrackingMiddleware, trackEvent } from '../../src/middleware/index.js';
import { startTrackingEndpoint, type TrackingEndpoint } from 'botbuilder-conversation-analytics-endpoint';


/** The kinds of nameless channel events the middleware records (as in src/middleware/events.ts), and a Messenger event's envelope. */
const CHANNEL_EVENT_KINDS = ['referral', 'optin', 'postback', 'pass_thread_control', 'take_thread_control', 'request_thread_control', 'app_roles', 'payment', 'checkout_update', 'pre_checkout', 'account_linking', 'policy_enforcement', 'reaction', 'game_play', 'message_edit'];
const MESSAGING_ENVELOPE = new Set(['sender', 'recipient', 'timestamp', 'prior_message']);

const KEY = 'hostile-activity-key-31';
const TOKEN = 'EAAHostilePageToken77c2a9';

// ---- hostile values -------------------------------------------------------------------------

function circular(): Record<string, unknown> {
  const a: Record<string, unknown> = { name: 'a', list: [] };
  const b: Record<string, unknown> = { back: a };
  a.b = b;
  (a.list as unknown[]).push(a, b);
  return a;
}

function deep(levels: number): unknown {
  let value: unknown = { leaf: true };
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? { down: value } : [value];
  return value;
}

function throwingGetter(): Record<string, unknown> {
  const o: Record<string, unknown> = { fine: 1 };
  Object.defineProperty(o, 'boom', { enumerable: true, get: () => { throw new Error('getter exploded'); } });
  return o;
}

const protoBombs = [
  '{"__proto__":{"polluted":"yes"},"id":"p1"}',
  '{"constructor":{"prototype":{"polluted":"yes"}},"id":"p2"}',
  '{"a":{"__proto__":{"polluted":"yes"}},"entry":[{"__proto__":{"polluted":"yes"},"messaging":[{"__proto__":{"polluted":"yes"}}]}]}',
].map((json) => () => JSON.parse(json) as unknown);

const HUGE = 'h'.repeat(1_200_000); // past the 1 MiB record limit
const LONG = 'l'.repeat(40_000); // past platformJson's 32 KiB cut

/** Values built fresh per use (some hold cycles or throw when read). */
const special = fc.constantFrom<() => unknown>(
  circular,
  () => deep(20_000),
  () => deep(30),
  throwingGetter,
  ...protoBombs,
  () => ({ toJSON: () => { throw new Error('toJSON exploded'); } }),
  () => ({ toJSON: () => HUGE }),
  () => new Date('not a date'),
  () => new Date(0),
  () => 12n,
  () => Symbol('s'),
  () => () => 'a function',
  () => new Map<unknown, unknown>([['k', circular()]]),
  () => new Set([1, 'two']),
  () => new Uint8Array(8),
  () => new Error('an error as a value'),
  () => HUGE,
  () => LONG,
  () => '\u0000\ud800 lone surrogate \u202e',
  () => NaN,
  () => -Infinity,
  () => Object.assign(Object.create(null) as object, { id: 'no prototype', text: 'x' }),
  () => ({ toString: () => { throw new Error('toString exploded'); }, valueOf: () => { throw new Error('valueOf exploded'); } }),
);

const plain = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.string({ maxLength: 30 }), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined));
const anyValue = fc.oneof({ weight: 3, arbitrary: plain.map((v) => () => v) }, { weight: 2, arbitrary: special });
type Build = () => unknown;
const lit = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<Build> => arb.map((v) => () => v);
const orWrong = (arb: fc.Arbitrary<Build>) => fc.oneof({ weight: 3, arbitrary: arb }, { weight: 1, arbitrary: anyValue });

const account = orWrong(fc.record({ id: orWrong(lit(fc.constantFrom('user-1', 'u', '__proto__', 'constructor', ''))), name: anyValue, role: lit(fc.constantFrom('user', 'bot', undefined)) }, { requiredKeys: ['id'] }).map((r) => () => build(r)));
const url = lit(fc.constantFrom('https://img.example/a.png', 'https://img.example/a.png?sig=SECRET&x=1', 'data:image/png;base64,AAAA', 'https://user:pw@h.example/p?token=t', 'not a url', ''));
const action = fc.record({ type: lit(fc.constantFrom('imBack', 'postBack', 'openUrl', 'messageBack', 'Action.Submit', 'Action.Execute', 'Action.OpenUrl', 'Action.ShowCard')), title: anyValue, value: anyValue, text: anyValue, displayText: anyValue, data: anyValue, verb: anyValue, url: anyValue, card: anyValue }, { requiredKeys: [] }).map((r) => () => build(r));
const card = fc.record({ title: anyValue, subtitle: anyValue, text: anyValue, images: orWrong(fc.array(fc.record({ url: orWrong(url) }).map((r) => () => build(r)), { maxLength: 3 }).map(list)), buttons: orWrong(fc.array(action, { maxLength: 3 }).map(list)), body: orWrong(fc.array(anyValue, { maxLength: 3 }).map(list)), actions: orWrong(fc.array(action, { maxLength: 3 }).map(list)) }, { requiredKeys: [] }).map((r) => () => build(r));
const attachment = orWrong(fc.record({
  contentType: orWrong(lit(fc.constantFrom('image/png', 'video/mp4', 'application/vnd.microsoft.card.hero', 'application/vnd.microsoft.card.thumbnail', 'application/vnd.microsoft.card.adaptive', 'application/vnd.microsoft.card.oauth', 'text/plain'))),
  contentUrl: orWrong(url),
  content: orWrong(card),
  name: anyValue,
}, { requiredKeys: [] }).map((r) => () => build(r)));
const webhook = fc.record({ object: lit(fc.constantFrom('page', 'instagram')), entry: orWrong(fc.array(fc.record({ id: anyValue, time: anyValue, messaging: orWrong(fc.array(anyValue, { maxLength: 2 }).map(list)) }, { requiredKeys: [] }).map((r) => () => build(r)), { maxLength: 2 }).map(list)) }).map((r) => () => build(r));
const messaging = fc.record({ sender: account, recipient: account, timestamp: anyValue, message: anyValue, postback: anyValue }, { requiredKeys: ['sender'] }).map((r) => () => build(r));
const channelData = fc.oneof(anyValue, webhook, messaging, lit(fc.constantFrom({ postBack: true }, { messageBack: {} })), fc.record({ attachment: anyValue, quick_replies: anyValue, nested: anyValue }).map((r) => () => build(r)));

/** Activity-like objects: every field optional, each of the right type most of the time. */
const activityRecipe = fc.record({
  type: orWrong(lit(fc.constantFrom('message', 'message', 'message', 'event', 'conversationUpdate', 'typing', 'invoke', 'messageReaction'))),
  text: orWrong(lit(fc.string({ maxLength: 40 }))),
  channelId: orWrong(lit(fc.constantFrom('facebook', 'sms', 'twitter', 'webchat', 'msteams', 'emulator'))),
  from: account,
  recipient: account,
  conversation: orWrong(fc.record({ id: orWrong(lit(fc.constantFrom('conv-1', 'c/with/slashes', ''))) }).map((r) => () => build(r))),
  id: orWrong(lit(fc.string({ maxLength: 10 }))),
  replyToId: anyValue,
  serviceUrl: orWrong(lit(fc.constantFrom('https://channel.example/', 'https://channel.example/?code=SECRET', ''))),
  timestamp: orWrong(lit(fc.constantFrom('2024-05-01T10:00:00.000Z', 'yesterday'))),
  attachments: orWrong(fc.array(attachment, { maxLength: 3 }).map(list)),
  suggestedActions: orWrong(fc.record({ actions: orWrong(fc.array(action, { maxLength: 3 }).map(list)) }).map((r) => () => build(r))),
  channelData,
  value: anyValue,
  entities: anyValue,
  name: orWrong(lit(fc.constantFrom('page-opened', 'ContinueConversation', ''))),
}, { requiredKeys: [] });
type Recipe = Record<string, Build>;

function list(items: Build[]): Build {
  return () => items.map((item) => item());
}

function build(recipe: Record<string, Build>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, make] of Object.entries(recipe)) out[key] = make();
  return out;
}

/** Paths of own `__proto__` keys, and of `constructor` keys holding a `prototype`, anywhere in `value`. */
function dangerousKeys(value: unknown, path = '$'): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.keys(value).flatMap((key) => {
    const child = (value as Record<string, unknown>)[key];
    const here = `${path}.${key}`;
    const bad = key === '__proto__' || (key === 'constructor' && typeof child === 'object' && child !== null && 'prototype' in child);
    return bad ? [here] : dangerousKeys(child, here);
  });
}

// ---- the runs -------------------------------------------------------------------------------

let endpoint: TrackingEndpoint;
let client: TrackingClient;
const errors: TrackingError[] = [];
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  endpoint = await startTrackingEndpoint({ port: 0, dataFile: false, apiKeys: [KEY], log: (line) => unhandled.push(`endpoint: ${line}`) });
  client = new TrackingClient({ apiKey: KEY, baseUrl: endpoint.url, logger: false, onError: (e) => errors.push(e), maxQueueSize: 100_000 });
  process.on('unhandledRejection', onUnhandled);
});

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await client.close(2_000);
  await endpoint.close();
});

interface Outcome {
  ok: boolean;
  replies: unknown[];
  /** Message activities the channel (the TestAdapter) took. */
  sentMessages: number;
  eventTracked: boolean;
}

/** Runs one turn: the bot replies, sends the hostile outgoing activity, and logs the hostile event. */
async function turn(recipe: Recipe, outgoing: Recipe, event: Build, withTracking: boolean, trackEventActivities: boolean): Promise<Outcome> {
  let eventTracked = false;
  const adapter = new TestAdapter(async (context: TurnContext) => {
    await context.sendActivity('ok, got it');
    eventTracked = trackEvent(context, event() as never);
    await context.sendActivity({ ...build(outgoing), type: 'message' } as Partial<Activity>);
  });
  if (withTracking) adapter.use(new TrackingMiddleware({ client, messengerAccessToken: TOKEN, trackEventActivities }));
  let ok = true;
  try {
    await adapter.processActivity(build(recipe) as Partial<Activity>);
  } catch {
    ok = false;
  }
  const queue = adapter.activeQueue;
  // Texts only when they are strings: a hostile text may be an object that throws when read.
  return { ok, replies: queue.map((a) => (typeof a.text === 'string' ? a.text : typeof a.text)), sentMessages: queue.filter((a) => a.type === 'message').length, eventTracked };
}

describe('hostile activities through TrackingMiddleware', () => {
  it('never change the turn: it succeeds exactly when it does without tracking, with the same replies', async () => {
    let succeeded = 0;
    await fc.assert(
      fc.asyncProperty(activityRecipe, activityRecipe, anyValue, fc.boolean(), async (recipe, outgoing, event, events) => {
        const bare = await turn(recipe, outgoing, event, false, events);
        const tracked = await turn(recipe, outgoing, event, true, events);
        expect(tracked.ok).toBe(bare.ok);
        expect(tracked.replies).toEqual(bare.replies);
        if (tracked.ok) {
          succeeded++;
          expect(tracked.replies[0]).toBe('ok, got it');
        }
      }),
      { numRuns: 300 },
    );
    await client.flush();
    expect(succeeded).toBeGreaterThan(240); // the inputs mostly reach the bot: the property is not vacuous
    expect(unhandled).toEqual([]);
  });

  it('turn every record into either a stored record or a TrackingValidationError; non-message activities are skipped', async () => {
    await fc.assert(
      fc.asyncProperty(activityRecipe, activityRecipe, anyValue, fc.boolean(), async (recipe, outgoing, event, events) => {
        await client.flush();
        const storedBefore = (await endpoint.store.count());
        const errorsBefore = errors.length;
        const incoming = build(recipe);
        const type = incoming.type || 'message'; // TestAdapter's default
        const name = incoming.name;
        const tracked = await turn(recipe, outgoing, event, true, events);
        await client.flush();
        const newErrors = errors.slice(errorsBefore);
        expect(newErrors.filter((e) => e.name !== 'TrackingValidationError').map((e) => `${e.name}: ${e.message}`)).toEqual([]);
        // What the README promises: messages are recorded, receipts (delivery, read, echo) are not; with trackEventActivities,
        // named events (not the adapter's own) are, and so are nameless channel events of a known kind (the generator makes `postback` ones).
        const data = incoming.channelData as Record<string, any> | undefined;
        const obj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
        const receipt = obj(data) && (obj(data.delivery) || obj(data.read) || (obj(data.message) && data.message.is_echo === true));
        const named = typeof name === 'string' && name !== '';
        // A nameless channel event is recorded when it has a known kind, or, for a Messenger messaging event (recipient.id and
        // a numeric timestamp), any field besides the envelope; and a user: from.id, else (Messenger) sender.id. One without a
        // user (a page-level Messenger event: no sender) is skipped, not refused.
        const isSet = (v: unknown) => v !== undefined && v !== null;
        const idOf = (v: unknown) => (typeof v === 'string' ? v : (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'bigint' ? String(v) : undefined);
        const messenger = obj(data) && obj(data.recipient) && idOf(data.recipient.id) !== undefined && typeof data.timestamp === 'number';
        // The TestAdapter puts its own user (id 'user1') in `from` when the activity has none, or one that is the bot.
        const given = incoming.from as { id?: unknown; role?: unknown } | undefined;
        const from = !given || given.id === 'unknown' || given.role === 'bot' ? { id: 'user1' } : given;
        const fromId = idOf(from.id) ?? '';
        const sender = messenger && obj(data.sender) ? idOf(data.sender.id) : undefined;
        const user = messenger ? (sender === undefined ? '' : fromId || sender) : fromId;
        const kind = obj(data) && (CHANNEL_EVENT_KINDS.some((k) => isSet(data[k])) || (messenger && Object.keys(data).some((k) => !MESSAGING_ENVELOPE.has(k) && isSet(data[k]))));
        const channelEvent = !named && obj(data) && !receipt && kind && user !== '';
        const incomingRecords = !receipt && (type === 'message' || (events && type === 'event' && ((named && name !== 'ContinueConversation') || channelEvent))) ? 1 : 0;
        const expected = tracked.ok ? incomingRecords + tracked.sentMessages + (tracked.eventTracked ? 1 : 0) : undefined;
        const produced = (await endpoint.store.count()) - storedBefore + newErrors.length;
        if (expected !== undefined) expect(produced).toBe(expected);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 300 },
    );
    expect(unhandled).toEqual([]);
  });

  it('never pollute Object.prototype, whatever keys the activity carries', async () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    await client.flush();
    const storedBefore = (await endpoint.store.count());
    const errorsBefore = errors.length;
    for (const bomb of protoBombs) {
      const adapter = new TestAdapter(async (context) => void (await context.sendActivity({ text: 'reply', channelData: bomb() } as Partial<Activity>)));
      adapter.use(new TrackingMiddleware({ client, messengerAccessToken: TOKEN }));
      for (const channelId of ['facebook', 'webchat']) {
        await adapter.processActivity({ type: 'message', text: 'hi', channelId, from: bomb() as Activity['from'], channelData: bomb(), value: bomb(), entities: [bomb()] } as Partial<Activity>);
      }
    }
    await client.flush();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    // The endpoint stored what it was sent, without keys that could alter prototypes.
    const stored = (await endpoint.store.records({ limit: 1_000_000 })).slice(storedBefore);
    const refused = errors.slice(errorsBefore);
    expect(refused.map((e) => e.name).filter((n) => n !== 'TrackingValidationError')).toEqual([]);
    expect(stored.length + refused.length).toBe(protoBombs.length * 4);
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.flatMap((record) => dangerousKeys(record.body))).toEqual([]);
  });

  it('refuse a message whose text is over the size limit with a TrackingValidationError, and still deliver the reply', async () => {
    const errorsBefore = errors.length;
    const adapter = new TestAdapter(async (context) => void (await context.sendActivity('reply to a huge message')));
    adapter.use(new TrackingMiddleware({ client }));
    await adapter.processActivity({ type: 'message', text: HUGE, channelId: 'webchat', from: { id: 'u-huge', name: '' } } as Partial<Activity>);
    await client.flush();
    expect(adapter.activeQueue.map((a) => a.text)).toEqual(['reply to a huge message']);
    const refused = errors.slice(errorsBefore);
    expect(refused.map((e) => e.name)).toEqual(['TrackingValidationError']);
    expect(refused[0].message).toMatch(/at most \d+ bytes/);
  });

  it('record a messenger reply to an activity whose id holds a lone surrogate (the channel address is still built)', async () => {
    const errorsBefore = errors.length;
    const storedBefore = (await endpoint.store.count());
    const adapter = new TestAdapter(async (context) => void (await context.sendActivity('reply')));
    adapter.use(new TrackingMiddleware({ client, messengerAccessToken: TOKEN }));
    await adapter.processActivity({ type: 'message', text: 'hi', id: 'mid.\ud800', channelId: 'facebook', from: { id: 'psid-1', name: '' }, conversation: { id: 'conv-\udc00' } as Activity['conversation'], serviceUrl: 'https://channel.example/' } as Partial<Activity>);
    await client.flush();
    expect(errors.slice(errorsBefore)).toEqual([]);
    const [, outgoing] = (await endpoint.store.records({ limit: 1_000_000 })).slice(storedBefore);
    expect((outgoing.body as { uri: string }).uri).toBe('https://channel.example/v3/conversations/conv-%EF%BF%BD/activities/mid.%EF%BF%BD');
  });

  it('record a message whose channel or conversation id is not a string (a Symbol, an object without prototype)', async () => {
    const errorsBefore = errors.length;
    const storedBefore = (await endpoint.store.count());
    const adapter = new TestAdapter(async (context) => void (await context.sendActivity('reply')));
    adapter.use(new TrackingMiddleware({ client }));
    await adapter.processActivity({ type: 'message', text: 'a', from: { id: 'u-sym', name: '' }, conversation: { id: Symbol('c') } } as unknown as Partial<Activity>);
    await adapter.processActivity({ type: 'message', text: 'b', from: { id: 'u-sym', name: '' }, channelId: Object.create(null), conversation: { id: Object.create(null) } } as unknown as Partial<Activity>);
    await client.flush();
    expect(errors.slice(errorsBefore)).toEqual([]);
    expect((await endpoint.store.records({ limit: 1_000_000 })).slice(storedBefore).map((r) => (r.body as { text: string }).text)).toEqual(['a', 'reply', 'b', 'reply']);
  });
});
