/**
 * What a batch of records adds to the views: their transcript entries, and the increments of the
 * summary tables (users, conversations, hourly and daily counts, active days). Pure: computes
 * rows, writes nothing.
 */
import type { Dialect } from './dialect.js';
import { transcriptEntries } from './entries.js';
import type {
  ButtonLabelsTable, ConversationsTable, ConversationUsersTable, ConversationChannelsTable, CountsTable, DailyClicksTable, DailyMessagesTable, EntriesTable, MessageTotalsTable, UserDaysTable, UsersTable, UserWeeksTable,
} from './schema.js';
import type { StoredRecord, TranscriptEntry } from '../types.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;
/** The widths counts are kept at: an hour and a day. */
const WIDTHS = [['h', HOUR], ['d', DAY]] as const;
const WEEK = 7 * DAY;
/** 1970-01-05, the first Monday after the epoch (a Thursday): weeks start on Mondays, in UTC. */
const FIRST_MONDAY = 4 * DAY;

/** The start (Monday 00:00 UTC) of the week of `ms`. */
export function weekStart(ms: number): number {
  return Math.floor((ms - FIRST_MONDAY) / WEEK) * WEEK + FIRST_MONDAY;
}

/** The name of the custom event a feedback on a reply is recorded as (Teams' thumbs up or down, through the middleware). */
export const FEEDBACK_EVENT = 'feedback';

/** A feedback event's reaction, as `like` or `dislike` (Teams' words; 👍/👎, up/down and true/false too). */
function reactionOf(value: unknown): string | null {
  // Stryker disable next-line StringLiteral: any text that is not one of the words below gives null, as the empty one does
  const text = typeof value === 'string' ? value.trim().toLowerCase() : typeof value === 'boolean' || typeof value === 'number' ? String(value) : '';
  if (['like', 'up', 'thumbsup', '+1', '👍', 'positive', 'true', '1'].includes(text)) return 'like';
  if (['dislike', 'down', 'thumbsdown', '-1', '👎', 'negative', 'false', '0'].includes(text)) return 'dislike';
  return null;
}

/** Everything one batch writes. Summary rows are already summed per key within the batch. */
export interface BatchRows {
  entries: EntriesTable[];
  users: UsersTable[];
  conversations: ConversationsTable[];
  conversationUsers: ConversationUsersTable[];
  conversationChannels: ConversationChannelsTable[];
  counts: CountsTable[];
  userDays: UserDaysTable[];
  userWeeks: UserWeeksTable[];
  dailyMessages: DailyMessagesTable[];
  messageTotals: MessageTotalsTable[];
  dailyClicks: DailyClicksTable[];
}

/**
 * Text as top-messages views group it: lowercased, accents kept, punctuation and repeated spaces
 * removed ("Hi!!  there?" and "hi there" are one message). `null` for no text.
 */
export function textKey(text: string | undefined): string | null {
  if (text === undefined) return null;
  // Stryker disable next-line Regex: a run of punctuation made one space or several, the next replace makes one
  const key = text.toLowerCase().replace(/[\p{P}\p{S}]+/gu, ' ').replace(/\s+/g, ' ').trim();
  return key === '' ? null : key.slice(0, 200);
}

/** Merges one row into a map by key: `merge(existing, row)` when the key is there already. */
function upsert<T>(map: Map<string, T>, key: string, row: T, merge: (into: T, row: T) => void): void {
  const existing = map.get(key);
  if (existing === undefined) map.set(key, row);
  else merge(existing, row);
}

/** A part with U+0001 (the escape) and U+0000 (the separator) escaped as U+0001 1 and U+0001 0: it holds no separator. */
function escaped(part: string | number): string | number {
  if (typeof part !== 'string') return part;
  // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: only spares the common part (with neither) two replaces that would change nothing
  if (!part.includes('\u0000') && !part.includes('\u0001')) return part;
  return part.replaceAll('\u0001', '\u00011').replaceAll('\u0000', '\u00010');
}

