/**
 * What a batch of records adds to the views, computed without a database (store/rows.ts): the
 * entry row of each transcript entry (every column, a feedback event's reaction, comment and
 * reply, every text value passed through the dialect), and the summary rows a batch sums up
 * (users, conversations, counts per hour and day, active days and weeks, messages, clicks), with
 * how rows of one key merge within a batch and the order they are written in.
 */
import { describe, expect, it } from 'vitest';
import { postgresDialect, sqliteDialect, type Dialect } from '../../src/store/dialect.js';
import { batchRows, entriesOf, FEEDBACK_EVENT } from '../../src/store/rows.js';
import type { CountsTable, EntriesTable } from '../../src/store/schema.js';
import type { StoredRecord } from '../../src/types.js';

const BOT = 'abcdefabcdef';
/** When the batch's records were received (a Tuesday): after every time the records give. */
const RECEIVED = '2026-03-10T12:34:56.789Z';
const ms = (iso: string): number => Date.parse(iso);
const HOUR = 3_600_000;

/** A dialect that marks every value it is given, to see which columns go through `text`. */
const marking: Dialect = { ...sqliteDialect, text: (value) => `<${value}>` };

const KINDS: Record<string, StoredRecord['platformKind']> = { universal: 'universal', sms: 'sms', twitter: 'directMessage', messenger: 'messenger' };

/** A stored record of `type` with `body`, received at RECEIVED, on the universal platform unless `more` says otherwise. */
function record(type: StoredRecord['type'], body: unknown, more: Partial<StoredRecord> = {}): StoredRecord {
  const platform = more.platform === undefined ? 'universal' : more.platform;
  return {
    seq: 1, receivedAt: RECEIVED, occurredAt: RECEIVED, platform, platformKind: platform === null ? null : KINDS[platform] ?? 'universal',
    v: '10.1.1-rest', type, bot: BOT, body, ...more,
  };
}

/** A message as a bot framework sends it, from the fields a test cares about. */
interface Message {
  at: string;
  user?: string;
  conversation?: string;
  text?: string;
  type?: 'incoming' | 'outgoing';
  platform?: string;
  channel?: string;
  name?: string;
  intent?: string;
  /** The intent's `score` input, as text. */
  score?: string;
  button?: string;
  ai?: boolean;
  bot?: string;
}

function message(m: Message): StoredRecord {
  const type = m.type ?? 'incoming';
  const platformJson: Record<string, unknown> = { timestamp: m.at };
  if (m.conversation !== undefined) platformJson.conversation = { id: m.conversation };
  if (m.channel !== undefined) platformJson.channelId = m.channel;
  if (m.name !== undefined) platformJson[type === 'incoming' ? 'from' : 'recipient'] = { name: m.name };
  if (m.ai) platformJson.entities = [{ type: 'https://schema.org/Message', additionalType: ['AIGeneratedContent'] }];
  const body: Record<string, unknown> = { platformJson };
  if (m.user !== undefined) body.userId = m.user;
  if (m.text !== undefined) body.text = m.text;
  if (m.intent !== undefined) body.intent = { name: m.intent, inputs: m.score === undefined ? [] : [{ name: 'score', value: m.score }] };
  if (m.button !== undefined) body.postback = { buttonClick: { buttonId: m.button } };
  return record(type, body, { platform: m.platform ?? 'universal', bot: m.bot ?? BOT });
}

/** An event (a custom event unless `type` says otherwise), on the direct-message platform unless `platform` says otherwise. */
interface Event {
  at: string;
  name: string;
  type?: string;
  user?: string;
  conversation?: string;
  amount?: number;
  /** `metadata.currency`. */
  currency?: string;
  extraInfo?: Record<string, unknown>;
  platform?: string;
}

function event(e: Event): StoredRecord {
  const metadata: Record<string, unknown> = { timestamp: e.at };
  if (e.currency !== undefined) metadata.currency = e.currency;
  const body: Record<string, unknown> = { type: e.type ?? 'customEvent', name: e.name, metadata };
  if (e.user !== undefined) body.userId = e.user;
  if (e.conversation !== undefined) body.conversationId = e.conversation;
  if (e.amount !== undefined) body.amount = e.amount;
  if (e.extraInfo !== undefined) body.extraInfo = e.extraInfo;
  return record('event', body, { platform: e.platform ?? 'twitter', v: '11.1.0-rest' });
}

/** A messenger webhook record with the messaging items given (one entry each), or none. */
function webhook(items: Record<string, unknown>[][], more: Partial<StoredRecord> = {}): StoredRecord {
  return record('incoming', { object: 'page', entry: items.map((messaging) => ({ messaging })) }, { platform: 'messenger', v: '11.1.0-rest', ...more });
}

/** The records numbered from 101 on, in batch order. */
function numbered(records: StoredRecord[]): StoredRecord[] {
  return records.map((r, i) => ({ ...r, seq: 101 + i }));
}

/** What a batch adds, its entry rows made by entriesOf. */
function rowsOf(records: StoredRecord[], dialect: Dialect = sqliteDialect) {
  const batch = numbered(records);
  return batchRows(batch, entriesOf(batch, dialect), dialect);
}

/** The only entry row of a record. */
function rowOf(r: StoredRecord, dialect: Dialect = sqliteDialect): EntriesTable {
  const rows = entriesOf([r], dialect);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toHaveLength(1);
  return rows[0][0];
}

/** The columns of an entry row with nothing in them. */
const EMPTY = {
  user_name: null, text: null, text_key: null, intent: null, intent_score: null, clicked_button: null, ai_generated: 0,
  event_type: null, event_name: null, amount: null, currency: null, activity_id: null, reaction: null, comment: null, reply_to: null, rated_intent: null,
};

