/**
 * The revenue view (read/revenue.ts), called in-process on a real store: totals by currency (the
 * largest first), per day (by day, then currency), the top users (the largest total first; of two
 * equal ones, the user id first in order, whatever their bots), and whether a range holds revenue
 * in several currencies (asked by the timeseries); on SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { revenue, severalCurrencies } from '../../src/read/revenue.js';
import type { RecordStore } from '../../src/store/store.js';
import { BOT, OTHER_BOT, appendEach, databases, ev, withStore } from '../store/databases.js';

const DBS = databases();

/** A purchase of `amount` in `currency` (none when null) by `user` of `bot` at `at`. */
const buy = (user: string, amount: number, currency: string | null, at: string, bot = BOT) =>
  ev(user, 'purchase', at, { type: 'revenueEvent', amount, ...(currency === null ? {} : { metadata: { currency } }) }, `c-${user}`, bot);

describe.each(DBS)('revenue on $name', ({ fresh }) => {
  it('totals each currency, largest first; per day by day, then currency (an unknown one named null); the top users by total', async () => {
    await withStore(await fresh(), async (store: RecordStore) => {
      await appendEach(store, [
        buy('amy', 5, 'EUR', '2026-03-03T10:00:00Z'),
        // A tie with amy (10 in all), in another bot, whose key sorts first: the database gives zoe first.
        buy('zoe', 10, 'USD', '2026-03-02T10:00:00Z', OTHER_BOT),
        buy('amy', 5, 'EUR', '2026-03-02T11:00:00Z'),
        buy('kim', 2, null, '2026-03-02T12:00:00Z'),
        buy('kim', 0.5, 'EUR', '2026-03-02T12:30:00Z'),
      ]);
      const all = await revenue(store, {}, 10);
      expect(all.byCurrency).toEqual([{ currency: 'EUR', total: 10.5, count: 3 }, { currency: 'USD', total: 10, count: 1 }, { currency: null, total: 2, count: 1 }]);
      expect(all.perDay).toEqual([
        { start: '2026-03-02T00:00:00.000Z', currency: 'EUR', total: 5.5, count: 2 },
        { start: '2026-03-02T00:00:00.000Z', currency: null, total: 2, count: 1 },
        { start: '2026-03-02T00:00:00.000Z', currency: 'USD', total: 10, count: 1 },
        { start: '2026-03-03T00:00:00.000Z', currency: 'EUR', total: 5, count: 1 },
      ]);
      expect(all.perUser.map((u) => [u.userId, u.bot, u.currency, u.total, u.count])).toEqual([
        ['amy', BOT, 'EUR', 10, 2], ['zoe', OTHER_BOT, 'USD', 10, 1], ['kim', BOT, null, 2, 1], ['kim', BOT, 'EUR', 0.5, 1],
      ]);
      expect((await revenue(store, {}, 2)).perUser.map((u) => u.userId)).toEqual(['amy', 'zoe']);
    });
  });

  it('says whether a range holds revenue in several currencies: from the counts on whole hours, from the events within its exact ends otherwise', async () => {
    await withStore(await fresh(), async (store: RecordStore) => {
      await appendEach(store, [buy('ann', 3, 'EUR', '2026-03-02T10:02:00Z'), buy('bob', 4, 'USD', '2026-03-02T10:40:00Z')]);
      const range = (from: string, to: string) => ({ from: Date.parse(from), to: Date.parse(to) });
      expect(await severalCurrencies(store, {})).toBe(true);
      expect(await severalCurrencies(store, range('2026-03-02T10:00:00Z', '2026-03-02T11:00:00Z'))).toBe(true);
      // Ends inside the hour: only the events within them count.
      expect(await severalCurrencies(store, range('2026-03-02T10:00:00Z', '2026-03-02T10:30:00Z'))).toBe(false);
      expect(await severalCurrencies(store, range('2026-03-02T10:30:00Z', '2026-03-02T11:00:00Z'))).toBe(false);
      expect(await severalCurrencies(store, range('2026-03-02T10:01:00Z', '2026-03-02T10:50:00Z'))).toBe(true);
      expect(await severalCurrencies(store, range('2026-03-02T11:00:00Z', '2026-03-02T12:00:00Z'))).toBe(false);
    });
  });
});