/**
 * A summary row's key, from its parts: escaped, then joined by U+0000, so that no two lists of
 * parts give one key (SQLite keeps U+0000 in text). Sorting keys sorts by the first part, then the
 * next, by code units.
 */
const key = (...parts: (string | number)[]): string => parts.map(escaped).join('\u0000');

/** A counts row's key: every column but the sums. */
const countKey = (row: CountsTable): string =>
  key(row.bot, row.width, row.at, row.platform, row.channel, row.type, row.direction, row.intent, row.event_type, row.event_name, row.currency);

function entryRow(entry: TranscriptEntry, idx: number, record: StoredRecord, text: (value: string) => string): EntriesTable {
  const t = (value: string | undefined): string | null => (value === undefined ? null : text(value));
  const event = entry.event;
  const feedback = event?.type === 'customEvent' && event.name === FEEDBACK_EVENT ? event.extraInfo : undefined;
  // The written comment: Teams' feedbackText, or a comment; an empty one is none.
  const comment = [feedback?.feedbackText, feedback?.comment].find((c) => typeof c === 'string' && c !== '');
  return {
    seq: record.seq,
    idx,
    bot: record.bot,
    occurred_at: Date.parse(entry.time),
    received_at: Date.parse(record.receivedAt),
    platform: text(entry.platform ?? ''),
    channel: text(entry.channel ?? ''),
    direction: entry.direction,
    user_id: text(entry.userId),
    user_name: t(entry.userName),
    conversation_id: text(entry.conversationId),
    text: t(entry.text),
    text_key: t(textKey(entry.text) ?? undefined), // none for events, which carry no text
    intent: t(entry.intent?.name),
    intent_score: entry.intentScore ?? null,
    clicked_button: t(entry.clickedButton),
    ai_generated: entry.aiGenerated ? 1 : 0,
    event_type: t(event?.type),
    event_name: t(event?.name),
    amount: event?.amount ?? null,
    currency: t(event?.currency),
    activity_id: t(entry.activityId),
    reaction: feedback === undefined ? null : reactionOf(feedback.reaction),
    comment: typeof comment === 'string' ? text(comment.slice(0, 2000)) : null,
    reply_to: typeof feedback?.replyToId === 'string' ? text(feedback.replyToId) : null,
    rated_intent: null, // found in the database as the batch is stored (store/feedback.ts)
  };
}

/** Longest button label kept. */
const LABEL_CHARS = 200;

/**
 * The entry rows of each record of a batch (numbered), for `dialect`; and the label each button
 * the batch's replies offer was offered with, per bot and button id (of two offers of one button,
 * the one that happened later; at one moment, the later in the batch). A button without an id or
 * a label gives none.
 */
export function projectEntries(batch: readonly StoredRecord[], dialect: Dialect): { entries: EntriesTable[][]; buttonLabels: ButtonLabelsTable[] } {
  const labels = new Map<string, ButtonLabelsTable>();
  const entries = batch.map((record) => transcriptEntries(record).map((entry, idx) => {
    const row = entryRow(entry, idx, record, dialect.text);
    if (entry.direction === 'outgoing') {
      for (const button of entry.buttons ?? []) {
        if (button.id === '' || button.label === '') continue;
        const offer = { bot: record.bot, button: dialect.text(button.id), label: dialect.text(button.label.slice(0, LABEL_CHARS)), offered_at: row.occurred_at };
        upsert(labels, key(offer.bot, offer.button), offer, (into, later) => {
          if (later.offered_at >= into.offered_at) Object.assign(into, later);
        });
      }
    }
    return row;
  }));
  return { entries, buttonLabels: [...labels.keys()].sort().map((k) => labels.get(k)!) };
}

/** The entry rows of each record of a batch (numbered), for `dialect`. */
export function entriesOf(batch: readonly StoredRecord[], dialect: Dialect): EntriesTable[][] {
  return projectEntries(batch, dialect).entries;
}

/**
 * The rows a batch of records (numbered) adds, for `dialect`, from their entry rows
 * (`entriesOf`, where store/channels.ts may have given events their conversation's channel).
 */