describe('the entry row of a message', () => {
  it('holds every column of an incoming message: record, time, platform, channel, user and name, conversation, text and its key, intent and score, button, activity', () => {
    const r = record('incoming', {
      text: 'Hi!!  There', userId: 'u1',
      intent: { name: 'Greet', inputs: [{ name: 'score', value: '0.75' }] },
      postback: { buttonClick: { buttonId: 'btn-1' } },
      platformJson: { timestamp: '2026-03-05T10:00:00.000Z', conversation: { id: 'conv-1' }, from: { id: 'u1', name: 'Ann' }, channelId: 'webchat', id: 'act-1' },
    }, { seq: 7 });
    expect(entriesOf([r], sqliteDialect)).toStrictEqual([[{
      seq: 7, idx: 0, bot: BOT, occurred_at: ms('2026-03-05T10:00:00.000Z'), received_at: ms(RECEIVED),
      platform: 'universal', channel: 'webchat', direction: 'incoming', user_id: 'u1', user_name: 'Ann', conversation_id: 'conv-1',
      text: 'Hi!!  There', text_key: 'hi there', intent: 'Greet', intent_score: 0.75, clicked_button: 'btn-1', ai_generated: 0,
      event_type: null, event_name: null, amount: null, currency: null, activity_id: 'act-1',
      reaction: null, comment: null, reply_to: null, rated_intent: null,
    }]]);
  });

  it('of an outgoing reply marked AI-generated has ai_generated 1, and null for what it does not carry (name, intent, score, button, activity); no channel is \'\'', () => {
    const r = record('outgoing', {
      text: 'Here you go', userId: 'u1',
      platformJson: { conversation: { id: 'conv-1' }, recipient: { id: 'u1' }, entities: [{ type: 'https://schema.org/Message', additionalType: ['AIGeneratedContent'] }] },
    }, { seq: 8, platform: 'sms', v: '11.1.0-rest', bot: 'fedcbafedcba' });
    expect(rowOf(r)).toStrictEqual({
      ...EMPTY,
      seq: 8, idx: 0, bot: 'fedcbafedcba', occurred_at: ms(RECEIVED), received_at: ms(RECEIVED),
      platform: 'sms', channel: '', direction: 'outgoing', user_id: 'u1', conversation_id: 'conv-1',
      text: 'Here you go', text_key: 'here you go', ai_generated: 1,
    });
  });

  it('of a scripted record (no platform, no user, no conversation) has platform, channel, user and conversation \'\'', () => {
    expect(rowOf(record('generic', { text: 'From a script' }, { platform: null, platformKind: null, v: null }))).toStrictEqual({
      ...EMPTY,
      seq: 1, idx: 0, bot: BOT, occurred_at: ms(RECEIVED), received_at: ms(RECEIVED),
      platform: '', channel: '', direction: 'incoming', user_id: '', conversation_id: '', text: 'From a script', text_key: 'from a script',
    });
  });

  it('has no text key for text made only of punctuation, and an intent score of 0 when the score says 0', () => {
    const row = rowOf(message({ at: '2026-03-05T10:00:00Z', user: 'u', text: '?!', intent: 'None', score: '0' }));
    expect([row.text, row.text_key, row.intent, row.intent_score]).toStrictEqual(['?!', null, 'None', 0]);
  });
});

describe('the entry rows of a batch', () => {
  it('of a messenger webhook record are one per messaging item, numbered 0, 1, 2 (idx) within the record, with the record\'s seq, bot and receipt time', () => {
    const t = ms('2026-03-05T09:00:00.000Z');
    const r = webhook([
      [
        { sender: { id: 'p1' }, timestamp: t, message: { text: 'Hello' }, intent: { name: 'Greet', inputs: [{ name: 'score', value: '0.9' }] } },
        { sender: { id: 'p1' }, timestamp: t + 1000, message: { text: 'Yes please', quick_reply: { payload: 'YES' } } },
      ],
      [{ sender: { id: 'p2' }, timestamp: t + 2000, postback: { payload: 'START' } }],
    ], { seq: 42 });
    const head = { seq: 42, bot: BOT, received_at: ms(RECEIVED), platform: 'messenger', channel: '', direction: 'incoming' };
    expect(entriesOf([r], sqliteDialect)).toStrictEqual([[
      { ...EMPTY, ...head, idx: 0, occurred_at: t, user_id: 'p1', conversation_id: 'p1', text: 'Hello', text_key: 'hello', intent: 'Greet', intent_score: 0.9 },
      { ...EMPTY, ...head, idx: 1, occurred_at: t + 1000, user_id: 'p1', conversation_id: 'p1', text: 'Yes please', text_key: 'yes please', clicked_button: 'YES' },
      { ...EMPTY, ...head, idx: 2, occurred_at: t + 2000, user_id: 'p2', conversation_id: 'p2', clicked_button: 'START' },
    ]]);
  });

  it('are a list per record, in batch order, and an empty list for a record with no entry', () => {
    const batch = [webhook([], { seq: 1 }), message({ at: '2026-03-05T10:00:00Z', user: 'u', text: 'a' }), record('generic', 'not an object', { seq: 3 })];
    const rows = entriesOf(batch, sqliteDialect);
    expect(rows.map((list) => list.map((row) => row.text))).toStrictEqual([[], ['a'], []]);
  });
});

