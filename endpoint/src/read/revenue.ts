/** Revenue with its currency (unknown when the event gives none), per day and per user. */
import { sql } from 'kysely';
import type { RecordStore } from '../store/store.js';
import { counts } from './charts.js';
import { HOUR, type ReadFilter } from './filter.js';
import { bucketOf, byDimensions, byRange, iso, round } from './periods.js';
import type { RevenueResponse } from '../types.js';

/** Revenue by currency, per day, and per user (the top `limit`): one pass over the revenue events, summed three ways. */
export async function revenue(store: RecordStore, filter: ReadFilter, limit: number): Promise<RevenueResponse> {
  const day = bucketOf(store, sql.ref('e.occurred_at'), 'day');
  const rows = await byRange(byDimensions(store.db.selectFrom('entries as e'), filter, 'e'), filter, 'e.occurred_at')
    // Written as in the partial index of revenue events (migration 0002), so that SQLite reads that index.
    .where('e.event_type', '=', sql.lit('revenueEvent')).where('e.amount', 'is not', null)
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

/**
 * Whether the revenue events that match the filter are in more than one currency (events without
 * one count as one more, as in `revenue`'s byCurrency): what the timeseries asks to know whether
 * its revenue may be summed. From the counts (a few rows, however many events) when they answer
 * the filter's range exactly, its ends on whole hours; else from the events, as `revenue` does.
 * (The counts also hold the currency of a revenue event stored without an amount, which
 * `revenue` leaves out; the spec's schema, checked on every way in, requires an amount.)
 */
export async function severalCurrencies(store: RecordStore, filter: ReadFilter): Promise<boolean> {
  if ((filter.from ?? 0) % HOUR !== 0 || (filter.to ?? 0) % HOUR !== 0) return (await revenue(store, filter, 1)).byCurrency.length > 1;
  const rows = await counts(store, filter).where('event_type', '=', 'revenueEvent').where('entries', '>', 0).select('currency').distinct().limit(2).execute();
  return rows.length > 1;
}
