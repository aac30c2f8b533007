/**
 * Lists of users and conversations, and transcripts: read from the summary tables the store keeps
 * (users, conversations, their active days) and, for a transcript, the records themselves.
 */
import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../store/schema.js';
import { recordOf, type RecordStore } from '../store/store.js';
import { transcriptEntries } from '../store/entries.js';
import { counts, entriesWithin } from './charts.js';
import { containsIgnoringCase } from './fold.js';
import { DAY, botsOf, orNull, storedPlatform, type ReadFilter } from './filter.js';
import type { ConversationSummary, ConversationsResponse, TranscriptEntry, UserSummary, UsersResponse } from '../types.js';

/** Whether a filter narrows by platform, channel or time (read from the active-days table). */
function narrowsDays(filter: ReadFilter): boolean {
  // Stryker disable next-line ConditionalExpression: narrowing by days that every user has (no platform, channel or time) keeps every user: the same list, only slower
  return filter.platform !== undefined || filter.channel !== undefined || filter.from !== undefined || filter.to !== undefined;
}

/** The active days of user `bot`/`user_id` that match the filter. */
function matchingDays(eb: ExpressionBuilder<any, any>, filter: ReadFilter, bot: string, user: string) {
  return eb.selectFrom('user_days as d').select('d.day')
    .whereRef('d.bot', '=', bot as any).whereRef('d.user_id', '=', user as any)
    .$if(filter.platform !== undefined, (q) => q.where('d.platform', '=', storedPlatform(filter.platform!)))
    .$if(filter.channel !== undefined, (q) => q.where('d.channel', '=', filter.channel!))
    .$if(filter.from !== undefined, (q) => q.where('d.day', '>=', Math.floor(filter.from! / DAY) * DAY))
    .$if(filter.to !== undefined, (q) => q.where('d.day', '<', filter.to!));
}

/** Users (or those that match `filter`), most recently active first: the total, and the first `limit`. */
export async function listUsers(store: RecordStore, filter: ReadFilter, limit: number): Promise<UsersResponse> {
  // No entry on the platform, channel and days asked: no user to look for (the counts say so in a few rows).
  // Stryker disable next-line ConditionalExpression,ObjectLiteral: the counts only skip the queries when nothing can match; without them the queries find no user all the same
  if (narrowsDays(filter) && await entriesWithin(store, { bot: filter.bot, bots: filter.bots, platform: filter.platform, channel: filter.channel, from: filter.from, to: filter.to }, 'd') === 0) return { total: 0, users: [] };
  const base = store.db.selectFrom('users as u')
    .$if(botsOf(filter) !== undefined, (q) => q.where('u.bot', 'in', botsOf(filter)!))
    .$if(narrowsDays(filter), (q) => q.where((eb) => eb.exists(matchingDays(eb, filter, 'u.bot', 'u.user_id'))))
    .$if(filter.intent !== undefined, (q) => q.where((eb) => eb.exists(
      eb.selectFrom('entries as e').select('e.seq').whereRef('e.user_id', '=', 'u.user_id').whereRef('e.bot', '=', 'u.bot').where('e.intent', '=', filter.intent!),
    )));
  const [{ n }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    // Stryker disable next-line StringLiteral: `selectAll('')` is `select *`, the same columns when only `users` is read
    base.selectAll('u')
      .select((eb) => eb.selectFrom('conversation_users as cu')
        // Stryker disable next-line StringLiteral: the alias inside the scalar subquery is never read; the outer `as('conversations')` names it
        .select((c) => c.fn.countAll<number>().as('n'))
        .whereRef('cu.bot', '=', 'u.bot').whereRef('cu.user_id', '=', 'u.user_id').as('conversations'))
      .orderBy('u.last_at', 'desc').orderBy('u.user_id').limit(limit).execute(),
  ]);
  const users: UserSummary[] = rows.map((row) => ({
    userId: row.user_id,
    ...(row.name === null ? {} : { name: row.name }),
    bot: row.bot,
    platform: orNull(row.platform) ?? null,
    channel: orNull(row.channel),
    firstActivity: new Date(Number(row.first_at)).toISOString(),
    lastActivity: new Date(Number(row.last_at)).toISOString(),
    messages: Number(row.messages),
    events: Number(row.events),
    conversations: Number(row.conversations ?? 0),
  }));
  return { total: Number(n), users };
}

