/**
 * The summary, the counts over time and the intents (read/charts.ts), called in-process on a real
 * store: exact figures for each filter, bucket widths, limits and empty answers; on SQLite and
 * PostgreSQL (`LISTS_SQLITE_ONLY=1` keeps SQLite alone, for mutation runs).
 */
import { describe, expect, it } from 'vitest';
import { botsState, entriesWithin, intentStats, recordsPerBot, summarise, timeseries, widthFor } from '../../src/read/charts.js';
import type { RecordStore } from '../../src/store/store.js';
import { BOT, OTHER_BOT, appendEach, databases, ev, msg, withStore } from '../store/databases.js';

const ALL = databases();
const DBS = process.env.LISTS_SQLITE_ONLY ? ALL.filter((db) => db.name === 'SQLite') : ALL;
const at = (day: number, hour: number, minute = 0) => `2026-03-0${day}T${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00.000Z`;
const ms = (day: number, hour: number, minute = 0) => Date.parse(at(day, hour, minute));

/**
 * ann (universal, webchat, c1, BOT): day 1 10:00 greet (0.8), the bot's answer 10:01, 10:30 NotHandled.
 * bob (twitter, msteams, c2, BOT): day 2 12:00 greet (0.6); a purchase of 12.5 EUR at 12:00 (c2).
 * cat (sms, c3, OTHER_BOT): day 3 08:00 buy.
 */
async function fill(store: RecordStore) {
  return appendEach(store, [
    msg({ user: 'ann', at: at(1, 10), channel: 'webchat', conversation: 'c1', intent: 'greet', score: 0.8 }),
    msg({ user: 'ann', at: at(1, 10, 1), channel: 'webchat', conversation: 'c1', type: 'outgoing' }),
    msg({ user: 'ann', at: at(1, 10, 30), channel: 'webchat', conversation: 'c1', intent: 'NotHandled' }),
    msg({ user: 'bob', at: at(2, 12), platform: 'twitter', channel: 'msteams', conversation: 'c2', intent: 'greet', score: 0.6 }),
    ev('bob', 'purchase', at(2, 12), { type: 'revenueEvent', amount: 12.5, metadata: { currency: 'eur' } }, 'c2'),
    msg({ user: 'cat', at: at(3, 8), platform: 'sms', conversation: 'c3', intent: 'buy', bot: OTHER_BOT }),
  ]);
}

describe('widthFor', () => {
  it('reads days for whole days or open ends, else hours', () => {
    expect(widthFor({})).toBe('d');
    expect(widthFor({ from: ms(1, 0), to: ms(2, 0) })).toBe('d');
    expect(widthFor({ from: ms(1, 1) })).toBe('h');
    expect(widthFor({ to: ms(1, 1) })).toBe('h');
    expect(widthFor({ from: ms(1, 0), to: ms(1, 1) })).toBe('h');
  });
});

