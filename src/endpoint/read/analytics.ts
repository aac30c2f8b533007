/**
 * The analytics bot teams ask for first, each a query on the store (SQLite and PostgreSQL alike):
 * active users and retention (from the active days and weeks the store keeps), sessions and paths
 * (from its sessions), funnels (from the entries), what users say and what the bot did not
 * understand (from the daily message counts), clicked buttons, feedback, and revenue by currency.
 * Every view takes the filter; times are when things happened, in UTC.
 */
import { sql, type Expression, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../store/schema.js';
import type { RecordStore } from '../store/store.js';
import { EVENT_STEP_PREFIX } from '../store/sessions.js';
import { counts } from './charts.js';
import { DAY, NOT_HANDLED_INTENT, storedPlatform, type ReadFilter } from './filter.js';
import type {
  ActiveUsersResponse, ActivityInterval, ButtonsResponse, FeedbackResponse, FunnelResponse, MessagesResponse, PathsResponse,
  RetentionResponse, RevenueResponse, SessionsResponse,
} from '../types.js';

const WEEK = 7 * DAY;
/** 1970-01-05: weeks start on Mondays (UTC). */
const FIRST_MONDAY = 4 * DAY;
/** Weeks after its first that a retention cohort follows. */
export const RETENTION_WEEKS = 8;

const iso = (ms: number) => new Date(ms).toISOString();
const round = (value: number, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The start of the day, week or month of a time column, as SQL (integer arithmetic; months through the dialect). */
function bucketOf(store: RecordStore, column: Expression<number>, interval: ActivityInterval): RawBuilder<number> {
  if (interval === 'day') return sql<number>`((${column} / ${sql.lit(DAY)}) * ${sql.lit(DAY)})`;
  if (interval === 'week') return sql<number>`(((${column} - ${sql.lit(FIRST_MONDAY)}) / ${sql.lit(WEEK)}) * ${sql.lit(WEEK)} + ${sql.lit(FIRST_MONDAY)})`;
  return store.dialect.monthStart(column);
}

/** The same, in JavaScript. */
function bucketStart(ms: number, interval: ActivityInterval): number {
  if (interval === 'day') return Math.floor(ms / DAY) * DAY;
  if (interval === 'week') return Math.floor((ms - FIRST_MONDAY) / WEEK) * WEEK + FIRST_MONDAY;
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

function nextBucket(start: number, interval: ActivityInterval): number {
  if (interval === 'day') return start + DAY;
  if (interval === 'week') return start + WEEK;
  const date = new Date(start);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/** Narrows a query on a table with `bot`, `platform` and `channel` columns by the filter's bot, platform and channel. */
function byDimensions<QB extends SelectQueryBuilder<Database, any, any>>(query: QB, filter: ReadFilter, table: string): QB {
  let q = query;
  if (filter.bot !== undefined) q = q.where(`${table}.bot` as any, '=', filter.bot) as QB;
  if (filter.platform !== undefined) q = q.where(`${table}.platform` as any, '=', storedPlatform(filter.platform)) as QB;
  if (filter.channel !== undefined) q = q.where(`${table}.channel` as any, '=', filter.channel) as QB;
  return q;
}

/** Narrows by the filter's range on a time column (`from` rounded down to `round`, e.g. a day for daily tables). */
function byRange<QB extends SelectQueryBuilder<Database, any, any>>(query: QB, filter: ReadFilter, column: string, round = 1): QB {
  let q = query;
  if (filter.from !== undefined) q = q.where(column as any, '>=', Math.floor(filter.from / round) * round) as QB;
  if (filter.to !== undefined) q = q.where(column as any, '<', filter.to) as QB;
  return q;
}

/** Buckets from the first to the last start given (or the filter's range), oldest first, with none missing. */
function buckets(starts: number[], filter: ReadFilter, interval: ActivityInterval): number[] {
  if (starts.length === 0 && (filter.from === undefined || filter.to === undefined)) return [];
  const first = bucketStart(filter.from ?? Math.min(...starts), interval);
  const last = bucketStart(filter.to !== undefined ? filter.to - 1 : Math.max(...starts), interval);
  const out: number[] = [];
  for (let at = first; at <= last && out.length < 5000; at = nextBucket(at, interval)) out.push(at);
  return out;
}

/**
 * Active users per day, week or month, and how many of them were new (first seen ever, for the
 * bot, platform and channel asked for, in that bucket) or returning.
 */
export async function activeUsers(store: RecordStore, filter: ReadFilter, interval: ActivityInterval): Promise<ActiveUsersResponse> {
  const at = bucketOf(store, sql.ref('d.day'), interval);
  const active = await byRange(byDimensions(store.db.selectFrom('user_days as d'), filter, 'd'), filter, 'd.day', DAY)
    .select([at.as('at'), sql<number>`count(distinct d.bot || ' ' || d.user_id)`.as('n')])
    .groupBy(at).execute();
  // Each user's first activity, over all time (not only the range asked for): kept with the user,
  // unless the platform or channel narrows it (then their first active day there).
  let fresh: { at: unknown; n: unknown }[];
  if (filter.platform === undefined && filter.channel === undefined) {
    const firstAt = bucketOf(store, sql.ref('u.first_at'), interval);
    fresh = await byRange(store.db.selectFrom('users as u').$if(filter.bot !== undefined, (q) => q.where('u.bot', '=', filter.bot!)), filter, 'u.first_at', DAY)
      .select([firstAt.as('at'), (eb) => eb.fn.countAll<number>().as('n')]).groupBy(firstAt).execute();
  } else {
    const firsts = byDimensions(store.db.selectFrom('user_days as d'), filter, 'd').select(['d.bot', 'd.user_id', (eb) => eb.fn.min('d.day').as('first')]).groupBy(['d.bot', 'd.user_id']);
    const firstAt = bucketOf(store, sql.ref('f.first'), interval);
    fresh = await byRange(store.db.selectFrom(firsts.as('f')), filter, 'f.first', DAY)
      .select([firstAt.as('at'), (eb) => eb.fn.countAll<number>().as('n')]).groupBy(firstAt).execute();
  }
  const newBy = new Map(fresh.map((row) => [Number(row.at), Number(row.n)]));
  const activeBy = new Map(active.map((row) => [Number(row.at), Number(row.n)]));
  const points = buckets([...activeBy.keys()], filter, interval).map((start) => {
    const count = activeBy.get(start) ?? 0;
    const added = Math.min(count, newBy.get(start) ?? 0);
    return { start: iso(start), active: count, new: added, returning: count - added };
  });
  return { interval, points };
}

/**
 * Weekly retention cohorts: the users first seen each week (within the range, or the last 12
 * weeks), and the share of them active again in each of the 8 weeks after.
 */
export async function retention(store: RecordStore, filter: ReadFilter, now = Date.now()): Promise<RetentionResponse> {
  const firsts = byDimensions(store.db.selectFrom('user_weeks as w'), filter, 'w').select(['w.bot', 'w.user_id', (eb) => eb.fn.min('w.week').as('cohort')]).groupBy(['w.bot', 'w.user_id']);
  const from = filter.from ?? bucketStart(now, 'week') - 11 * WEEK;
  const range = { from, to: filter.to };
  const offset = sql<number>`((w.week - f.cohort) / ${sql.lit(WEEK)})`;
  const rows = await byDimensions(
    byRange(store.db.selectFrom(firsts.as('f')), range, 'f.cohort', WEEK)
      .innerJoin('user_weeks as w', (join) => join.onRef('w.bot', '=', 'f.bot').onRef('w.user_id', '=', 'f.user_id')),
    filter, 'w',
  )
    .where(offset, '<=', RETENTION_WEEKS)
    .select(['f.cohort', offset.as('k'), sql<number>`count(distinct w.bot || ' ' || w.user_id)`.as('n')])
    .groupBy(['f.cohort', offset]).orderBy('f.cohort').execute();
  const cohorts = new Map<number, number[]>();
  for (const row of rows) {
    const cohort = Number(row.cohort);
    let counts = cohorts.get(cohort);
    if (!counts) cohorts.set(cohort, (counts = new Array(RETENTION_WEEKS + 1).fill(0)));
    counts[Number(row.k)] = Number(row.n);
  }
  const thisWeek = bucketStart(now, 'week');
  return {
    cohorts: [...cohorts.entries()].map(([week, counts]) => ({
      week: iso(week),
      users: counts[0],
      returned: counts.slice(1).map((n, i) => (week + (i + 1) * WEEK > thisWeek || counts[0] === 0 ? null : round(n / counts[0]))),
    })),
  };
}

/**
 * How many sessions, how long, how many messages each, and how many started each day: from the
 * per-day session figures the store keeps (the days the range touches). The median length is the
 * lower bound of the length bucket (10 s, 1 min or 10 min wide) that holds the middle session.
 */
export async function sessionStats(store: RecordStore, filter: ReadFilter): Promise<SessionsResponse> {
  const days = () => byRange(byDimensions(store.db.selectFrom('session_days as d'), filter, 'd'), filter, 'd.day', DAY);
  const [perDay, totals, histogram, users] = await Promise.all([
    days().select(['d.day', (eb) => eb.fn.sum<number>('d.sessions').as('n')]).groupBy('d.day').execute(),
    days().select((eb) => [eb.fn.sum<number>('d.sessions').as('sessions'), eb.fn.sum<number>('d.messages').as('messages'), eb.fn.sum<number>('d.length_ms').as('length')]).executeTakeFirstOrThrow(),
    byRange(byDimensions(store.db.selectFrom('session_lengths as l'), filter, 'l'), filter, 'l.day', DAY)
      .select(['l.bucket', (eb) => eb.fn.sum<number>('l.sessions').as('n')]).groupBy('l.bucket').orderBy('l.bucket').execute(),
    countActiveUsers(store, filter),
  ]);
  const count = Number(totals.sessions ?? 0);
  let median = 0;
  let seen = 0;
  for (const row of histogram) {
    seen += Number(row.n);
    if (seen * 2 > count || (count > 0 && seen === count)) {
      median = Number(row.bucket);
      break;
    }
  }
  const byDay = new Map(perDay.map((row) => [Number(row.day), Number(row.n)]));
  return {
    sessions: count,
    users,
    messagesPerSession: count === 0 ? 0 : round(Number(totals.messages ?? 0) / count, 2),
    averageLengthSeconds: count === 0 ? 0 : round(Number(totals.length ?? 0) / count / 1000, 1),
    medianLengthSeconds: median,
    perDay: buckets([...byDay.keys()].filter((day) => (byDay.get(day) ?? 0) > 0), filter, 'day').map((start) => ({ start: iso(start), sessions: byDay.get(start) ?? 0 })),
  };
}

/** Users active within the filter (any message or event). */
async function countActiveUsers(store: RecordStore, filter: ReadFilter): Promise<number> {
  const row = await byRange(byDimensions(store.db.selectFrom('user_days as d'), filter, 'd'), filter, 'd.day', DAY)
    .select(sql<number>`count(distinct d.bot || ' ' || d.user_id)`.as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The most common paths: sessions (started within the filter) grouped by their first steps, from the per-day path counts. */
export async function paths(store: RecordStore, filter: ReadFilter, limit: number): Promise<PathsResponse> {
  const base = () => byRange(byDimensions(store.db.selectFrom('session_paths as p'), filter, 'p'), filter, 'p.day', DAY);
  const [total, rows] = await Promise.all([
    base().select((eb) => eb.fn.sum<number>('p.sessions').as('n')).executeTakeFirstOrThrow(),
    base().select(['p.path', (eb) => eb.fn.sum<number>('p.sessions').as('n')]).groupBy('p.path').having((eb) => eb.fn.sum('p.sessions'), '>', 0)
      .orderBy('n', 'desc').orderBy('p.path').limit(limit).execute(),
  ]);
  const sessions = Number(total.n ?? 0);
  const found = rows.map((row) => ({ steps: JSON.parse(row.path) as string[], sessions: Number(row.n), share: sessions === 0 ? 0 : round(Number(row.n) / sessions) }));
  // Ties in the order the steps read (the databases' collations differ on punctuation).
  const label = (steps: string[]) => steps.join(' > ');
  return { sessions, paths: found.sort((a, b) => b.sessions - a.sessions || (label(a.steps) < label(b.steps) ? -1 : label(a.steps) > label(b.steps) ? 1 : 0)) };
}

/** The entries a funnel step matches: an incoming message with the intent, or an event (`event:NAME`). */
function stepCondition(step: string) {
  return step.startsWith(EVENT_STEP_PREFIX)
    ? { direction: undefined, column: 'event_name' as const, value: step.slice(EVENT_STEP_PREFIX.length) } // only events have a name
    : { direction: 'incoming' as const, column: 'intent' as const, value: step };
}

/**
 * A funnel: the users who took the first step within the filter, then of those the users who took
 * the second at or after their first, and so on; with the drop-off between steps.
 */
export async function funnel(store: RecordStore, filter: ReadFilter, steps: readonly string[]): Promise<FunnelResponse> {
  const counts: number[] = [];
  // One query: each step a CTE that keeps, per user, the first time they took it after the previous step.
  let query: any = store.db;
  steps.forEach((step, i) => {
    const { direction, column, value } = stepCondition(step);
    query = query.with(`s${i}`, (db: any) => {
      // The covering indexes (intent, direction, bot, user_id, occurred_at) and (event_name, bot, user_id, occurred_at) answer each step.
      let q = byRange(byDimensions(db.selectFrom('entries as e'), filter, 'e'), filter, 'e.occurred_at').where(`e.${column}`, '=', value);
      if (direction !== undefined) q = q.where('e.direction', '=', direction);
      if (i > 0) q = q.innerJoin(`s${i - 1} as p`, (join: any) => join.onRef('p.bot', '=', 'e.bot').onRef('p.user_id', '=', 'e.user_id').onRef('e.occurred_at', '>=', 'p.t'));
      return q.select(['e.bot', 'e.user_id', (eb: any) => eb.fn.min('e.occurred_at').as('t')]).groupBy(['e.bot', 'e.user_id']);
    });
  });
  if (steps.length > 0) {
    const row = await query.selectNoFrom((eb: any) => steps.map((_, i) => eb.selectFrom(`s${i}`).select((c: any) => c.fn.countAll().as('n')).as(`n${i}`))).executeTakeFirstOrThrow();
    steps.forEach((_, i) => counts.push(Number(row[`n${i}`] ?? 0)));
  }
  return {
    steps: steps.map((step, i) => ({
      step,
      users: counts[i],
      dropOff: i === 0 || counts[i - 1] === 0 ? 0 : round(1 - counts[i] / counts[i - 1]),
      conversion: counts[0] === 0 ? 0 : round(counts[i] / counts[0]),
    })),
  };
}

/**
 * What users said most (grouped by normalised text), or only what was marked `NotHandled`: from
 * the all-time totals when no range is asked, else from the per-day counts.
 */
export async function topMessages(store: RecordStore, filter: ReadFilter, limit: number, unhandled: boolean): Promise<MessagesResponse> {
  const open = filter.from === undefined && filter.to === undefined;
  const base = () => (open
    ? byDimensions(store.db.selectFrom('message_totals as m'), filter, 'm')
    : byRange(byDimensions(store.db.selectFrom('daily_messages as m'), filter, 'm'), filter, 'm.day', DAY))
    .$if(unhandled, (q: any) => q.where('m.intent', '=', NOT_HANDLED_INTENT));
  const [total, rows] = await Promise.all([
    base().select((eb: any) => eb.fn.sum('m.count').as('n')).executeTakeFirstOrThrow(),
    base().select(['m.text_key', (eb: any) => eb.fn.max('m.text').as('text'), (eb: any) => eb.fn.sum('m.count').as('n'), (eb: any) => eb.fn.max('m.intent').as('intent')])
      .groupBy('m.text_key').orderBy('n', 'desc').orderBy('m.text_key').limit(limit).execute(),
  ]) as unknown as [{ n: unknown }, { text_key: string; text: unknown; n: unknown; intent: unknown }[]];
  const all = Number(total.n ?? 0);
  const byCount = (a: { n: unknown; text_key: string }, b: { n: unknown; text_key: string }) => Number(b.n) - Number(a.n) || (a.text_key < b.text_key ? -1 : a.text_key > b.text_key ? 1 : 0);
  return {
    total: all,
    messages: rows.sort(byCount).map((row) => ({ text: String(row.text), key: row.text_key, count: Number(row.n), share: all === 0 ? 0 : round(Number(row.n) / all), intent: row.intent ? String(row.intent) : null })),
  };
}

/** The buttons users clicked, most clicked first, with what the user's message said with the click (from the per-day click counts). */
export async function clickedButtons(store: RecordStore, filter: ReadFilter, limit: number): Promise<ButtonsResponse> {
  const base = () => byRange(byDimensions(store.db.selectFrom('daily_clicks as c'), filter, 'c'), filter, 'c.day', DAY);
  const [total, rows] = await Promise.all([
    base().select((eb) => eb.fn.sum<number>('c.clicks').as('n')).executeTakeFirstOrThrow(),
    base().select(['c.button', (eb) => eb.fn.sum<number>('c.clicks').as('n'), (eb) => eb.fn.max('c.label').as('label')])
      .groupBy('c.button').orderBy('n', 'desc').orderBy('c.button').limit(limit).execute(),
  ]);
  const byClicks = (a: { n: unknown; button: string }, b: { n: unknown; button: string }) => Number(b.n) - Number(a.n) || (a.button < b.button ? -1 : a.button > b.button ? 1 : 0);
  return { total: Number(total.n ?? 0), buttons: rows.sort(byClicks).map((row) => ({ button: row.button, label: row.label ? String(row.label) : null, clicks: Number(row.n) })) };
}

/** Most feedback comments returned. */
const MAX_COMMENTS = 100;

/**
 * Thumbs up and down from feedback events, per day and per intent (of the rated reply, else of
 * the user's message it answered: found as each feedback is stored), with the latest comments;
 * and the share of replies marked AI-generated.
 */
export async function feedback(store: RecordStore, filter: ReadFilter): Promise<FeedbackResponse> {
  const events = () => byRange(byDimensions(store.db.selectFrom('entries as e'), filter, 'e'), filter, 'e.occurred_at').where('e.reaction', 'is not', null);
  const day = bucketOf(store, sql.ref('e.occurred_at'), 'day');
  const [groups, comments, ai] = await Promise.all([
    // One pass over the ratings: per day, intent and reaction; summed three ways below.
    events().select([day.as('at'), 'e.rated_intent', 'e.reaction', (eb) => eb.fn.countAll<number>().as('n')]).groupBy([day, 'e.rated_intent', 'e.reaction']).execute(),
    events().where('e.comment', 'is not', null)
      // Events carry no name: the user's, as the store knows it.
      .leftJoin('users as u', (join) => join.onRef('u.bot', '=', 'e.bot').onRef('u.user_id', '=', 'e.user_id'))
      .select(['e.occurred_at', 'e.user_id', 'u.name as user_name', 'e.reaction', 'e.comment', 'e.rated_intent', 'e.reply_to'])
      .orderBy('e.occurred_at', 'desc').orderBy('e.seq', 'desc').limit(MAX_COMMENTS).execute(),
    counts(store, filter).where('direction', '=', 'outgoing')
      .select((eb) => [eb.fn.sum<number>('entries').as('replies'), eb.fn.sum<number>('ai_generated').as('ai')]).executeTakeFirstOrThrow(),
  ]);
  let up = 0;
  let down = 0;
  const byDay = new Map<number, { up: number; down: number }>();
  const byIntent = new Map<string | null, { up: number; down: number }>();
  for (const row of groups) {
    const n = Number(row.n);
    const liked = row.reaction === 'like';
    const d = byDay.get(Number(row.at)) ?? { up: 0, down: 0 };
    const i = byIntent.get(row.rated_intent) ?? { up: 0, down: 0 };
    byDay.set(Number(row.at), d);
    byIntent.set(row.rated_intent, i);
    if (liked) {
      up += n;
      d.up += n;
      i.up += n;
    } else {
      down += n;
      d.down += n;
      i.down += n;
    }
  }
  const replyCount = Number(ai.replies ?? 0);
  const aiCount = Number(ai.ai ?? 0);
  return {
    up,
    down,
    perDay: buckets([...byDay.keys()], filter, 'day').map((start) => ({ start: iso(start), ...(byDay.get(start) ?? { up: 0, down: 0 }) })),
    perIntent: [...byIntent.entries()].map(([intent, c]) => ({ intent, ...c }))
      .sort((a, b) => b.up + b.down - (a.up + a.down) || String(a.intent).localeCompare(String(b.intent))),
    comments: comments.map((e) => ({
      time: iso(Number(e.occurred_at)), userId: e.user_id, userName: e.user_name, reaction: e.reaction as 'like' | 'dislike',
      comment: e.comment as string, intent: e.rated_intent, replyTo: e.reply_to,
    })),
    ai: { replies: replyCount, aiGenerated: aiCount, share: replyCount === 0 ? 0 : round(aiCount / replyCount) },
  };
}

/** Revenue by currency, per day, and per user (the top `limit`): one pass over the revenue events, summed three ways. */
export async function revenue(store: RecordStore, filter: ReadFilter, limit: number): Promise<RevenueResponse> {
  const day = bucketOf(store, sql.ref('e.occurred_at'), 'day');
  const rows = await byRange(byDimensions(store.db.selectFrom('entries as e'), filter, 'e'), filter, 'e.occurred_at')
    .where('e.event_type', '=', 'revenueEvent').where('e.amount', 'is not', null)
    .select([day.as('at'), 'e.bot', 'e.user_id', 'e.currency', (eb) => eb.fn.sum<number>('e.amount').as('total'), (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy([day, 'e.bot', 'e.user_id', 'e.currency']).execute();
  const sum = <K>(map: Map<K, { total: number; count: number }>, key: K, total: number, count: number) => {
    const into = map.get(key) ?? { total: 0, count: 0 };
    into.total += total;
    into.count += count;
    map.set(key, into);
  };
  const byCurrency = new Map<string | null, { total: number; count: number }>();
  const perDay = new Map<string, { total: number; count: number }>();
  const perUser = new Map<string, { total: number; count: number }>();
  for (const row of rows) {
    const total = Number(row.total ?? 0);
    const n = Number(row.n);
    sum(byCurrency, row.currency, total, n);
    sum(perDay, JSON.stringify([Number(row.at), row.currency]), total, n);
    sum(perUser, JSON.stringify([row.bot, row.user_id, row.currency]), total, n);
  }
  const money = (value: number) => round(value, 6);
  const top = [...perUser.entries()].map(([key, value]) => ({ key: JSON.parse(key) as [string, string, string | null], ...value }))
    .sort((a, b) => b.total - a.total || (a.key[1] < b.key[1] ? -1 : a.key[1] > b.key[1] ? 1 : 0)).slice(0, limit);
  // Revenue events carry no user name: take it from the user.
  const names = new Map<string, string | null>();
  if (top.length > 0) {
    const users = await store.db.selectFrom('users').select(['bot', 'user_id', 'name'])
      .where((eb) => eb(eb.refTuple('bot', 'user_id'), 'in', top.map((u) => eb.tuple(u.key[0], u.key[1])))).execute();
    for (const user of users) names.set(`${user.bot} ${user.user_id}`, user.name);
  }
  return {
    byCurrency: [...byCurrency.entries()].map(([currency, v]) => ({ currency, total: money(v.total), count: v.count })).sort((a, b) => b.total - a.total),
    perDay: [...perDay.entries()].map(([key, v]) => ({ key: JSON.parse(key) as [number, string | null], ...v }))
      .sort((a, b) => a.key[0] - b.key[0] || String(a.key[1]).localeCompare(String(b.key[1])))
      .map(({ key, total, count }) => ({ start: iso(key[0]), currency: key[1], total: money(total), count })),
    perUser: top.map(({ key: [bot, userId, currency], total, count }) => ({ userId, userName: names.get(`${bot} ${userId}`) ?? null, bot, currency, total: money(total), count })),
  };
}