describe('the entry row of an event', () => {
  const at = '2026-03-05T10:05:00.000Z';
  const head = { seq: 1, idx: 0, bot: BOT, occurred_at: ms(at), received_at: ms(RECEIVED), platform: 'twitter', channel: '', direction: 'event' };

  it('of a revenue event holds its type, name, amount and currency', () => {
    const r = event({ at, type: 'revenueEvent', name: 'purchase', user: 'u1', conversation: 'conv-1', amount: 9.5, currency: 'eur' });
    expect(rowOf(r)).toStrictEqual({ ...EMPTY, ...head, user_id: 'u1', conversation_id: 'conv-1', event_type: 'revenueEvent', event_name: 'purchase', amount: 9.5, currency: 'EUR' });
  });

  it('of a custom event of another name than feedback has no reaction, comment nor reply, whatever its extraInfo holds', () => {
    const r = event({ at, name: 'signup', user: 'u1', amount: 3, extraInfo: { reaction: 'like', feedbackText: 'nice', comment: 'c', replyToId: 'act-1', currency: 'usd' } });
    expect(rowOf(r)).toStrictEqual({ ...EMPTY, ...head, user_id: 'u1', conversation_id: 'u1', event_type: 'customEvent', event_name: 'signup', amount: 3, currency: 'USD' });
  });

  it('of a page-launch event without user nor conversation has user and conversation \'\'', () => {
    const r = event({ at, type: 'pageLaunchEvent', name: 'docs', extraInfo: { url: 'https://example.com/docs' } });
    expect(rowOf(r)).toStrictEqual({ ...EMPTY, ...head, user_id: '', conversation_id: '', event_type: 'pageLaunchEvent', event_name: 'docs' });
  });

  it('of a share event holds no text, even with a shared message', () => {
    const r = record('event', { type: 'shareEvent', name: 'share', userId: 'u2', sharedMessage: { text: 'look' }, metadata: { timestamp: at } }, { platform: 'twitter' });
    expect(rowOf(r)).toStrictEqual({ ...EMPTY, ...head, user_id: 'u2', conversation_id: 'u2', event_type: 'shareEvent', event_name: 'share' });
  });
});

describe('a feedback event (a custom event named feedback)', () => {
  const feedback = (extraInfo: Record<string, unknown> | undefined, name = 'feedback', type = 'customEvent'): EntriesTable =>
    rowOf(event({ at: '2026-03-05T10:05:00Z', type, name, user: 'u1', extraInfo }));
  const rated = (row: EntriesTable) => [row.reaction, row.comment, row.reply_to, row.rated_intent];

  it('is the event named "feedback"', () => {
    expect(FEEDBACK_EVENT).toBe('feedback');
  });

  it('gives its reaction, its feedbackText as comment (rather than comment), and the reply it rates; rated_intent is left null', () => {
    expect(rated(feedback({ reaction: 'like', feedbackText: 'Great answer', comment: 'ignored', replyToId: 'act-1' }))).toStrictEqual(['like', 'Great answer', 'act-1', null]);
  });

  it('takes comment when there is no feedbackText', () => {
    expect(rated(feedback({ reaction: 'dislike', comment: 'Wrong' }))).toStrictEqual(['dislike', 'Wrong', null, null]);
  });

  it('has no comment for an empty one, nor for one that is not text; no reply for an id that is not text', () => {
    expect(rated(feedback({ reaction: 'up', feedbackText: '' }))).toStrictEqual(['like', null, null, null]);
    expect(rated(feedback({ reaction: 'up', comment: '' }))).toStrictEqual(['like', null, null, null]);
    expect(rated(feedback({ reaction: 'up', comment: 5, replyToId: 5 }))).toStrictEqual(['like', null, null, null]);
    expect(rated(feedback({ reaction: 'up', feedbackText: { text: 'x' }, replyToId: null }))).toStrictEqual(['like', null, null, null]);
  });

  it('takes comment when feedbackText is empty or not text', () => {
    expect(rated(feedback({ reaction: 'like', feedbackText: '', comment: 'Helpful' }))).toStrictEqual(['like', 'Helpful', null, null]);
    expect(rated(feedback({ reaction: 'like', feedbackText: 3, comment: 'Helpful' }))).toStrictEqual(['like', 'Helpful', null, null]);
  });

  it('keeps the first 2,000 characters of a comment', () => {
    expect(feedback({ feedbackText: 'a'.repeat(2000) }).comment).toBe('a'.repeat(2000));
    expect(feedback({ feedbackText: `${'b'.repeat(2000)}c` }).comment).toBe('b'.repeat(2000));
  });

  it('without extraInfo has no reaction, comment nor reply', () => {
    expect(rated(feedback(undefined))).toStrictEqual([null, null, null, null]);
  });

  it('is only a custom event, and only of that exact name', () => {
    const extraInfo = { reaction: 'like', feedbackText: 'x', replyToId: 'act-1' };
    expect(rated(feedback(extraInfo, 'feedback', 'pageLaunchEvent'))).toStrictEqual([null, null, null, null]);
    expect(rated(feedback(extraInfo, 'Feedback'))).toStrictEqual([null, null, null, null]);
    expect(rated(feedback(extraInfo, 'feedbacks'))).toStrictEqual([null, null, null, null]);
  });
});

describe('the reaction of a feedback event', () => {
  const reaction = (value: unknown): string | null =>
    rowOf(event({ at: '2026-03-05T10:05:00Z', name: 'feedback', user: 'u1', extraInfo: { reaction: value } })).reaction;

  it('is like for every word of a thumbs up, in any case and with spaces around', () => {
    for (const word of ['like', 'up', 'thumbsup', '+1', '👍', 'positive', 'true', '1']) {
      expect(reaction(word), word).toBe('like');
      expect(reaction(` ${word.toUpperCase()}  `), word).toBe('like');
    }
    expect(reaction('  Like')).toBe('like');
    expect(reaction('ThumbsUp\t')).toBe('like');
  });

  it('is dislike for every word of a thumbs down, in any case and with spaces around', () => {
    for (const word of ['dislike', 'down', 'thumbsdown', '-1', '👎', 'negative', 'false', '0']) {
      expect(reaction(word), word).toBe('dislike');
      expect(reaction(`\n${word.toUpperCase()} `), word).toBe('dislike');
    }
    expect(reaction('  Dislike')).toBe('dislike');
    expect(reaction('DOWN  ')).toBe('dislike');
  });

  it('is like for true and 1, dislike for false, 0 and -1', () => {
    expect([reaction(true), reaction(1), reaction(1.0)]).toStrictEqual(['like', 'like', 'like']);
    expect([reaction(false), reaction(0), reaction(-1)]).toStrictEqual(['dislike', 'dislike', 'dislike']);
  });

  it('is null for anything else: other words, other numbers, objects, lists, null, nothing', () => {
    for (const value of ['meh', '', 'likes', 'thumbs up', 2, -2, 0.5, {}, { reaction: 'like' }, ['like'], [1], null, undefined]) {
      expect(reaction(value), JSON.stringify(value)).toBeNull();
    }
  });
});