/** Conversations (or those that match `filter`), most recently active first: the total, and the first `limit`. */
export async function listConversations(store: RecordStore, filter: ReadFilter, limit: number): Promise<ConversationsResponse> {
  // No entry on the platform and channel (with the intent) asked: no conversation to look for.
  // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator,BlockStatement: the counts only skip the queries when nothing can match; the queries below find no conversation all the same
  if (filter.platform !== undefined || filter.channel !== undefined || filter.intent !== undefined) {
    // Stryker disable next-line ObjectLiteral: the counts only skip the queries when nothing can match; the queries below find no conversation all the same
    const { n } = await counts(store, { bot: filter.bot, bots: filter.bots, platform: filter.platform, channel: filter.channel }, 'd')
      // Stryker disable next-line ConditionalExpression: the counts only skip the queries when nothing can match; the queries below find no conversation all the same
      .$if(filter.intent !== undefined, (q) => q.where('intent', '=', filter.intent!)).select((eb) => eb.fn.sum<number>('entries').as('n')).executeTakeFirstOrThrow();
    // Stryker disable next-line ConditionalExpression: the counts only skip the queries when nothing can match; the queries below find no conversation all the same
    if (Number(n ?? 0) === 0) return { total: 0, conversations: [] };
  }
  // Only a channel narrows: the conversations that have an entry on it are those listed with it in
  // conversation_channels (one row each), not found by looking through every conversation's entries.
  const channelOnly = filter.channel !== undefined && filter.platform === undefined && filter.intent === undefined;
  const base = store.db.selectFrom('conversations as c')
    .$if(botsOf(filter) !== undefined, (q) => q.where('c.bot', 'in', botsOf(filter)!))
    .$if(channelOnly, (q) => q.where((eb) => eb.exists(
      eb.selectFrom('conversation_channels as cc').select('cc.bot')
        .where('cc.channel', '=', filter.channel!).whereRef('cc.bot', '=', 'c.bot').whereRef('cc.conversation_id', '=', 'c.conversation_id'),
    )))
    // Stryker disable next-line ConditionalExpression: with no platform or intent (and no channel) the condition is that the conversation has an entry, which every conversation has
    .$if(filter.platform !== undefined || filter.intent !== undefined, (q) => q.where((eb) => {
      const hasEntry = eb.exists(eb.selectFrom('entries as e').select('e.seq')
        .whereRef('e.conversation_id', '=', 'c.conversation_id').whereRef('e.bot', '=', 'c.bot')
        .$if(filter.platform !== undefined, (e) => e.where('e.platform', '=', storedPlatform(filter.platform!)))
        .$if(filter.channel !== undefined, (e) => e.where('e.channel', '=', filter.channel!))
        .$if(filter.intent !== undefined, (e) => e.where('e.intent', '=', filter.intent!)));
      // A conversation's platform is its latest entry's: when it is the one asked (and only the
      // platform narrows), that entry is there, and its entries need not be looked at.
      // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator: the shortcut on the conversation's own platform only saves looking at its entries; its latest entry is on that platform, so the entries test gives the same answer
      return filter.platform !== undefined && filter.channel === undefined && filter.intent === undefined
        ? eb.or([eb('c.platform', '=', storedPlatform(filter.platform)), hasEntry])
        : hasEntry;
    }))
    .$if(filter.from !== undefined, (q) => q.where('c.last_at', '>=', filter.from!))
    .$if(filter.to !== undefined, (q) => q.where('c.first_at', '<', filter.to!));
  // Counted from the channel's rows (a range of conversation_channels' key, each joined to its
  // conversation for the bot and the time range): a third of the time of testing every conversation.
  const counted = channelOnly
    ? store.db.selectFrom('conversation_channels as cc')
      .innerJoin('conversations as c', (join) => join.onRef('c.bot', '=', 'cc.bot').onRef('c.conversation_id', '=', 'cc.conversation_id'))
      .where('cc.channel', '=', filter.channel!)
      .$if(botsOf(filter) !== undefined, (q) => q.where('c.bot', 'in', botsOf(filter)!))
      .$if(filter.from !== undefined, (q) => q.where('c.last_at', '>=', filter.from!))
      .$if(filter.to !== undefined, (q) => q.where('c.first_at', '<', filter.to!))
    : base;
  const [{ n }, rows] = await Promise.all([
    counted.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    // Stryker disable next-line StringLiteral: `selectAll('')` is `select *`, the same columns when only `conversations` is read
    base.selectAll('c')
      .orderBy('c.last_at', 'desc').orderBy('c.conversation_id').limit(limit).execute(),
  ]);
  const participants = await usersOf(store, rows.map((row) => [row.bot, row.conversation_id]));
  const conversations: ConversationSummary[] = rows.map((row) => ({
    conversationId: row.conversation_id,
    bot: row.bot,
    // Stryker disable next-line ArrayDeclaration: every conversation has at least one user in conversation_users (the store writes both in one transaction)
    userIds: participants.get(`${row.bot} ${row.conversation_id}`) ?? [],
    platform: orNull(row.platform),
    channel: orNull(row.channel),
    firstActivity: new Date(Number(row.first_at)).toISOString(),
    lastActivity: new Date(Number(row.last_at)).toISOString(),
    messages: Number(row.messages),
    events: Number(row.events),
  }));
  return { total: Number(n), conversations };
}

