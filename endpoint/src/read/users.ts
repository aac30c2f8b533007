/**
 * Who uses the bot: active users per day, week or month (new and returning), weekly retention
 * cohorts, and sessions (how many, how long, how many messages). Read from the active days and
 * weeks and the per-day session figures the store keeps, never from the entries.
 */
import { sql } from 'kysely';
import type { RecordStore } from '../store/store.js';
import { DAY, botsOf, type ReadFilter } from './filter.js';
import { WEEK, bucketOf, bucketStart, buckets, byDimensions, byRange, iso, round } from './periods.js';
import type { ActiveUsersResponse, ActivityInterval, RetentionResponse, SessionsResponse } from '../types.js';

/** Weeks after its first that a retention cohort follows. */
export const RETENTION_WEEKS = 8;

/**
 * Active users per day, week or month, and how many of them were new (first seen ever, for the
 * bot, platform and channel asked for, in that bucket) or returning.
 */
export async function activeUsers(store: RecordStore, filter: ReadFilter, interval: ActivityInterval): Promise<ActiveUsersResponse> {
  // Distinct users per bucket: each user once per bucket (an inner grouping the index on days
  // answers in order for days, which are stored as the start of their day), then counted.
  const at = interval === 'day' ? sql<number>`${sql.ref('d.day')}` : bucketOf(store, sql.ref('d.day'), interval);
  const perUser = byRange(byDimensions(store.db.selectFrom('user_days as d'), filter, 'd'), filter, 'd.day', DAY)
    .select([at.as('at'), 'd.bot', 'd.user_id']).groupBy([at, 'd.bot', 'd.user_id']);
  const active = await store.db.selectFrom(perUser.as('a')).select(['a.at', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('a.at').execute();
  // Each user's first activity, over all time (not only the range asked for): kept with the user,
  // unless the platform or channel narrows it (then their first active day there).
  let fresh: { at: unknown; n: unknown }[];
  if (filter.platform === undefined && filter.channel === undefined) {
    const firstAt = bucketOf(store, sql.ref('u.first_at'), interval);
    fresh = await byRange(store.db.selectFrom('users as u').$if(botsOf(filter) !== undefined, (q) => q.where('u.bot', 'in', botsOf(filter)!)), filter, 'u.first_at', DAY)
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

/** Users active within the filter (any message or event): each user once (a grouping the active days' key answers in order), counted. */
export async function countActiveUsers(store: RecordStore, filter: ReadFilter): Promise<number> {
  const users = byRange(byDimensions(store.db.selectFrom('user_days as d'), filter, 'd'), filter, 'd.day', DAY)
    .select(['d.bot', 'd.user_id']).groupBy(['d.bot', 'd.user_id']);
  const row = await store.db.selectFrom(users.as('u')).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