describe('the text values of an entry row', () => {
  const message1 = record('incoming', {
    text: 'Hi!!  There', userId: 'u1',
    intent: { name: 'Greet', inputs: [{ name: 'score', value: '0.75' }] },
    postback: { buttonClick: { buttonId: 'btn-1' } },
    platformJson: { timestamp: '2026-03-05T10:00:00.000Z', conversation: { id: 'conv-1' }, from: { name: 'Ann' }, channelId: 'webchat', id: 'act-1' },
  }, { seq: 7 });

  it('all go through the dialect\'s text; numbers, the direction, the bot and the reaction do not', () => {
    expect(rowOf(message1, marking)).toStrictEqual({
      seq: 7, idx: 0, bot: BOT, occurred_at: ms('2026-03-05T10:00:00.000Z'), received_at: ms(RECEIVED),
      platform: '<universal>', channel: '<webchat>', direction: 'incoming', user_id: '<u1>', user_name: '<Ann>', conversation_id: '<conv-1>',
      text: '<Hi!!  There>', text_key: '<hi there>', intent: '<Greet>', intent_score: 0.75, clicked_button: '<btn-1>', ai_generated: 0,
      event_type: null, event_name: null, amount: null, currency: null, activity_id: '<act-1>',
      reaction: null, comment: null, reply_to: null, rated_intent: null,
    });
    const feedback = event({ at: '2026-03-05T10:05:00Z', name: 'feedback', user: 'u1', conversation: 'conv-1', amount: 2, currency: 'eur', extraInfo: { reaction: 'like', feedbackText: 'Thanks', replyToId: 'act-1' } });
    expect(rowOf(feedback, marking)).toStrictEqual({
      ...EMPTY, seq: 1, idx: 0, bot: BOT, occurred_at: ms('2026-03-05T10:05:00Z'), received_at: ms(RECEIVED),
      platform: '<twitter>', channel: '<>', direction: 'event', user_id: '<u1>', conversation_id: '<conv-1>',
      event_type: '<customEvent>', event_name: '<feedback>', amount: 2, currency: '<EUR>', reaction: 'like', comment: '<Thanks>', reply_to: '<act-1>',
    });
  });

  it('that are absent stay null, and an absent platform or channel is the dialect\'s text of \'\'', () => {
    expect(rowOf(record('generic', {}, { platform: null, platformKind: null, v: null }), marking)).toStrictEqual({
      ...EMPTY, seq: 1, idx: 0, bot: BOT, occurred_at: ms(RECEIVED), received_at: ms(RECEIVED),
      platform: '<>', channel: '<>', direction: 'incoming', user_id: '<>', conversation_id: '<>',
    });
  });

  it('have a comment cut to 2,000 characters before the dialect sees it', () => {
    const row = rowOf(event({ at: '2026-03-05T10:05:00Z', name: 'feedback', extraInfo: { comment: 'c'.repeat(2100) } }), marking);
    expect(row.comment).toBe(`<${'c'.repeat(2000)}>`);
  });

  it('on PostgreSQL have NUL characters and lone surrogates replaced by U+FFFD', () => {
    const r = record('incoming', { text: 'a\u0000b', userId: 'u\u0000', platformJson: { timestamp: '2026-03-05T10:00:00Z', from: { name: 'Ann\ud800' }, channelId: 'web\u0000chat' } });
    const row = rowOf(r, postgresDialect);
    expect([row.text, row.text_key, row.user_id, row.user_name, row.conversation_id, row.channel]).toStrictEqual(['a\ufffdb', 'a\ufffdb', 'u\ufffd', 'Ann\ufffd', 'u\ufffd', 'web\ufffdchat']);
  });

  it('are not passed through the dialect again when the batch sums them up', () => {
    const rows = rowsOf([message1], marking);
    expect(rows.users).toStrictEqual([{
      bot: BOT, user_id: '<u1>', name: '<Ann>', name_at: ms('2026-03-05T10:00:00.000Z'), first_at: ms('2026-03-05T10:00:00.000Z'), last_at: ms('2026-03-05T10:00:00.000Z'),
      platform: '<universal>', channel: '<webchat>', channel_at: ms('2026-03-05T10:00:00.000Z'), messages: 1, events: 0,
    }]);
    expect(rows.messageTotals).toStrictEqual([{ bot: BOT, platform: '<universal>', channel: '<webchat>', text_key: '<hi there>', intent: '<Greet>', text: '<Hi!!  There>', count: 1 }]);
  });
});

/** A counts row, with zeros and '' where `fields` gives nothing. */
function count(fields: Partial<CountsTable> & Pick<CountsTable, 'width' | 'at' | 'type'>): CountsTable {
  return {
    bot: BOT, platform: '', channel: '', direction: '', intent: '', event_type: '', event_name: '', currency: '',
    records: 0, entries: 0, ai_generated: 0, revenue: 0, score_sum: 0, scored: 0, ...fields,
  };
}