/** The users of each conversation (`bot conversation` → ids, in order of first appearance). */
async function usersOf(store: RecordStore, conversations: [string, string][]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  // Stryker disable next-line EqualityOperator: one step more reads an empty part, which the break right after stops
  for (let i = 0; i < conversations.length; i += 300) {
    const part = conversations.slice(i, i + 300);
    // Stryker disable next-line ConditionalExpression: the loop's bound never gives an empty part
    if (part.length === 0) break;
    const rows = await store.db.selectFrom('conversation_users')
      .select(['bot', 'conversation_id', 'user_id'])
      .where((eb) => eb(eb.refTuple('bot', 'conversation_id'), 'in', part.map(([bot, id]) => eb.tuple(bot, id))))
      .orderBy('first_at').orderBy('user_id')
      .execute();
    for (const row of rows) {
      const key = `${row.bot} ${row.conversation_id}`;
      const list = out.get(key);
      if (list) list.push(row.user_id);
      else out.set(key, [row.user_id]);
    }
  }
  return out;
}

/** Which transcript: one user's, or one conversation's (of one bot, or of any). */
export type TranscriptTarget = { userId: string; conversationId?: undefined } | { conversationId: string; userId?: undefined };

/** A transcript: its latest `limit` entries, in the order they happened, and whether older ones were left out. */
export interface Transcript {
  entries: TranscriptEntry[];
  /** Entries in the whole transcript. */
  total: number;
  /** The cursor of the oldest entry given (`SEQ:IDX`), to read the ones before it; `null` when there are none. */
  before: string | null;
}

/** Where to page back from: an entry's record (`seq`) and, for a record with several entries, which (`idx`; else its first in the transcript). */
export interface TranscriptCursor {
  seq: number;
  idx?: number;
}

/**
 * The entries of a user or a conversation, in the order they happened (their time, then the
 * order they arrived: `seq`, then their place in the record), the latest `limit` of them, or the
 * latest before the entry `before` (for paging back: the cursor is that entry's time and place,
 * so an entry that arrives late, older than the page, never shifts the pages); read back from the
 * records. `undefined` when nothing was recorded for it.
 */