export function batchRows(batch: readonly StoredRecord[], entryRows: readonly EntriesTable[][], dialect: Dialect): BatchRows {
  const text = dialect.text;
  const allEntries: EntriesTable[] = [];
  const messageTotals = new Map<string, MessageTotalsTable>();
  const dailyClicks = new Map<string, DailyClicksTable>();
  const userWeeks = new Map<string, UserWeeksTable>();
  const dailyMessages = new Map<string, DailyMessagesTable>();
  const users = new Map<string, UsersTable>();
  const conversations = new Map<string, ConversationsTable>();
  const conversationUsers = new Map<string, ConversationUsersTable>();
  const conversationChannels = new Map<string, ConversationChannelsTable>();
  const counts = new Map<string, CountsTable>();
  const userDays = new Map<string, UserDaysTable>();
  const latest = <T extends { last_at: number; platform: string; channel: string; channel_at: number; messages: number; events: number }>(into: T, row: T) => {
    into.messages += row.messages;
    into.events += row.events;
    // The platform of the latest entry; the channel of the latest entry that has one (of two at one moment, the later stored).
    if (row.channel !== '' && (row.channel_at >= into.channel_at || into.channel === '')) {
      into.channel = row.channel;
      into.channel_at = row.channel_at;
    }
    if (row.last_at >= into.last_at) {
      into.platform = row.platform;
      into.last_at = row.last_at;
    }
  };

  batch.forEach((record, r) => {
    const entries = entryRows[r];
    const receivedAt = Date.parse(record.receivedAt);
    if (entries.length === 0) {
      // A record that holds no entry (a webhook batch with no messaging item) still counts as a record.
      for (const [width, size] of WIDTHS) {
        const at = Math.floor(receivedAt / size) * size;
        const row: CountsTable = { bot: record.bot, width, at, platform: text(record.platform ?? ''), channel: '', type: record.type, direction: '', intent: '', event_type: '', event_name: '', currency: '', records: 1, entries: 0, ai_generated: 0, revenue: 0, score_sum: 0, scored: 0 };
        upsert(counts, countKey(row), row, (into) => void into.records++);
      }
    }
    entries.forEach((entry, i) => {
      allEntries.push(entry);
      const at = entry.occurred_at;
      const isEvent = entry.direction === 'event';
      if (entry.user_id !== '') {
        upsert(users, key(entry.bot, entry.user_id), { bot: entry.bot, user_id: entry.user_id, name: entry.user_name, name_at: entry.user_name === null ? 0 : at, first_at: at, last_at: at, platform: entry.platform, channel: entry.channel, channel_at: at, messages: isEvent ? 0 : 1, events: isEvent ? 1 : 0 }, (into, row) => {
          into.first_at = Math.min(into.first_at, row.first_at);
          // The name of the latest entry (by when it happened) that has one; of two at one moment, the
          // later stored. (name_at is 0 while there is no name: every entry happened after 2000.)
          // Stryker disable next-line ConditionalExpression: (as true) a row without a name has name_at 0, so it would pass only when there is no name yet either, and leave none
          const named = row.name !== null;
          if (named && row.name_at >= into.name_at) {
            into.name = row.name;
            into.name_at = row.name_at;
          }
          latest(into, row);
        });
        const day = Math.floor(at / DAY) * DAY;
        upsert(userDays, key(entry.bot, entry.user_id, day, entry.platform, entry.channel), { bot: entry.bot, user_id: entry.user_id, day, platform: entry.platform, channel: entry.channel, messages: isEvent ? 0 : 1, events: isEvent ? 1 : 0 }, (into, row) => {
          into.messages += row.messages;
          into.events += row.events;
        });
        const week = weekStart(at);
        upsert(userWeeks, key(entry.bot, entry.user_id, week, entry.platform, entry.channel), { bot: entry.bot, user_id: entry.user_id, week, platform: entry.platform, channel: entry.channel }, () => undefined);
        if (entry.direction === 'incoming' && entry.text_key !== null) {
          const intent = entry.intent ?? '';
          upsert(dailyMessages, key(entry.bot, day, entry.platform, entry.channel, entry.text_key, intent),
            { bot: entry.bot, day, platform: entry.platform, channel: entry.channel, text_key: entry.text_key, intent, text: (entry.text ?? '').slice(0, 500), count: 1 },
            (into) => void into.count++);
          upsert(messageTotals, key(entry.bot, entry.platform, entry.channel, entry.text_key, intent),
            { bot: entry.bot, platform: entry.platform, channel: entry.channel, text_key: entry.text_key, intent, text: (entry.text ?? '').slice(0, 500), count: 1 },
            (into) => void into.count++);
        }
        if (entry.clicked_button !== null) {
          upsert(dailyClicks, key(entry.bot, day, entry.platform, entry.channel, entry.clicked_button),
            { bot: entry.bot, day, platform: entry.platform, channel: entry.channel, button: entry.clicked_button, label: (entry.text ?? '').slice(0, LABEL_CHARS), clicks: 1 },
            (into) => void into.clicks++);
        }
      }
      if (entry.conversation_id !== '') {
        upsert(conversations, key(entry.bot, entry.conversation_id), { bot: entry.bot, conversation_id: entry.conversation_id, first_at: at, last_at: at, platform: entry.platform, channel: entry.channel, channel_at: at, messages: isEvent ? 0 : 1, events: isEvent ? 1 : 0 }, (into, row) => {
          into.first_at = Math.min(into.first_at, row.first_at);
          latest(into, row);
        });
        if (entry.user_id !== '') {
          upsert(conversationUsers, key(entry.bot, entry.conversation_id, entry.user_id), { bot: entry.bot, conversation_id: entry.conversation_id, user_id: entry.user_id, first_at: at }, (into, row) => {
            into.first_at = Math.min(into.first_at, row.first_at);
          });
        }
        if (entry.channel !== '') {
          upsert(conversationChannels, key(entry.channel, entry.bot, entry.conversation_id), { channel: entry.channel, bot: entry.bot, conversation_id: entry.conversation_id }, () => undefined);
        }
      }
      for (const [width, size] of WIDTHS) {
        const bucket = Math.floor(at / size) * size;
        const row: CountsTable = {
          bot: entry.bot, width, at: bucket, platform: entry.platform, channel: entry.channel, type: record.type, direction: entry.direction,
          intent: entry.intent ?? '', event_type: entry.event_type ?? '', event_name: entry.event_name ?? '',
          currency: entry.event_type === 'revenueEvent' ? (entry.currency ?? '') : '',
          records: i === 0 ? 1 : 0, entries: 1, ai_generated: entry.ai_generated, revenue: entry.event_type === 'revenueEvent' ? (entry.amount ?? 0) : 0,
          score_sum: entry.intent_score ?? 0, scored: entry.intent_score === null ? 0 : 1,
        };
        upsert(counts, countKey(row), row, (into, part) => {
          into.records += part.records;
          into.entries += part.entries;
          into.ai_generated += part.ai_generated;
          into.revenue += part.revenue;
          into.score_sum += part.score_sum;
          into.scored += part.scored;
        });
      }
    });
  });
  // Sorted by key: concurrent writers (several endpoints on one PostgreSQL) then lock summary rows
  // in the same order, and never deadlock.
  // (The default sort compares strings by UTF-16 code units, not by locale.)
  const sorted = <T>(map: Map<string, T>): T[] => [...map.keys()].sort().map((k) => map.get(k)!);
  return {
    entries: allEntries,
    users: sorted(users),
    conversations: sorted(conversations),
    conversationUsers: sorted(conversationUsers),
    conversationChannels: sorted(conversationChannels),
    counts: sorted(counts),
    userDays: sorted(userDays),
    userWeeks: sorted(userWeeks),
    dailyMessages: sorted(dailyMessages),
    messageTotals: sorted(messageTotals),
    dailyClicks: sorted(dailyClicks),
  };
}