describe('a record with no entry', () => {
  it('still counts as a record, per hour and per day of when it was received, with its platform and type; two of one hour and platform merge', () => {
    const batch = [
      webhook([], { receivedAt: '2026-03-10T12:00:00.000Z', occurredAt: '2026-03-01T00:00:00.000Z' }),
      webhook([], { receivedAt: '2026-03-10T12:59:59.999Z', occurredAt: '2026-03-10T12:59:59.999Z' }),
      record('generic', 'not an object', { receivedAt: '2026-03-10T13:00:00.000Z', platform: null, platformKind: null, v: null }),
    ];
    const rows = rowsOf(batch);
    const day = ms('2026-03-10T00:00:00Z');
    expect(rows.counts).toStrictEqual([
      count({ width: 'd', at: day, type: 'generic', records: 1 }),
      count({ width: 'd', at: day, platform: 'messenger', type: 'incoming', records: 2 }),
      count({ width: 'h', at: ms('2026-03-10T12:00:00Z'), platform: 'messenger', type: 'incoming', records: 2 }),
      count({ width: 'h', at: ms('2026-03-10T13:00:00Z'), type: 'generic', records: 1 }),
    ]);
    expect(rows).toStrictEqual({ ...rows, entries: [], users: [], conversations: [], conversationUsers: [], userDays: [], userWeeks: [], dailyMessages: [], messageTotals: [], dailyClicks: [] });
  });

  it('has its platform through the dialect\'s text (\'\' when none)', () => {
    const rows = rowsOf([webhook([]), record('generic', null, { platform: null, platformKind: null, v: null })], marking);
    expect(rows.counts.map((c) => `${c.width} ${c.platform}`)).toStrictEqual(['d <>', 'd <messenger>', 'h <>', 'h <messenger>']);
  });

  it('is written before the entries of its hour and platform that have no channel', () => {
    const rows = rowsOf([
      webhook([[{ sender: { id: 'p1' }, timestamp: ms('2026-03-10T12:30:00Z'), message: { text: 'Hi' } }]]),
      webhook([], { receivedAt: '2026-03-10T12:40:00.000Z' }),
    ]);
    expect(rows.counts.map((c) => `${c.width} ${c.direction || '-'} ${c.records}/${c.entries}`)).toStrictEqual(['d - 1/0', 'd incoming 1/1', 'h - 1/0', 'h incoming 1/1']);
  });
});

describe('users and conversations of a batch', () => {
  const T1 = '2026-03-03T08:00:00.000Z';
  const T2 = '2026-03-03T09:00:00.000Z';
  const T3 = '2026-03-03T10:00:00.000Z';
  const summary = (fields: { first: string; last: string; platform: string; channel: string; channelAt: string; messages: number; events: number }) => ({
    first_at: ms(fields.first), last_at: ms(fields.last), platform: fields.platform, channel: fields.channel, channel_at: ms(fields.channelAt), messages: fields.messages, events: fields.events,
  });
  /** `name`: the user's name and when the entry that gave it happened, or null. */
  const check = (records: StoredRecord[], name: [string, string] | null, fields: Parameters<typeof summary>[0]) => {
    const rows = rowsOf(records);
    expect(rows.users).toStrictEqual([{ bot: BOT, user_id: 'u', name: name?.[0] ?? null, name_at: name === null ? 0 : ms(name[1]), ...summary(fields) }]);
    expect(rows.conversations).toStrictEqual([{ bot: BOT, conversation_id: 'c', ...summary(fields) }]);
    expect(rows.conversationUsers).toStrictEqual([{ bot: BOT, conversation_id: 'c', user_id: 'u', first_at: ms(fields.first) }]);
  };

  it('are told apart by every part of their key, also ids that hold a NUL character (SQLite keeps it)', () => {
    const rows = rowsOf([
      message({ at: T1, user: 'v', conversation: 'c\u0000u', text: 'a' }),
      message({ at: T1, user: 'u\u0000v', conversation: 'c', text: 'a' }),
    ]);
    expect(rows.conversationUsers.map((row) => [row.conversation_id, row.user_id])).toStrictEqual([['c', 'u\u0000v'], ['c\u0000u', 'v']]);
    expect(rows.users.map((row) => row.user_id)).toStrictEqual(['u\u0000v', 'v']);
    expect(rows.conversations.map((row) => row.conversation_id)).toStrictEqual(['c', 'c\u0000u']);
    // Nor the escape that keeps NUL out of a key: ids that would read the same once escaped stay apart.
    const escapes = rowsOf(['x', 'x\u0000', 'x\u0001', 'x\u00010', 'x\u00011', 'x0', '\u0000\u0001'].map((user) => message({ at: T1, user, conversation: 'c' })));
    expect(escapes.users).toHaveLength(7);
    expect(escapes.conversationUsers).toHaveLength(7);
  });

  it('take the platform and channel of a later entry; a later entry without a name keeps the name', () => {
    check([
      message({ at: T1, user: 'u', conversation: 'c', platform: 'sms', channel: 'webchat', name: 'Ann' }),
      message({ at: T2, user: 'u', conversation: 'c', platform: 'universal', channel: 'msteams' }),
    ], ['Ann', T1], { first: T1, last: T2, platform: 'universal', channel: 'msteams', channelAt: T2, messages: 2, events: 0 });
  });

  it('take the name of the latest entry that has one, by when it happened, whatever order they come in; of two at one moment, the later in the batch', () => {
    // (No channel: channel_at is that of the first entry of the batch, and says nothing.)
    const fields = { first: T1, last: T3, platform: 'universal', channel: '', channelAt: T2, messages: 3, events: 0 };
    check([
      message({ at: T2, user: 'u', conversation: 'c', name: 'Newer' }),
      message({ at: T3, user: 'u', conversation: 'c' }),
      message({ at: T1, user: 'u', conversation: 'c', name: 'Older' }),
    ], ['Newer', T2], fields);
    check([
      message({ at: T1, user: 'u', conversation: 'c', name: 'Older' }),
      message({ at: T3, user: 'u', conversation: 'c' }),
      message({ at: T2, user: 'u', conversation: 'c', name: 'Newer' }),
    ], ['Newer', T2], { ...fields, channelAt: T1 });
    check([
      message({ at: T2, user: 'u', conversation: 'c', name: 'First' }),
      message({ at: T2, user: 'u', conversation: 'c', name: 'Second' }),
      message({ at: T3, user: 'u', conversation: 'c' }),
      message({ at: T1, user: 'u', conversation: 'c' }),
    ], ['Second', T2], { ...fields, messages: 4 });
  });

  it('keep the platform and channel of the latest entry when an earlier one comes later in the batch, which gives the first time and its name', () => {
    check([
      message({ at: T2, user: 'u', conversation: 'c', platform: 'universal', channel: 'webchat' }),
      message({ at: T1, user: 'u', conversation: 'c', platform: 'sms', channel: 'msteams', name: 'Bob' }),
    ], ['Bob', T1], { first: T1, last: T2, platform: 'universal', channel: 'webchat', channelAt: T2, messages: 2, events: 0 });
  });

  it('keep their channel when later entries have none (events), which still give the platform', () => {
    check([
      message({ at: T1, user: 'u', conversation: 'c', platform: 'universal', channel: 'webchat' }),
      event({ at: T2, name: 'a', user: 'u', conversation: 'c', platform: 'twitter' }),
      event({ at: T3, name: 'b', user: 'u', conversation: 'c', platform: 'twitter' }),
    ], null, { first: T1, last: T3, platform: 'twitter', channel: 'webchat', channelAt: T1, messages: 1, events: 2 });
  });

  it('take the channel of an earlier entry when they have none yet', () => {
    check([
      event({ at: T2, name: 'a', user: 'u', conversation: 'c', platform: 'twitter' }),
      message({ at: T1, user: 'u', conversation: 'c', platform: 'universal', channel: 'webchat' }),
    ], null, { first: T1, last: T2, platform: 'twitter', channel: 'webchat', channelAt: T1, messages: 1, events: 1 });
  });

  it('of two entries at one moment take the platform and channel of the later in the batch', () => {
    check([
      message({ at: T1, user: 'u', conversation: 'c', platform: 'universal', channel: 'webchat' }),
      message({ at: T1, user: 'u', conversation: 'c', platform: 'sms', channel: 'msteams' }),
    ], null, { first: T1, last: T1, platform: 'sms', channel: 'msteams', channelAt: T1, messages: 2, events: 0 });
  });

  it('count messages and events apart, summed over the batch', () => {
    check([
      message({ at: T1, user: 'u', conversation: 'c' }),
      event({ at: T2, name: 'a', user: 'u', conversation: 'c', platform: 'universal' }),
      message({ at: T2, user: 'u', conversation: 'c', type: 'outgoing' }),
      event({ at: T3, name: 'b', user: 'u', conversation: 'c', platform: 'universal' }),
    ], null, { first: T1, last: T3, platform: 'universal', channel: '', channelAt: T1, messages: 2, events: 2 });
  });

  it('are one per bot and id, and one per bot, conversation and user', () => {
    const rows = rowsOf([
      message({ at: T2, user: 'u', conversation: 'c' }),
      message({ at: T1, user: 'v', conversation: 'c' }),
      message({ at: T3, user: 'u', conversation: 'd', bot: 'b2' }),
    ]);
    expect(rows.users.map((u) => `${u.bot}/${u.user_id}`)).toStrictEqual(['abcdefabcdef/u', 'abcdefabcdef/v', 'b2/u']);
    expect(rows.conversations.map((c) => `${c.bot}/${c.conversation_id} ${c.messages} ${c.first_at === ms(T1)}`)).toStrictEqual(['abcdefabcdef/c 2 true', 'b2/d 1 false']);
    expect(rows.conversationUsers).toStrictEqual([
      { bot: BOT, conversation_id: 'c', user_id: 'u', first_at: ms(T2) },
      { bot: BOT, conversation_id: 'c', user_id: 'v', first_at: ms(T1) },
      { bot: 'b2', conversation_id: 'd', user_id: 'u', first_at: ms(T3) },
    ]);
  });
});