export async function readTranscript(store: RecordStore, target: TranscriptTarget, bots: readonly string[] | undefined, limit: number, before?: TranscriptCursor): Promise<Transcript | undefined> {
  const which = (q: SelectQueryBuilder<Database, 'entries', any>) =>
    (target.userId !== undefined ? q.where('user_id', '=', target.userId) : q.where('conversation_id', '=', target.conversationId))
      .$if(bots !== undefined, (b) => b.where('bot', 'in', bots!));
  // The cursor's place: the entry's time; for a record not in this transcript, when the record happened.
  let at: { occurred_at: number; seq: number; idx: number } | undefined;
  if (before !== undefined) {
    const entry = await which(store.db.selectFrom('entries')).where('seq', '=', before.seq).$if(before.idx !== undefined, (q) => q.where('idx', '=', before.idx!))
      .select(['occurred_at', 'idx']).orderBy('occurred_at').orderBy('idx').limit(1).executeTakeFirst();
    // Stryker disable next-line ConditionalExpression: the record is read only when the entry is not there; reading it anyway changes nothing
    const record = entry !== undefined ? undefined : await store.db.selectFrom('records').select('occurred_at').where('seq', '=', before.seq).executeTakeFirst();
    at = entry !== undefined ? { occurred_at: Number(entry.occurred_at), seq: before.seq, idx: Number(entry.idx) }
      : { occurred_at: record === undefined ? Number.MAX_SAFE_INTEGER : Number(record.occurred_at), seq: before.seq, idx: before.idx ?? 0 };
  }
  const [{ n }, keys] = await Promise.all([
    which(store.db.selectFrom('entries')).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    which(store.db.selectFrom('entries'))
      .$if(at !== undefined, (q) => q.where((eb) => eb(eb.refTuple('occurred_at', 'seq', 'idx'), '<', eb.tuple(at!.occurred_at, at!.seq, at!.idx))))
      .select(['seq', 'idx']).orderBy('occurred_at', 'desc').orderBy('seq', 'desc').orderBy('idx', 'desc').limit(limit + 1).execute(),
  ]);
  if (Number(n) === 0) return undefined;
  const older = keys.length > limit;
  if (older) keys.pop();
  keys.reverse();
  const seqs = [...new Set(keys.map((key) => Number(key.seq)))];
  const records = new Map<number, ReturnType<typeof recordOf>>();
  for (let i = 0; i < seqs.length; i += 500) {
    // Stryker disable next-line MethodExpression: reading all the records at once instead of 500 at a time fills the same map
    const rows = await store.db.selectFrom('records').selectAll().where('seq', 'in', seqs.slice(i, i + 500)).execute();
    for (const row of rows) records.set(Number(row.seq), recordOf(row, store.dialect));
  }
  const byRecord = new Map<number, TranscriptEntry[]>();
  const entries: TranscriptEntry[] = [];
  for (const key of keys) {
    const seq = Number(key.seq);
    const record = records.get(seq);
    // Stryker disable next-line ConditionalExpression: every entry's record is there (entries are written and deleted with their records, in one transaction)
    if (record === undefined) continue;
    let all = byRecord.get(seq);
    // Stryker disable next-line ConditionalExpression: reading a record's entries again gives the same entries
    if (all === undefined) byRecord.set(seq, (all = transcriptEntries(record)));
    const entry = all[Number(key.idx)];
    // Stryker disable next-line ConditionalExpression: every entry's idx is a place in its record's entries (the projection writes them from transcriptEntries)
    if (entry !== undefined) entries.push(entry);
  }
  return { entries, total: Number(n), before: older && keys.length > 0 ? `${Number(keys[0].seq)}:${Number(keys[0].idx)}` : null };
}

/** A search within a range that holds fewer entries than this reads the range at once; otherwise newest first, a window of time at a time. */
const SEARCH_BY_TIME_BELOW = 50_000;
/** The time a search reads newest first in its first window (then 4 times more in each next one): six hours. */
// Stryker disable next-line ArithmeticOperator: the first window's width only decides how many windows are read; the results are the same
const SEARCH_FIRST_WINDOW_MS = 6 * 3_600_000;

/** Most search results returned. */
export const MAX_SEARCH_RESULTS = 200;

/**
 * Messages whose text contains `text` (ignoring case), of the user whose id is `user` or whose
 * name contains it, within the filter; newest first (by when they happened; of two at one moment,
 * the one received last first), at most `limit`. Each is a transcript entry with its bot, so the
 * page can open the conversation around it.
 */
