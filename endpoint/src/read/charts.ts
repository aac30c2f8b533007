/**
 * The summary, the counts over time and the intents: sums over the counts the store keeps per day
 * and per hour (a few rows each, however many records), and over the entries themselves only for
 * minute buckets, whose span is short.
 */
import { sql, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../store/schema.js';
import type { RecordStore } from '../store/store.js';
import { countActiveUsers } from './users.js';
import { DAY, HOUR, MINUTE, NOT_HANDLED_INTENT, botsOf, shownPlatform, storedPlatform, type ReadFilter } from './filter.js';
import type { IntentStats, TimeBucket, Timeseries, TimeseriesPoint, TrackingSummary } from '../types.js';

/** Bucket widths in milliseconds. */
export const BUCKET_MS: Readonly<Record<TimeBucket, number>> = { minute: MINUTE, hour: HOUR, day: DAY };

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

/** The coarsest counts that answer a range exactly: days when its ends are whole days (or open), else hours. */
export function widthFor(filter: ReadFilter): 'h' | 'd' {
  return (filter.from === undefined || filter.from % DAY === 0) && (filter.to === undefined || filter.to % DAY === 0) ? 'd' : 'h';
}

/**
 * Count rows of `width` that match the filter (a range's ends rounded to whole hours or days).
 * Without a width, the coarsest that is exact for the filter's range.
 */
export function counts(store: RecordStore, filter: ReadFilter, width: 'h' | 'd' = widthFor(filter)): SelectQueryBuilder<Database, 'counts', object> {
  const size = width === 'd' ? DAY : HOUR;
  return store.db.selectFrom('counts')
    .where('width', '=', width)
    .$if(botsOf(filter) !== undefined, (q) => q.where('bot', 'in', botsOf(filter)!))
    .$if(filter.platform !== undefined, (q) => q.where('platform', '=', storedPlatform(filter.platform!)))
    .$if(filter.channel !== undefined, (q) => q.where('channel', '=', filter.channel!))
    .$if(filter.from !== undefined, (q) => q.where('at', '>=', Math.floor(filter.from! / size) * size))
    .$if(filter.to !== undefined, (q) => q.where('at', '<', filter.to!));
}

/**
 * How many entries the filter reaches, at most: summed from the counts (a range's ends rounded out
 * to whole hours or days), so a few rows however many entries. 0 means that no entry matches.
 */
export async function entriesWithin(store: RecordStore, filter: ReadFilter, width: 'h' | 'd' = widthFor(filter)): Promise<number> {
  const row = await counts(store, filter, width).select((eb) => eb.fn.sum<number>('entries').as('n')).executeTakeFirstOrThrow();
  return Number(row.n ?? 0);
}

/** Entries that match the filter. */
function entries(store: RecordStore, filter: ReadFilter): SelectQueryBuilder<Database, 'entries', object> {
  return store.db.selectFrom('entries')
    .$if(botsOf(filter) !== undefined, (q) => q.where('bot', 'in', botsOf(filter)!))
    .$if(filter.platform !== undefined, (q) => q.where('platform', '=', storedPlatform(filter.platform!)))
    .$if(filter.channel !== undefined, (q) => q.where('channel', '=', filter.channel!))
    .$if(filter.from !== undefined, (q) => q.where('occurred_at', '>=', filter.from!))
    .$if(filter.to !== undefined, (q) => q.where('occurred_at', '<', filter.to!));
}

/** `{ key: count }` with a null prototype, so that a key such as `__proto__` is just a name. */
function countsOf(rows: { key: string; n: unknown }[], rename: (key: string) => string = (key) => key): Record<string, number> {
  const out: Record<string, number> = Object.create(null);
  for (const row of [...rows].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    const n = Number(row.n);
    if (n > 0) out[rename(row.key)] = (out[rename(row.key)] ?? 0) + n;
  }
  return out;
}

/**
 * The first and latest time an entry that matches the filter happened, or `undefined` when none
 * does. Found without reading the entries a filter leaves out: the daily counts give the days that
 * hold a matching entry, the hourly counts the hours of the first (or last) of them, and only that
 * hour's entries are read (an index range on their time).
 */
async function span(store: RecordStore, filter: ReadFilter): Promise<{ first: number; last: number } | undefined> {
  const days = (await counts(store, filter, 'd').select('at').groupBy('at').having((eb) => eb.fn.sum('entries'), '>', 0).orderBy('at').execute()).map((row) => Number(row.at));
  if (days.length === 0) return undefined;
  const [first, last] = await Promise.all([edge(store, filter, days, 'asc'), edge(store, filter, [...days].reverse(), 'desc')]);
  return first === undefined || last === undefined ? undefined : { first, last };
}

/** The time of the first (`asc`) or latest (`desc`) entry that matches the filter, looking in `days` (in that order) hour by hour. */
async function edge(store: RecordStore, filter: ReadFilter, days: number[], order: 'asc' | 'desc'): Promise<number | undefined> {
  const within = (start: number, size: number): ReadFilter => ({ ...filter, from: Math.max(filter.from ?? start, start), to: Math.min(filter.to ?? start + size, start + size) });
  for (const day of days) {
    const hours = await counts(store, within(day, DAY), 'h').select('at').groupBy('at').having((eb) => eb.fn.sum('entries'), '>', 0).orderBy('at', order).execute();
    for (const { at } of hours) {
      const row = await entries(store, within(Number(at), HOUR)).select('occurred_at').orderBy('occurred_at', order).limit(1).executeTakeFirst();
      if (row !== undefined) return Number(row.occurred_at);
    }
  }
  return undefined;
}

/** Counts over everything that matches the filter: one pass over the counts, summed here. */
export async function summarise(store: RecordStore, filter: ReadFilter): Promise<TrackingSummary> {
  const [rows, users, conversations, times] = await Promise.all([
    counts(store, filter)
      .select(['type', 'platform', 'channel', 'direction', 'intent', 'event_type', 'event_name', 'currency', (eb) => eb.fn.sum<number>('records').as('records'), (eb) => eb.fn.sum<number>('entries').as('entries'), (eb) => eb.fn.sum<number>('revenue').as('revenue')])
      .groupBy(['type', 'platform', 'channel', 'direction', 'intent', 'event_type', 'event_name', 'currency']).execute(),
    countUsers(store, filter),
    countConversations(store, filter),
    span(store, filter),
  ]);
  const byType: { key: string; n: number }[] = [];
  const byPlatform: { key: string; n: number }[] = [];
  const byIntent: { key: string; n: number }[] = [];
  const byEventType: { key: string; n: number }[] = [];
  const byEventName: { key: string; n: number }[] = [];
  const byChannel: { key: string; n: number }[] = [];
  const byCurrency: { key: string; n: number }[] = [];
  let records = 0;
  let messages = 0;
  let events = 0;
  let revenue = 0;
  let revenueCount = 0;
  for (const row of rows) {
    const n = Number(row.records);
    const entries = Number(row.entries);
    records += n;
    byType.push({ key: row.type, n });
    byPlatform.push({ key: row.platform, n });
    if (row.channel !== '') byChannel.push({ key: row.channel, n });
    if (row.direction === 'event') {
      events += entries;
      byEventType.push({ key: row.event_type, n: entries });
      byEventName.push({ key: row.event_name, n: entries });
      if (row.event_type === 'revenueEvent') {
        revenue += Number(row.revenue ?? 0);
        revenueCount += entries;
        byCurrency.push({ key: row.currency || 'unknown', n: Number(row.revenue ?? 0) });
      }
    } else if (row.direction === 'incoming' || row.direction === 'outgoing') {
      messages += entries;
      if (row.intent !== '') byIntent.push({ key: row.intent, n: entries });
    }
  }
  return {
    records,
    messages,
    events,
    users,
    conversations,
    byType: countsOf(byType),
    byPlatform: countsOf(byPlatform, shownPlatform),
    byIntent: countsOf(byIntent),
    byEventType: countsOf(byEventType),
    byEventName: countsOf(byEventName),
    byChannel: countsOf(byChannel),
    revenue: { total: round6(revenue), count: revenueCount, byCurrency: Object.fromEntries(Object.entries(countsOf(byCurrency)).map(([currency, sum]) => [currency, round6(sum)])) },
    firstAt: times === undefined ? null : new Date(times.first).toISOString(),
    lastAt: times === undefined ? null : new Date(times.last).toISOString(),
  };
}

/** Users active within the filter: all a bot's users from the users table when only the bot narrows it. */
async function countUsers(store: RecordStore, filter: ReadFilter): Promise<number> {
  if (filter.platform === undefined && filter.channel === undefined && filter.from === undefined && filter.to === undefined) {
    const row = await store.db.selectFrom('users').$if(botsOf(filter) !== undefined, (q) => q.where('bot', 'in', botsOf(filter)!))
      .select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }
  return countActiveUsers(store, filter);
}

/** Conversations active within the filter. */
async function countConversations(store: RecordStore, filter: ReadFilter): Promise<number> {
  const row = await store.db.selectFrom('conversations')
    .$if(botsOf(filter) !== undefined, (q) => q.where('bot', 'in', botsOf(filter)!))
    .$if(filter.platform !== undefined, (q) => q.where('platform', '=', storedPlatform(filter.platform!)))
    .$if(filter.channel !== undefined, (q) => q.where('channel', '=', filter.channel!))
    .$if(filter.from !== undefined, (q) => q.where('last_at', '>=', filter.from!))
    .$if(filter.to !== undefined, (q) => q.where('first_at', '<', filter.to!))
    .select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

type Counts = Omit<TimeseriesPoint, 'start'>;
const zero = (): Counts => ({ incoming: 0, outgoing: 0, events: 0, notHandled: 0, revenue: 0 });

/** The smallest bucket width that shows `first`…`last` in at most `limit` buckets (days if none does). */
function autoBucket(first: number, last: number, limit: number): TimeBucket {
  for (const bucket of ['minute', 'hour'] as const) {
    const size = BUCKET_MS[bucket];
    if (Math.floor(last / size) - Math.floor(first / size) + 1 <= limit) return bucket;
  }
  return 'day';
}

/**
 * Counts per bucket (UTC), oldest first, from the first activity to the latest (or over the
 * filter's range) with empty buckets filled in; only the latest `limit` buckets when there are
 * more. `auto` picks the smallest width that fits in `limit` buckets. No activity gives no points.
 */
export async function timeseries(store: RecordStore, bucket: TimeBucket | 'auto', limit: number, filter: ReadFilter): Promise<Timeseries> {
  const times = await span(store, filter);
  if (times === undefined) return { bucket: bucket === 'auto' ? 'minute' : bucket, points: [] };
  const first = filter.from ?? times.first;
  const last = filter.to !== undefined ? Math.max(first, Math.min(times.last, filter.to - 1)) : times.last;
  const width = bucket === 'auto' ? autoBucket(first, last, limit) : bucket;
  const size = BUCKET_MS[width];
  const end = Math.floor(last / size) * size;
  const count = Math.min(limit, (end - Math.floor(first / size) * size) / size + 1);
  const start = end - (count - 1) * size;
  const buckets = Array.from({ length: count }, zero);
  const range = { ...filter, from: start, to: end + size };
  const add = (at: number, row: { direction: string; intent: string | null; n: unknown; revenue: unknown }) => {
    const counts = buckets[Math.floor((at - start) / size)];
    if (counts === undefined) return;
    const n = Number(row.n);
    if (row.direction === 'event') {
      counts.events += n;
      counts.revenue += Number(row.revenue ?? 0);
    } else if (row.direction === 'incoming' || row.direction === 'outgoing') {
      counts[row.direction] += n;
      if (row.direction === 'incoming' && row.intent === NOT_HANDLED_INTENT) counts.notHandled += n;
    }
  };
  if (width === 'minute') {
    const bucketOf = sql<number>`(occurred_at / ${sql.lit(MINUTE)}) * ${sql.lit(MINUTE)}`;
    const rows = await entries(store, range)
      .select(['direction', 'intent', bucketOf.as('at'), (eb) => eb.fn.countAll<number>().as('n'),
        (eb) => eb.fn.sum<number>(eb.case().when('event_type', '=', 'revenueEvent').then(eb.ref('amount')).else(0).end()).as('revenue')])
      .groupBy([bucketOf, 'direction', 'intent']).execute();
    for (const row of rows) add(Number(row.at), row);
  } else {
    const bucketOf = sql<number>`(at / ${sql.lit(size)}) * ${sql.lit(size)}`;
    const rows = await counts(store, range, width === 'day' ? 'd' : 'h')
      .select(['direction', 'intent', bucketOf.as('at'), (eb) => eb.fn.sum<number>('entries').as('n'), (eb) => eb.fn.sum<number>('revenue').as('revenue')])
      .groupBy([bucketOf, 'direction', 'intent']).execute();
    for (const row of rows) add(Number(row.at), row);
  }
  const points = buckets.map((counts, i): TimeseriesPoint => ({ start: new Date(start + i * size).toISOString(), ...counts, revenue: round6(counts.revenue) }));
  return { bucket: width, points };
}

/** Messages per intent, most used first, at most `limit` of them; and the numbers of the `NotHandled` share. */
export async function intentStats(store: RecordStore, limit: number, filter: ReadFilter): Promise<IntentStats> {
  const rows = await counts(store, filter).where('direction', 'in', ['incoming', 'outgoing'])
    .select(['intent', 'direction', (eb) => eb.fn.sum<number>('entries').as('n'), (eb) => eb.fn.sum<number>('score_sum').as('score_sum'), (eb) => eb.fn.sum<number>('scored').as('scored')])
    .groupBy(['intent', 'direction']).execute();
  const byIntent = new Map<string, { name: string; incoming: number; outgoing: number; confidence: number | null; scoreSum: number; scored: number }>();
  let incomingMessages = 0;
  let notHandled = 0;
  for (const row of rows) {
    const n = Number(row.n);
    const direction = row.direction as 'incoming' | 'outgoing';
    if (direction === 'incoming') {
      incomingMessages += n;
      if (row.intent === NOT_HANDLED_INTENT) notHandled += n;
    }
    if (row.intent === '') continue;
    let count = byIntent.get(row.intent);
    if (!count) byIntent.set(row.intent, (count = { name: row.intent, incoming: 0, outgoing: 0, confidence: null, scoreSum: 0, scored: 0 }));
    count[direction] += n;
    count.scoreSum += Number(row.score_sum ?? 0);
    count.scored += Number(row.scored ?? 0);
  }
  const all = [...byIntent.values()].sort((a, b) => b.incoming + b.outgoing - (a.incoming + a.outgoing) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const intents = all.slice(0, limit).map(({ scoreSum, scored, ...count }) => ({ ...count, confidence: scored > 0 ? Math.round((scoreSum / scored) * 1e4) / 1e4 : null }));
  return { incomingMessages, notHandled, total: all.length, intents };
}

/** Every bot that sent records (its key's fingerprint), with its record count. */
export async function recordsPerBot(store: RecordStore): Promise<{ bot: string; records: number }[]> {
  const rows = await store.db.selectFrom('counts').where('width', '=', 'd').select(['bot', (eb) => eb.fn.sum<number>('records').as('records')]).groupBy('bot').orderBy('bot').execute();
  return rows.map((row) => ({ bot: row.bot, records: Number(row.records) }));
}

/**
 * Where some bots' records stand: the last `seq` among their entries and their record count (what
 * the live stream tells a reader scoped to them, so that other bots' records show nowhere).
 */
export async function botsState(store: RecordStore, bots: readonly string[]): Promise<{ lastSeq: number; records: number }> {
  if (bots.length === 0) return { lastSeq: 0, records: 0 };
  const [last, count] = await Promise.all([
    store.db.selectFrom('entries').where('bot', 'in', bots).select((eb) => eb.fn.max('seq').as('n')).executeTakeFirstOrThrow(),
    store.db.selectFrom('counts').where('width', '=', 'd').where('bot', 'in', bots).select((eb) => eb.fn.sum<number>('records').as('n')).executeTakeFirstOrThrow(),
  ]);
  return { lastSeq: Number(last.n ?? 0), records: Number(count.n ?? 0) };
}