describe('the days and weeks a user was active', () => {
  it('are one row per day (week) and platform and channel, days counting messages and events', () => {
    const u = { user: 'u', conversation: 'c' };
    const rows = rowsOf([
      message({ ...u, at: '2026-03-02T09:00:00Z', channel: 'webchat' }),
      message({ ...u, at: '2026-03-04T23:59:59.999Z', channel: 'webchat' }),
      message({ ...u, at: '2026-03-04T10:00:00Z', channel: 'msteams' }),
      message({ ...u, at: '2026-03-04T11:00:00Z', platform: 'sms' }),
      event({ ...u, at: '2026-03-04T12:00:00Z', name: 'a' }),
      event({ ...u, at: '2026-03-04T13:00:00Z', name: 'b' }),
      message({ ...u, at: '2026-03-09T00:00:00Z', channel: 'webchat' }),
      message({ ...u, at: '2026-03-02T20:00:00Z', channel: 'webchat', type: 'outgoing' }),
    ]);
    const day = (iso: string, platform: string, channel: string, messages: number, events: number) => ({ bot: BOT, user_id: 'u', day: ms(iso), platform, channel, messages, events });
    expect(rows.userDays).toStrictEqual([
      day('2026-03-02T00:00:00Z', 'universal', 'webchat', 2, 0),
      day('2026-03-04T00:00:00Z', 'sms', '', 1, 0),
      day('2026-03-04T00:00:00Z', 'twitter', '', 0, 2),
      day('2026-03-04T00:00:00Z', 'universal', 'msteams', 1, 0),
      day('2026-03-04T00:00:00Z', 'universal', 'webchat', 1, 0),
      day('2026-03-09T00:00:00Z', 'universal', 'webchat', 1, 0),
    ]);
    const week = (iso: string, platform: string, channel: string) => ({ bot: BOT, user_id: 'u', week: ms(iso), platform, channel });
    expect(rows.userWeeks).toStrictEqual([
      week('2026-03-02T00:00:00Z', 'sms', ''),
      week('2026-03-02T00:00:00Z', 'twitter', ''),
      week('2026-03-02T00:00:00Z', 'universal', 'msteams'),
      week('2026-03-02T00:00:00Z', 'universal', 'webchat'),
      week('2026-03-09T00:00:00Z', 'universal', 'webchat'),
    ]);
  });
});