export async function search(store: RecordStore, filter: ReadFilter, terms: { text?: string; user?: string }, limit: number): Promise<{ results: (TranscriptEntry & { bot: string })[]; more: boolean }> {
  // The counts say how many entries the bot, platform, channel and range reach: none, nothing to read.
  const reach = await entriesWithin(store, filter);
  // Stryker disable next-line ConditionalExpression: the counts only skip the queries when nothing can match; without them the queries find nothing all the same
  if (reach === 0) return { results: [], more: false };
  const matching = () => store.db.selectFrom('entries as e')
    .$if(botsOf(filter) !== undefined, (q) => q.where('e.bot', 'in', botsOf(filter)!))
    .$if(filter.platform !== undefined, (q) => q.where('e.platform', '=', storedPlatform(filter.platform!)))
    .$if(filter.channel !== undefined, (q) => q.where('e.channel', '=', filter.channel!))
    .$if(filter.from !== undefined, (q) => q.where('e.occurred_at', '>=', filter.from!))
    .$if(filter.to !== undefined, (q) => q.where('e.occurred_at', '<', filter.to!))
    .$if(terms.text !== undefined, (q) => q.where(containsIgnoringCase(sql.ref('e.text'), terms.text!)))
    .$if(terms.user !== undefined, (q) => q.where((eb) => eb.or([eb('e.user_id', '=', terms.user!), containsIgnoringCase(sql.ref('e.user_name'), terms.user!)])))
    .select(['e.seq', 'e.idx', 'e.bot']).orderBy('e.occurred_at', 'desc').orderBy('e.seq', 'desc').orderBy('e.idx', 'desc');
  let rows: { seq: number; idx: number; bot: string }[];
  // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator: reading the range at once or by windows of time finds the same results; only the speed differs
  if ((filter.from !== undefined || filter.to !== undefined) && reach <= SEARCH_BY_TIME_BELOW) {
    // A range that holds few entries: all of them, by time (its index).
    rows = await matching().limit(limit + 1).execute();
  } else {
    // Newest first, a window of time at a time (each wider than the last), until enough match: a
    // common word is found among the latest entries without reading the others.
    const { top, bottom } = await store.db.selectFrom('entries').select((eb) => [eb.fn.max('occurred_at').as('top'),
      // Stryker disable next-line StringLiteral: without the oldest time the windows go back to 0, past every entry: more windows, the same results
      eb.fn.min('occurred_at').as('bottom')]).executeTakeFirstOrThrow();
    rows = [];
    // Stryker disable next-line LogicalOperator: a lowest time of 0 only reads more (empty) windows, with the same results
    const lowest = Number(bottom ?? 0);
    // Stryker disable next-line EqualityOperator,ConditionalExpression: one more window, or going on once enough were found (the next limit is then 0), reads no more results
    for (let high = Number(top ?? 0) + 1, width = SEARCH_FIRST_WINDOW_MS; high > lowest && rows.length <= limit; high -= width, width *= 4) {
      // Stryker disable next-line ArithmeticOperator: asking for more rows than needed gives the same first `limit` and the same `more`
      rows.push(...await matching().where('e.occurred_at', '>=', high - width).where('e.occurred_at', '<', high).limit(limit + 1 - rows.length).execute());
    }
  }
  const more = rows.length > limit;
  const keys = rows.slice(0, limit);
  const seqs = [...new Set(keys.map((key) => Number(key.seq)))];
  const records = new Map<number, ReturnType<typeof recordOf>>();
  for (let i = 0; i < seqs.length; i += 500) {
    // Stryker disable next-line MethodExpression: reading all the records at once instead of 500 at a time fills the same map
    for (const row of await store.db.selectFrom('records').selectAll().where('seq', 'in', seqs.slice(i, i + 500)).execute()) records.set(Number(row.seq), recordOf(row, store.dialect));
  }
  const results: (TranscriptEntry & { bot: string })[] = [];
  for (const key of keys) {
    const record = records.get(Number(key.seq));
    // Stryker disable next-line ConditionalExpression: every entry's record is there (entries are written and deleted with their records, in one transaction)
    const entry = record === undefined ? undefined : transcriptEntries(record)[Number(key.idx)];
    // Stryker disable next-line ConditionalExpression: every entry's idx is a place in its record's entries (the projection writes them from transcriptEntries)
    if (entry !== undefined) results.push({ ...entry, bot: key.bot });
  }
  return { results, more };
}
