/** Revenue with its currency (unknown when the event gives none), per day and per user. */
import { sql, type ExpressionBuilder } from 'kysely';
import type { Database, EntriesTable } from '../store/schema.js';
import type { RecordStore } from '../store/store.js';
import { counts } from './charts.js';
import { HOUR, type ReadFilter } from './filter.js';
import { bucketOf, byDimensions, byRange, iso, round } from './periods.js';
import type { RevenueResponse } from '../types.js';

/**
 * Revenue by currency, per day, and per user (the top `limit`): three sums over the revenue events
 * (their partial index), each grouped by the database, so that what reaches the endpoint's memory
 * is a row per day and per paying user, not one per user and day (10,000 rows and 16 MB of heap a
 * call at a million records, when the days and users were summed here).
 */
export async function revenue(store: RecordStore, filter: ReadFilter, limit: number): Promise<RevenueResponse> {
  const day = bucketOf(store, sql.ref('e.occurred_at'), 'day');
  const events = () => byRange(byDimensions(store.db.selectFrom('entries as e'), filter, 'e'), filter, 'e.occurred_at')
    // Written as in the partial index of revenue events (migration 0002), so that SQLite reads that index.
    .where('e.event_type', '=', sql.lit('revenueEvent')).where('e.amount', 'is not', null);
  const total = (eb: ExpressionBuilder<Database & { e: EntriesTable }, 'e'>) => eb.fn.sum<number>('e.amount').as('total');
  const count = (eb: ExpressionBuilder<Database & { e: EntriesTable }, 'e'>) => eb.fn.countAll<number>().as('n');
  const [currencies, days, users] = await Promise.all([
    events().select(['e.currency', total, count]).groupBy('e.currency').execute(),
    events().select([day.as('at'), 'e.currency', total, count]).groupBy([day, 'e.currency']).execute(),
    events().select(['e.bot', 'e.user_id', 'e.currency', total, count]).groupBy(['e.bot', 'e.user_id', 'e.currency']).execute(),
  ]);
  const money = (value: unknown) => round(Number(value ?? 0), 6);
  const byCurrency = currencies.map((row) => ({ currency: row.currency, total: money(row.total), count: Number(row.n) }));
  const top = users.map((row) => ({ bot: row.bot, userId: row.user_id, currency: row.currency, total: Number(row.total ?? 0), count: Number(row.n) }))
    .sort((a, b) => b.total - a.total || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0)).slice(0, limit);
  // Revenue events carry no user name: take it from the user.
  const names = new Map<string, string | null>();
  if (top.length > 0) {
    const named = await store.db.selectFrom('users').select(['bot', 'user_id', 'name'])
      .where((eb) => eb(eb.refTuple('bot', 'user_id'), 'in', top.map((u) => eb.tuple(u.bot, u.userId)))).execute();
    for (const user of named) names.set(`${user.bot} ${user.user_id}`, user.name);
  }
  return {
    byCurrency: byCurrency.sort((a, b) => b.total - a.total),
    perDay: days.map((row) => ({ at: Number(row.at), currency: row.currency, total: money(row.total), count: Number(row.n) }))
      .sort((a, b) => a.at - b.at || String(a.currency).localeCompare(String(b.currency)))
      .map(({ at, currency, total: sum, count: n }) => ({ start: iso(at), currency, total: sum, count: n })),
    perUser: top.map(({ bot, userId, currency, total: sum, count: n }) => ({ userId, userName: names.get(`${bot} ${userId}`) ?? null, bot, currency, total: money(sum), count: n })),
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