describe('what users said and clicked', () => {
  const D1 = '2026-03-03';
  const D2 = '2026-03-04';
  const u = { user: 'u', conversation: 'c' };

  it('is counted per day, platform, channel, text key and intent (\'\' for none) for incoming messages only, keeping the first text, cut to 500 characters', () => {
    const rows = rowsOf([
      message({ ...u, at: `${D1}T09:00:00Z`, text: 'Hi!!', intent: 'Greet', channel: 'webchat' }),
      message({ ...u, at: `${D1}T10:00:00Z`, text: 'hi', intent: 'Greet', channel: 'webchat' }),
      message({ ...u, at: `${D1}T11:00:00Z`, text: 'hi', channel: 'webchat' }),
      message({ ...u, at: `${D2}T09:00:00Z`, text: 'HI', intent: 'Greet', channel: 'webchat' }),
      message({ ...u, at: `${D1}T12:00:00Z`, text: 'hi', intent: 'Greet', channel: 'webchat', type: 'outgoing' }),
      message({ ...u, at: `${D1}T13:00:00Z`, text: '?!', channel: 'webchat' }),
      message({ ...u, at: `${D1}T14:00:00Z`, text: 'x'.repeat(600) }),
      message({ ...u, at: `${D1}T15:00:00Z`, text: 'hi', intent: 'Greet', channel: 'msteams' }),
      event({ ...u, at: `${D1}T16:00:00Z`, name: 'hi', platform: 'universal' }),
    ]);
    const daily = (d: string, channel: string, key: string, intent: string, text: string, n: number) => ({ bot: BOT, day: ms(`${d}T00:00:00Z`), platform: 'universal', channel, text_key: key, intent, text, count: n });
    expect(rows.dailyMessages).toStrictEqual([
      daily(D1, '', 'x'.repeat(200), '', 'x'.repeat(500), 1),
      daily(D1, 'msteams', 'hi', 'Greet', 'hi', 1),
      daily(D1, 'webchat', 'hi', '', 'hi', 1),
      daily(D1, 'webchat', 'hi', 'Greet', 'Hi!!', 2),
      daily(D2, 'webchat', 'hi', 'Greet', 'HI', 1),
    ]);
    const total = (channel: string, key: string, intent: string, text: string, n: number) => ({ bot: BOT, platform: 'universal', channel, text_key: key, intent, text, count: n });
    expect(rows.messageTotals).toStrictEqual([
      total('', 'x'.repeat(200), '', 'x'.repeat(500), 1),
      total('msteams', 'hi', 'Greet', 'hi', 1),
      total('webchat', 'hi', '', 'hi', 1),
      total('webchat', 'hi', 'Greet', 'Hi!!', 3),
    ]);
  });

  it('is counted with text \'\' for an entry row that has a text key but no text', () => {
    const batch = [message({ ...u, at: `${D1}T09:00:00Z`, text: 'Hello' })];
    const [[row]] = entriesOf(batch, sqliteDialect);
    const rows = batchRows(batch, [[{ ...row, text: null }]], sqliteDialect);
    expect(rows.dailyMessages).toStrictEqual([{ bot: BOT, day: ms(`${D1}T00:00:00Z`), platform: 'universal', channel: '', text_key: 'hello', intent: '', text: '', count: 1 }]);
    expect(rows.messageTotals).toStrictEqual([{ bot: BOT, platform: 'universal', channel: '', text_key: 'hello', intent: '', text: '', count: 1 }]);
  });

  it('clicked is counted per day, platform, channel and button, with the first label (the text, cut to 200 characters; \'\' for none)', () => {
    const rows = rowsOf([
      message({ ...u, at: `${D1}T09:00:00Z`, text: 'Yes', button: 'b1', channel: 'webchat' }),
      message({ ...u, at: `${D1}T10:00:00Z`, text: 'yes!', button: 'b1', channel: 'webchat' }),
      message({ ...u, at: `${D2}T09:00:00Z`, button: 'b1', channel: 'webchat' }),
      message({ ...u, at: `${D1}T11:00:00Z`, text: 'y'.repeat(250), button: 'b2', channel: 'webchat' }),
      message({ ...u, at: `${D1}T12:00:00Z`, text: 'no button', channel: 'webchat' }),
      message({ ...u, at: `${D1}T13:00:00Z`, text: 'Yes', button: 'b1', platform: 'sms' }),
    ]);
    const click = (d: string, platform: string, channel: string, button: string, label: string, clicks: number) => ({ bot: BOT, day: ms(`${d}T00:00:00Z`), platform, channel, button, label, clicks });
    expect(rows.dailyClicks).toStrictEqual([
      click(D1, 'sms', '', 'b1', 'Yes', 1),
      click(D1, 'universal', 'webchat', 'b1', 'Yes', 2),
      click(D1, 'universal', 'webchat', 'b2', 'y'.repeat(200), 1),
      click(D2, 'universal', 'webchat', 'b1', '', 1),
    ]);
  });
});

describe('entries without a user or a conversation', () => {
  it('add no user, day, week, message or click rows without a user, and no conversation rows without a conversation; they are still counted', () => {
    const at = '2026-03-05T10:00:00Z';
    const rows = rowsOf([
      message({ at, text: 'hello', button: 'b1' }),
      event({ at, name: 'visit', conversation: 'c9' }),
    ]);
    expect(rows.entries.map((e) => [e.user_id, e.conversation_id])).toStrictEqual([['', ''], ['', 'c9']]);
    expect(rows.conversations).toStrictEqual([{ bot: BOT, conversation_id: 'c9', first_at: ms(at), last_at: ms(at), platform: 'twitter', channel: '', channel_at: ms(at), messages: 0, events: 1 }]);
    expect(rows).toStrictEqual({ ...rows, users: [], conversationUsers: [], userDays: [], userWeeks: [], dailyMessages: [], messageTotals: [], dailyClicks: [] });
    expect(rows.counts.map((c) => `${c.width} ${c.direction} ${c.entries}`)).toStrictEqual(['d event 1', 'd incoming 1', 'h event 1', 'h incoming 1']);
  });
});