describe.each(DBS)('charts on $name', ({ fresh }) => {
  it('sums up everything, or nothing', async () => {
    await withStore(await fresh(), async (store) => {
      const empty = await summarise(store, {});
      expect(empty).toMatchObject({ records: 0, messages: 0, events: 0, users: 0, conversations: 0, firstAt: null, lastAt: null });
      await fill(store);
      const all = await summarise(store, {});
      expect({ ...all, byType: { ...all.byType }, byPlatform: { ...all.byPlatform }, byIntent: { ...all.byIntent }, byEventType: { ...all.byEventType }, byEventName: { ...all.byEventName }, byChannel: { ...all.byChannel } }).toEqual({
        records: 6, messages: 5, events: 1, users: 3, conversations: 3,
        byType: { event: 1, incoming: 4, outgoing: 1 },
        byPlatform: { sms: 1, twitter: 2, universal: 3 },
        byIntent: { NotHandled: 1, buy: 1, greet: 2 },
        byEventType: { revenueEvent: 1 },
        byEventName: { purchase: 1 },
        // The event carries no channel: it is counted on its user's (bob's msteams).
        byChannel: { msteams: 2, webchat: 3 },
        revenue: { total: 12.5, count: 1, byCurrency: { EUR: 12.5 } },
        firstAt: at(1, 10), lastAt: at(3, 8),
      });
    });
  });

  it('sums up within the filter: bot, platform, channel, range', async () => {
    await withStore(await fresh(), async (store) => {
      await fill(store);
      expect(await summarise(store, { bot: OTHER_BOT })).toMatchObject({ records: 1, messages: 1, events: 0, users: 1, conversations: 1, firstAt: at(3, 8), lastAt: at(3, 8) });
      expect(await summarise(store, { bots: [BOT] })).toMatchObject({ records: 5, messages: 4, events: 1, users: 2, conversations: 2, firstAt: at(1, 10), lastAt: at(2, 12) });
      expect(await summarise(store, { platform: 'twitter' })).toMatchObject({ records: 2, messages: 1, events: 1, users: 1, conversations: 1, firstAt: at(2, 12), lastAt: at(2, 12) });
      expect(await summarise(store, { channel: 'webchat' })).toMatchObject({ records: 3, messages: 3, events: 0, users: 1, conversations: 1, firstAt: at(1, 10), lastAt: at(1, 10, 30) });
      // The counts read whole hours (10:00 on), the first and latest times the entries themselves.
      expect(await summarise(store, { from: ms(1, 10, 1), to: ms(2, 0) })).toMatchObject({ messages: 3, users: 1, conversations: 1, firstAt: at(1, 10, 1), lastAt: at(1, 10, 30) });
      expect(await summarise(store, { from: ms(2, 0) })).toMatchObject({ records: 3, messages: 2, events: 1, users: 2, conversations: 2, firstAt: at(2, 12), lastAt: at(3, 8) });
      expect(await summarise(store, { to: ms(2, 0) })).toMatchObject({ records: 3, messages: 3, users: 1, conversations: 1, firstAt: at(1, 10), lastAt: at(1, 10, 30) });
      expect(await summarise(store, { from: ms(4, 0) })).toMatchObject({ records: 0, users: 0, conversations: 0, firstAt: null, lastAt: null });
      expect(await summarise(store, { platform: 'facebook' })).toMatchObject({ records: 0, firstAt: null });
    });
  });

  it('counts entries within a filter from the counts', async () => {
    await withStore(await fresh(), async (store) => {
      expect(await entriesWithin(store, {})).toBe(0);
      await fill(store);
      expect(await entriesWithin(store, {})).toBe(6);
      expect(await entriesWithin(store, { bot: BOT, channel: 'webchat' })).toBe(3);
      expect(await entriesWithin(store, { platform: 'sms' })).toBe(1);
      expect(await entriesWithin(store, { from: ms(1, 11) })).toBe(3);
      expect(await entriesWithin(store, { from: ms(1, 10, 30) })).toBe(6);
      expect(await entriesWithin(store, { to: ms(2, 12) })).toBe(3);
      expect(await entriesWithin(store, { from: ms(2, 0), to: ms(3, 0) }, 'd')).toBe(2);
    });
  });

  it('counts per bucket, oldest first, empty buckets filled in, the latest `limit`', async () => {
    await withStore(await fresh(), async (store) => {
      expect(await timeseries(store, 'auto', 10, {})).toEqual({ bucket: 'minute', points: [] });
      expect(await timeseries(store, 'hour', 10, {})).toEqual({ bucket: 'hour', points: [] });
      await fill(store);
      const p = (start: string, incoming = 0, outgoing = 0, events = 0, notHandled = 0, revenue = 0) => ({ start, incoming, outgoing, events, notHandled, revenue });
      expect(await timeseries(store, 'day', 10, {})).toEqual({ bucket: 'day', points: [p(at(1, 0), 2, 1, 0, 1), p(at(2, 0), 1, 0, 1, 0, 12.5), p(at(3, 0), 1)] });
      expect(await timeseries(store, 'day', 2, {})).toEqual({ bucket: 'day', points: [p(at(2, 0), 1, 0, 1, 0, 12.5), p(at(3, 0), 1)] });
      expect(await timeseries(store, 'day', 10, { bot: BOT })).toEqual({ bucket: 'day', points: [p(at(1, 0), 2, 1, 0, 1), p(at(2, 0), 1, 0, 1, 0, 12.5)] });
      expect(await timeseries(store, 'hour', 3, {})).toEqual({ bucket: 'hour', points: [p(at(3, 6)), p(at(3, 7)), p(at(3, 8), 1)] });
      expect(await timeseries(store, 'hour', 3, { to: ms(2, 13) })).toEqual({ bucket: 'hour', points: [p(at(2, 10)), p(at(2, 11)), p(at(2, 12), 1, 0, 1, 0, 12.5)] });
      expect(await timeseries(store, 'minute', 10, { from: ms(1, 10), to: ms(1, 10, 2) })).toEqual({ bucket: 'minute', points: [p(at(1, 10), 1), p(at(1, 10, 1), 0, 1)] });
      expect(await timeseries(store, 'minute', 2, { channel: 'webchat' })).toEqual({ bucket: 'minute', points: [p(at(1, 10, 29)), p(at(1, 10, 30), 1, 0, 0, 1)] });
      expect(await timeseries(store, 'minute', 100, { platform: 'twitter' })).toEqual({ bucket: 'minute', points: [p(at(2, 12), 1, 0, 1, 0, 12.5)] });
      expect(await timeseries(store, 'auto', 100, {})).toMatchObject({ bucket: 'hour' });
      expect((await timeseries(store, 'auto', 100, {})).points).toHaveLength(47);
      expect(await timeseries(store, 'auto', 10, {})).toMatchObject({ bucket: 'day' });
      expect(await timeseries(store, 'auto', 31, { channel: 'webchat' })).toEqual({ bucket: 'minute', points: Array.from({ length: 31 }, (_, i) => p(at(1, 10, i), i === 0 || i === 30 ? 1 : 0, i === 1 ? 1 : 0, 0, i === 30 ? 1 : 0)) });
      expect(await timeseries(store, 'auto', 30, { channel: 'webchat' })).toEqual({ bucket: 'hour', points: [p(at(1, 10), 2, 1, 0, 1)] });
      expect(await timeseries(store, 'day', 10, { from: ms(1, 0), to: ms(5, 0) })).toEqual({ bucket: 'day', points: [p(at(1, 0), 2, 1, 0, 1), p(at(2, 0), 1, 0, 1, 0, 12.5), p(at(3, 0), 1)] });
      expect(await timeseries(store, 'day', 10, { from: ms(4, 0) })).toEqual({ bucket: 'day', points: [] });
    });
  });

  it('counts messages per intent, most used first, with their confidence; and the NotHandled share', async () => {
    await withStore(await fresh(), async (store) => {
      expect(await intentStats(store, 10, {})).toEqual({ incomingMessages: 0, notHandled: 0, total: 0, intents: [] });
      await fill(store);
      expect(await intentStats(store, 10, {})).toEqual({
        incomingMessages: 4, notHandled: 1, total: 3,
        intents: [
          { name: 'greet', incoming: 2, outgoing: 0, confidence: 0.7 },
          { name: 'NotHandled', incoming: 1, outgoing: 0, confidence: null },
          { name: 'buy', incoming: 1, outgoing: 0, confidence: null },
        ],
      });
      expect(await intentStats(store, 1, {})).toEqual({ incomingMessages: 4, notHandled: 1, total: 3, intents: [{ name: 'greet', incoming: 2, outgoing: 0, confidence: 0.7 }] });
      expect(await intentStats(store, 10, { bot: BOT, platform: 'twitter' })).toEqual({ incomingMessages: 1, notHandled: 0, total: 1, intents: [{ name: 'greet', incoming: 1, outgoing: 0, confidence: 0.6 }] });
      await appendEach(store, [msg({ user: 'dan', at: at(3, 9), intent: 'buy', type: 'outgoing', score: 0.12345 }), msg({ user: 'dan', at: at(3, 9), intent: 'buy' })]);
      expect((await intentStats(store, 10, { from: ms(3, 0) })).intents).toEqual([{ name: 'buy', incoming: 2, outgoing: 1, confidence: 0.1235 }]);
    });
  });

  it('tells the records per bot, and where some bots\' records stand', async () => {
    await withStore(await fresh(), async (store) => {
      expect(await recordsPerBot(store)).toEqual([]);
      expect(await botsState(store, [BOT])).toEqual({ lastSeq: 0, records: 0 });
      const stored = await fill(store);
      expect(await recordsPerBot(store)).toEqual([{ bot: OTHER_BOT, records: 1 }, { bot: BOT, records: 5 }]);
      expect(await botsState(store, [BOT])).toEqual({ lastSeq: stored[4].seq, records: 5 });
      expect(await botsState(store, [OTHER_BOT, BOT])).toEqual({ lastSeq: stored[5].seq, records: 6 });
      expect(await botsState(store, [])).toEqual({ lastSeq: 0, records: 0 });
    });
  });
});