describe('the counts of a batch', () => {
  it('count per hour and day of when things happened: a record once (with its first entry), every entry, AI replies, revenue and its currency for revenue events only, scores', () => {
    const t = ms('2026-03-03T09:10:00Z');
    const rows = rowsOf([
      webhook([[
        { sender: { id: 'p1' }, timestamp: t, message: { text: 'a' } },
        { sender: { id: 'p1' }, timestamp: t + 1000, message: { text: 'b' } },
        { sender: { id: 'p1' }, timestamp: t + 2000, message: { text: 'c' }, intent: { name: 'Greet', inputs: [{ name: 'score', value: '0.5' }] } },
      ]]),
      event({ at: '2026-03-03T10:00:00Z', type: 'revenueEvent', name: 'purchase', user: 'u', amount: 5, currency: 'EUR' }),
      event({ at: '2026-03-03T10:30:00Z', type: 'revenueEvent', name: 'purchase', user: 'u', amount: 7, currency: 'eur' }),
      event({ at: '2026-03-03T10:40:00Z', type: 'revenueEvent', name: 'purchase', user: 'u' }),
      event({ at: '2026-03-03T10:50:00Z', name: 'signup', user: 'u', amount: 3, extraInfo: { currency: 'usd' } }),
      message({ at: '2026-03-03T11:00:00Z', user: 'u', type: 'outgoing', text: 'x', intent: 'Answer', score: '0.5', ai: true, channel: 'webchat' }),
      message({ at: '2026-03-03T11:30:00Z', user: 'u', type: 'outgoing', text: 'y', intent: 'Answer', score: '0.25', ai: true, channel: 'webchat' }),
      message({ at: '2026-03-03T12:00:00Z', user: 'u', type: 'outgoing', text: 'z', intent: 'Answer', score: '0', channel: 'webchat' }),
      message({ at: '2026-03-03T12:15:00Z', user: 'u', type: 'outgoing', text: 'w', intent: 'Answer', channel: 'webchat' }),
    ]);
    const day = ms('2026-03-03T00:00:00Z');
    const hour = (h: number) => day + h * HOUR;
    const messenger = { platform: 'messenger', type: 'incoming', direction: 'incoming' } as const;
    const revenue = { platform: 'twitter', type: 'event', direction: 'event', event_type: 'revenueEvent', event_name: 'purchase' } as const;
    const signup = { platform: 'twitter', type: 'event', direction: 'event', event_type: 'customEvent', event_name: 'signup' } as const;
    const answer = { platform: 'universal', channel: 'webchat', type: 'outgoing', direction: 'outgoing', intent: 'Answer' } as const;
    expect(rows.counts).toStrictEqual([
      count({ width: 'd', at: day, ...messenger, records: 1, entries: 2 }),
      count({ width: 'd', at: day, ...messenger, intent: 'Greet', records: 0, entries: 1, score_sum: 0.5, scored: 1 }),
      count({ width: 'd', at: day, ...signup, records: 1, entries: 1 }),
      count({ width: 'd', at: day, ...revenue, records: 1, entries: 1 }),
      count({ width: 'd', at: day, ...revenue, currency: 'EUR', records: 2, entries: 2, revenue: 12 }),
      count({ width: 'd', at: day, ...answer, records: 4, entries: 4, ai_generated: 2, score_sum: 0.75, scored: 3 }),
      count({ width: 'h', at: hour(9), ...messenger, records: 1, entries: 2 }),
      count({ width: 'h', at: hour(9), ...messenger, intent: 'Greet', records: 0, entries: 1, score_sum: 0.5, scored: 1 }),
      count({ width: 'h', at: hour(10), ...signup, records: 1, entries: 1 }),
      count({ width: 'h', at: hour(10), ...revenue, records: 1, entries: 1 }),
      count({ width: 'h', at: hour(10), ...revenue, currency: 'EUR', records: 2, entries: 2, revenue: 12 }),
      count({ width: 'h', at: hour(11), ...answer, records: 2, entries: 2, ai_generated: 2, score_sum: 0.75, scored: 2 }),
      count({ width: 'h', at: hour(12), ...answer, records: 2, entries: 2, scored: 1 }),
    ]);
    // The entry rows keep what the counts leave out (a custom event's amount and currency).
    expect(rows.entries.filter((e) => e.event_name === 'signup').map((e) => [e.amount, e.currency])).toStrictEqual([[3, 'USD']]);
  });

  it('keep entry rows in the order of the batch and of each record\'s entries', () => {
    const rows = rowsOf([
      message({ at: '2026-03-03T12:00:00Z', user: 'z' }),
      webhook([[{ sender: { id: 'p1' }, timestamp: ms('2026-03-03T11:00:00Z'), message: { text: 'a' } }, { sender: { id: 'p0' }, timestamp: ms('2026-03-03T10:00:00Z'), message: { text: 'b' } }]]),
      event({ at: '2026-03-03T09:00:00Z', name: 'a', user: 'a' }),
    ]);
    expect(rows.entries.map((e) => `${e.seq}:${e.idx} ${e.user_id}`)).toStrictEqual(['101:0 z', '102:0 p1', '102:1 p0', '103:0 a']);
  });
});

describe('the order of summary rows', () => {
  it('is by key, comparing code units (not the locale), whatever the order of the batch', () => {
    const at = '2026-03-03T09:00:00Z';
    const ids = ['é', 'a', '_', 'Z', 'B', 'ab', 'a b'];
    for (const order of [ids, [...ids].reverse(), ['a', 'é', 'B', '_', 'a b', 'Z', 'ab']]) {
      const rows = rowsOf(order.map((user) => message({ at, user })));
      expect(rows.users.map((u) => u.user_id)).toStrictEqual(['B', 'Z', '_', 'a', 'a b', 'ab', 'é']);
      expect(rows.conversations.map((c) => c.conversation_id)).toStrictEqual(['B', 'Z', '_', 'a', 'a b', 'ab', 'é']);
    }
  });

  it('keeps apart keys whose parts would join into the same text (bot b with user ob, bot bo with user b), the shorter first part first', () => {
    const at = '2026-03-03T09:00:00Z';
    const rows = rowsOf([message({ at, user: 'b', bot: 'bo' }), message({ at, user: 'ob', bot: 'b' })]);
    expect(rows.users.map((u) => `${u.bot}/${u.user_id}`)).toStrictEqual(['b/ob', 'bo/b']);
    expect(rows.userDays.map((u) => `${u.bot}/${u.user_id}`)).toStrictEqual(['b/ob', 'bo/b']);
  });
});
