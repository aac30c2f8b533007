/**
 * What the store keeps for the read side as records arrive (users, conversations, counts per hour
 * and day, messages, clicks, active days), read back through the read API: the same figures
 * whether the records came in one transaction or one by one, in order or not (an import of
 * history), on SQLite and on PostgreSQL.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { BOT, OTHER_BOT, appendEach, appendTogether, databases, ev, event, msg, withEndpoint, withStore } from './databases.js';
import type { NewRecord } from '../../src/store/store.js';

const DBS = databases();
const iso = (at: string) => new Date(at).toISOString();

describe.each(DBS)('what the store keeps on $name', ({ fresh }) => {
  it('a user\'s figures add up over records stored apart: messages and events, first and last activity, the latest name, platform and channel', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [
        msg({ user: 'ann', at: '2026-03-02T10:00:00Z', channel: 'webchat', name: 'Ann' }),
        msg({ user: 'ann', at: '2026-03-02T10:01:00Z', type: 'outgoing' }),
        ev('ann', 'purchase', '2026-03-02T10:02:00Z'),
      ]);
      expect((await get('/api/users')).users).toEqual([{
        userId: 'ann', name: 'Ann', bot: BOT, platform: 'twitter', channel: 'webchat',
        firstActivity: iso('2026-03-02T10:00:00Z'), lastActivity: iso('2026-03-02T10:02:00Z'), messages: 2, events: 1, conversations: 1,
      }]);
      // History arrives: an earlier message, on another platform and channel, changes when the user was first seen, not what they use now.
      await appendEach(store, [msg({ user: 'ann', at: '2026-03-01T09:00:00Z', platform: 'sms', channel: 'msteams' })]);
      expect((await get('/api/users')).users[0]).toMatchObject({
        name: 'Ann', platform: 'twitter', channel: 'webchat', firstActivity: iso('2026-03-01T09:00:00Z'), lastActivity: iso('2026-03-02T10:02:00Z'), messages: 3, events: 1,
      });
      // Later messages: the platform follows the latest; the channel the latest that has one; a new name replaces the old.
      await appendEach(store, [msg({ user: 'ann', at: '2026-03-03T08:00:00Z', platform: 'sms' })]);
      expect((await get('/api/users')).users[0]).toMatchObject({ name: 'Ann', platform: 'sms', channel: 'webchat', lastActivity: iso('2026-03-03T08:00:00Z'), messages: 4 });
      await appendEach(store, [msg({ user: 'ann', at: '2026-03-03T09:00:00Z', channel: 'msteams', name: 'Annie' })]);
      expect((await get('/api/users')).users[0]).toMatchObject({ name: 'Annie', platform: 'universal', channel: 'msteams', firstActivity: iso('2026-03-01T09:00:00Z'), messages: 5, events: 1 });
      // A user who never came on a channel has none.
      await appendEach(store, [msg({ user: 'bob', at: '2026-03-01T00:00:00Z' })]);
      expect((await get('/api/users')).users.find((u: { userId: string }) => u.userId === 'bob')).toMatchObject({ channel: null, platform: 'universal', messages: 1, events: 0 });
    });
  });

  it('a user\'s figures are the same when the same records arrive together, in any order', async () => {
    const records = [
      msg({ user: 'ann', at: '2026-03-03T08:00:00Z', platform: 'sms' }),
      msg({ user: 'ann', at: '2026-03-02T10:00:00Z', channel: 'webchat', name: 'Ann' }),
      ev('ann', 'purchase', '2026-03-02T10:02:00Z'),
      msg({ user: 'ann', at: '2026-03-01T09:00:00Z', platform: 'twitter', channel: 'msteams' }),
      msg({ user: 'ann', at: '2026-03-02T10:01:00Z', type: 'outgoing' }),
    ];
    await withEndpoint(await fresh(), async (store, get) => {
      await appendTogether(store, records);
      expect((await get('/api/users')).users).toEqual([{
        userId: 'ann', name: 'Ann', bot: BOT, platform: 'sms', channel: 'webchat',
        firstActivity: iso('2026-03-01T09:00:00Z'), lastActivity: iso('2026-03-03T08:00:00Z'), messages: 4, events: 1, conversations: 1,
      }]);
    });
  });

  it('a name given once is kept when later records carry none', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendTogether(store, [msg({ user: 'ann', at: '2026-03-02T10:00:00Z', name: 'Ann' }), msg({ user: 'ann', at: '2026-03-02T10:05:00Z' })]);
      await appendEach(store, [msg({ user: 'ann', at: '2026-03-02T11:00:00Z' })]);
      expect((await get('/api/users')).users[0]).toMatchObject({ name: 'Ann', messages: 3 });
      await appendTogether(store, [msg({ user: 'bob', at: '2026-03-02T10:00:00Z' }), msg({ user: 'bob', at: '2026-03-02T10:05:00Z', name: 'Bob' })]);
      expect((await get('/api/users')).users.find((u: { userId: string }) => u.userId === 'bob').name).toBe('Bob');
    });
  });

  it('a name comes from the latest entry that has one by when it happened, not by arrival, together or apart', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      // Together: the newer name arrives first.
      await appendTogether(store, [msg({ user: 'ann', at: '2026-03-02T12:00:00Z', name: 'Annie' }), msg({ user: 'ann', at: '2026-03-02T10:00:00Z', name: 'Ann' })]);
      // In batches of the views of their own: an older name stored later does not take over; a
      // newer one does; a name stored later for a user stored without one is taken, however old.
      await appendEach(store, [
        msg({ user: 'bob', at: '2026-03-02T12:00:00Z', name: 'Robert' }), msg({ user: 'cat', at: '2026-03-02T10:00:00Z', name: 'Cat' }), msg({ user: 'dan', at: '2026-03-02T12:00:00Z' }),
      ]);
      await get('/api/users');
      await appendEach(store, [
        msg({ user: 'bob', at: '2026-03-02T10:00:00Z', name: 'Bob' }), msg({ user: 'cat', at: '2026-03-02T12:00:00Z', name: 'Cathy' }), msg({ user: 'dan', at: '2026-03-02T10:00:00Z', name: 'Dan' }),
      ]);
      await get('/api/users');
      // A name of the same moment as the stored one, stored later, takes over (as for the channel).
      await appendEach(store, [msg({ user: 'cat', at: '2026-03-02T12:00:00Z', name: 'Catherine' })]);
      const names = Object.fromEntries((await get('/api/users')).users.map((u: { userId: string; name: string }) => [u.userId, u.name]));
      expect(names).toEqual({ ann: 'Annie', bob: 'Robert', cat: 'Catherine', dan: 'Dan' });
    });
  });

  it('a channel comes from the latest entry that has one, also when the latest has none, together or apart', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      // Together: the latest has no channel, an older one has.
      await appendTogether(store, [msg({ user: 'ann', at: '2026-03-02T12:00:00Z' }), msg({ user: 'ann', at: '2026-03-02T10:00:00Z', channel: 'webchat' })]);
      // Apart: first a message without a channel, then an older one with.
      await appendEach(store, [msg({ user: 'bob', at: '2026-03-02T12:00:00Z', conversation: 'cb' }), msg({ user: 'bob', at: '2026-03-02T10:00:00Z', channel: 'msteams', conversation: 'cb' })]);
      // Apart: a later message on another channel takes over.
      await appendEach(store, [msg({ user: 'cat', at: '2026-03-02T10:00:00Z', channel: 'webchat' }), msg({ user: 'cat', at: '2026-03-02T12:00:00Z', channel: 'msteams' })]);
      // Together: two channels, the later one wins whatever the order they arrive in.
      await appendTogether(store, [msg({ user: 'dan', at: '2026-03-02T12:00:00Z', channel: 'msteams' }), msg({ user: 'dan', at: '2026-03-02T10:00:00Z', channel: 'webchat' })]);
      await appendTogether(store, [msg({ user: 'eve', at: '2026-03-02T10:00:00Z', channel: 'webchat' }), msg({ user: 'eve', at: '2026-03-02T12:00:00Z', channel: 'msteams' })]);
      // In batches of the views of their own (each read waits for the views; appended one by one, the
      // records may still be built into the views together): an older message stored later does not
      // take over the channel, a later message without one keeps the channel stored, and an older
      // message with one gives it to a user or conversation stored without any.
      await appendEach(store, [
        msg({ user: 'fay', at: '2026-03-02T12:00:00Z', channel: 'msteams' }), msg({ user: 'gus', at: '2026-03-02T10:00:00Z', channel: 'webchat' }), msg({ user: 'hal', at: '2026-03-02T12:00:00Z' }),
      ]);
      await get('/api/users');
      await appendEach(store, [
        msg({ user: 'fay', at: '2026-03-02T10:00:00Z', channel: 'webchat' }), msg({ user: 'gus', at: '2026-03-02T12:00:00Z' }), msg({ user: 'hal', at: '2026-03-02T10:00:00Z', channel: 'webchat' }),
      ]);
      const users = Object.fromEntries((await get('/api/users')).users.map((u: { userId: string; channel: string }) => [u.userId, u.channel]));
      expect(users).toEqual({ ann: 'webchat', bob: 'msteams', cat: 'msteams', dan: 'msteams', eve: 'msteams', fay: 'msteams', gus: 'webchat', hal: 'webchat' });
      const conversations = Object.fromEntries((await get('/api/conversations')).conversations.map((c: { conversationId: string; channel: string }) => [c.conversationId, c.channel]));
      expect(conversations).toEqual({ 'c-ann': 'webchat', cb: 'msteams', 'c-cat': 'msteams', 'c-dan': 'msteams', 'c-eve': 'msteams', 'c-fay': 'msteams', 'c-gus': 'webchat', 'c-hal': 'webchat' });
    });
  });

  it('of two messages of the same moment, the one stored last gives the platform and channel, together or apart', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      const same = '2026-03-02T10:00:00Z';
      await appendEach(store, [msg({ user: 'ann', at: same, platform: 'sms', channel: 'webchat' }), msg({ user: 'ann', at: same, platform: 'twitter', channel: 'msteams' })]);
      await appendTogether(store, [msg({ user: 'bob', at: same, platform: 'sms', channel: 'webchat' }), msg({ user: 'bob', at: same, platform: 'twitter', channel: 'msteams' })]);
      const users = (await get('/api/users')).users.map((u: { userId: string; platform: string; channel: string }) => [u.userId, u.platform, u.channel]);
      expect(users).toEqual([['ann', 'twitter', 'msteams'], ['bob', 'twitter', 'msteams']]);
      const conversations = (await get('/api/conversations')).conversations.map((c: { conversationId: string; platform: string; channel: string }) => [c.conversationId, c.platform, c.channel]);
      expect(conversations).toEqual([['c-ann', 'twitter', 'msteams'], ['c-bob', 'twitter', 'msteams']]);
    });
  });

  it('a conversation\'s figures add up, and lists its users in the order they first spoke, together or apart', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendTogether(store, [
        msg({ user: 'bob', at: '2026-03-02T10:05:00Z', conversation: 'room', channel: 'msteams' }),
        msg({ user: 'ann', at: '2026-03-02T10:00:00Z', conversation: 'room', channel: 'msteams', platform: 'twitter' }),
        msg({ user: 'ann', at: '2026-03-02T10:10:00Z', conversation: 'room', type: 'outgoing', platform: 'sms' }),
        ev('bob', 'joined', '2026-03-02T10:06:00Z', {}, 'room'),
      ]);
      expect((await get('/api/conversations')).conversations).toEqual([{
        conversationId: 'room', bot: BOT, userIds: ['ann', 'bob'], platform: 'sms', channel: 'msteams',
        firstActivity: iso('2026-03-02T10:00:00Z'), lastActivity: iso('2026-03-02T10:10:00Z'), messages: 3, events: 1,
      }]);
      // Cat said something before both, imported later; Bob an earlier word too.
      await appendEach(store, [msg({ user: 'cat', at: '2026-03-02T09:00:00Z', conversation: 'room', channel: 'webchat' })]);
      await appendEach(store, [msg({ user: 'bob', at: '2026-03-02T09:30:00Z', conversation: 'room' })]);
      await appendEach(store, [msg({ user: 'bob', at: '2026-03-02T11:00:00Z', conversation: 'room', platform: 'twitter' })]);
      expect((await get('/api/conversations')).conversations).toEqual([{
        conversationId: 'room', bot: BOT, userIds: ['cat', 'bob', 'ann'], platform: 'twitter', channel: 'msteams',
        firstActivity: iso('2026-03-02T09:00:00Z'), lastActivity: iso('2026-03-02T11:00:00Z'), messages: 6, events: 1,
      }]);
      expect((await get('/api/users')).users.map((u: { userId: string; conversations: number }) => [u.userId, u.conversations])).toEqual([['bob', 1], ['ann', 1], ['cat', 1]]);
    });
  });

  it('counts per hour and day: records, messages by direction and intent, events by type and name, revenue by currency, per platform and channel', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      const records: NewRecord[] = [
        msg({ user: 'ann', at: '2026-03-02T10:00:00Z', intent: 'Order', channel: 'webchat' }),
        msg({ user: 'ann', at: '2026-03-02T10:01:00Z', type: 'outgoing', intent: 'Order', channel: 'webchat' }),
        msg({ user: 'bob', at: '2026-03-02T11:30:00Z', intent: 'NotHandled', platform: 'twitter' }),
        event({ type: 'revenueEvent', name: 'purchase', userId: 'ann', conversationId: 'c-ann', amount: 12.5, metadata: { currency: 'eur', timestamp: '2026-03-02T10:02:00Z' } }),
        event({ type: 'revenueEvent', name: 'purchase', userId: 'bob', conversationId: 'c-bob', amount: 3, metadata: { timestamp: '2026-03-03T10:02:00Z' } }),
        event({ type: 'customEvent', name: 'tip', userId: 'bob', conversationId: 'c-bob', amount: 100, metadata: { currency: 'usd', timestamp: '2026-03-03T10:03:00Z' } }),
      ];
      // Half together, half apart: the counts are summed either way.
      await appendTogether(store, records.slice(0, 3));
      await appendEach(store, records.slice(3));
      await appendEach(store, [msg({ user: 'ann', at: '2026-03-02T10:30:00Z', intent: 'Order', channel: 'webchat' })]);
      const summary = await get('/api/summary');
      expect(summary).toMatchObject({
        records: 7, messages: 4, events: 3, users: 2, conversations: 2,
        byType: { event: 3, incoming: 3, outgoing: 1 },
        byPlatform: { twitter: 4, universal: 3 },
        byIntent: { NotHandled: 1, Order: 3 },
        byEventType: { customEvent: 1, revenueEvent: 2 },
        byEventName: { purchase: 2, tip: 1 },
        byChannel: { webchat: 4 },
        // Amounts are never added across currencies: no total of EUR and an unknown currency.
        revenue: { total: null, count: 2, byCurrency: { EUR: 12.5, unknown: 3 } },
        firstAt: iso('2026-03-02T10:00:00Z'), lastAt: iso('2026-03-03T10:03:00Z'),
      });
      // The same from the hourly counts (a range that is not whole days).
      expect(await get('/api/summary?from=2026-03-02T10:00:00Z&to=2026-03-02T11:00:00Z')).toMatchObject({ records: 4, messages: 3, events: 1, byIntent: { Order: 3 }, revenue: { total: 12.5, count: 1 } });
      expect(await get('/api/summary?from=2026-03-02T11:00:00Z&to=2026-03-02T12:00:00Z')).toMatchObject({ records: 1, messages: 1, events: 0, byIntent: { NotHandled: 1 } });
      const hours = (await get('/api/timeseries?bucket=hour&from=2026-03-02T10:00:00Z&to=2026-03-02T12:00:00Z')).points;
      expect(hours).toEqual([
        { start: iso('2026-03-02T10:00:00Z'), incoming: 2, outgoing: 1, events: 1, notHandled: 0, revenue: 12.5 },
        { start: iso('2026-03-02T11:00:00Z'), incoming: 1, outgoing: 0, events: 0, notHandled: 1, revenue: 0 },
      ]);
      // Over a range with revenue in two currencies (EUR, unknown), no point adds them up.
      const days = (await get('/api/timeseries?bucket=day')).points;
      expect(days).toEqual([
        { start: iso('2026-03-02T00:00:00Z'), incoming: 3, outgoing: 1, events: 1, notHandled: 1, revenue: null },
        { start: iso('2026-03-03T00:00:00Z'), incoming: 0, outgoing: 0, events: 2, notHandled: 0, revenue: null },
      ]);
      // Whole hours holding both currencies: read from the counts, no sum either.
      expect((await get('/api/timeseries?bucket=hour&from=2026-03-02T10:00:00Z&to=2026-03-03T11:00:00Z')).points.filter((p: { revenue: number | null }) => p.revenue !== null)).toEqual([]);
      // A range whose start is not on a whole hour: only the events within it are asked (the unknown
      // currency's 3 on 2026-03-03; EUR's 12.5 at 10:02 is before 10:30), so its revenue is shown.
      const late = (await get('/api/timeseries?bucket=hour&from=2026-03-02T10:30:00Z&to=2026-03-03T11:00:00Z')).points;
      expect(late.find((p: { start: string }) => p.start === iso('2026-03-03T10:00:00Z'))).toMatchObject({ events: 2, revenue: 3 });
      expect(late.every((p: { revenue: number | null }) => typeof p.revenue === 'number')).toBe(true);
    });
  });

  it('sums revenue of one currency on one day over records stored together and apart', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      const purchase = (user: string, amount: number, minute: number) => event({ type: 'revenueEvent', name: 'purchase', userId: user, conversationId: `c-${user}`, amount, metadata: { currency: 'EUR', timestamp: `2026-03-02T10:${String(minute).padStart(2, '0')}:00Z` } });
      await appendTogether(store, [purchase('ann', 10, 0), purchase('bob', 2.5, 1)]);
      await appendEach(store, [purchase('cat', 4, 2), purchase('ann', 0.25, 3)]);
      expect((await get('/api/summary')).revenue).toEqual({ total: 16.75, count: 4, byCurrency: { EUR: 16.75 } });
      expect((await get('/api/timeseries?bucket=hour&from=2026-03-02T10:00:00Z&to=2026-03-02T11:00:00Z')).points[0]).toMatchObject({ events: 4, revenue: 16.75 });
    });
  });

  it('counts a record that holds no message (a webhook without messaging items) as a record, on the day and hour it was received', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      const webhook: NewRecord = { platform: 'facebook', platformKind: 'messenger', v: '11.1.0-rest', type: 'incoming', bot: BOT, body: { object: 'page', entry: [{ id: 'p', time: 1 }] } };
      const before = Date.now();
      await appendEach(store, [webhook]);
      await appendTogether(store, [webhook, { ...webhook, platform: null, platformKind: null, v: null, type: 'generic', body: 'not an object' }]);
      const hour = new Date(Math.floor(before / 3_600_000) * 3_600_000);
      const summary = await get('/api/summary');
      expect(summary).toMatchObject({ records: 3, messages: 0, events: 0, users: 0, byType: { incoming: 2, generic: 1 }, byPlatform: { facebook: 2, '(none)': 1 }, firstAt: null });
      // The hour it was received (unless the clock turned the hour meanwhile), by the hourly counts.
      const thisHour = await get(`/api/summary?from=${hour.toISOString()}&to=${new Date(hour.getTime() + 2 * 3_600_000).toISOString()}`);
      expect(thisHour.records).toBe(3);
      expect((await get(`/api/summary?from=${new Date(hour.getTime() - 3_600_000).toISOString()}&to=${hour.toISOString()}`)).records).toBe(0);
      expect((await store.records()).map((r) => [r.occurredAt === r.receivedAt, r.platform])).toEqual([[true, 'facebook'], [true, 'facebook'], [true, null]]);
      // A scripted record (no platform) with a message is counted under (none).
      await appendEach(store, [{ platform: null, platformKind: null, v: null, type: 'generic', bot: BOT, body: { text: 'scripted', userId: 'script' } }]);
      expect((await get('/api/summary')).byPlatform).toEqual({ facebook: 2, '(none)': 2 });
      expect((await get('/api/users')).users[0]).toMatchObject({ userId: 'script', platform: null });
    });
  });

  it('counts one record however many messages it holds (a webhook with several messaging items)', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      const item = (user: string, at: string) => ({ sender: { id: user }, recipient: { id: 'page' }, timestamp: Date.parse(at), message: { mid: `m-${user}`, text: `hi from ${user}` } });
      await appendEach(store, [{ platform: 'facebook', platformKind: 'messenger', v: '11.1.0-rest', type: 'incoming', bot: BOT, body: { object: 'page', entry: [{ id: 'p', messaging: [item('a', '2026-03-02T10:00:00Z'), item('b', '2026-03-02T10:00:30Z')] }] } }]);
      expect(await get('/api/summary')).toMatchObject({ records: 1, messages: 2, users: 2, conversations: 2 });
      const [stored] = await store.records();
      expect(stored.occurredAt).toBe(iso('2026-03-02T10:00:00Z'));
    });
  });

  it('averages the confidence of each intent over records stored together and apart, and the share of AI-generated replies', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendTogether(store, [
        msg({ user: 'ann', at: '2026-03-02T10:00:00Z', intent: 'Order', score: 0.9 }),
        msg({ user: 'bob', at: '2026-03-02T10:00:00Z', intent: 'Order', score: 0.7 }),
        msg({ user: 'ann', at: '2026-03-02T10:01:00Z', type: 'outgoing', ai: true }),
        msg({ user: 'bob', at: '2026-03-02T10:01:00Z', type: 'outgoing', ai: true }),
      ]);
      await appendEach(store, [
        msg({ user: 'cat', at: '2026-03-02T10:00:00Z', intent: 'Order', score: 0.2 }),
        msg({ user: 'cat', at: '2026-03-02T10:00:10Z', intent: 'Order' }),
        msg({ user: 'cat', at: '2026-03-02T10:01:00Z', type: 'outgoing', ai: true }),
        msg({ user: 'cat', at: '2026-03-02T10:02:00Z', type: 'outgoing' }),
      ]);
      expect((await get('/api/intents')).intents).toEqual([{ name: 'Order', incoming: 4, outgoing: 0, confidence: 0.6 }]);
      expect((await get('/api/analytics/feedback')).ai).toEqual({ replies: 4, aiGenerated: 3, share: 0.75 });
    });
  });

  it('ranks what users said over all time and per day, whether counted together or apart, by the text first written', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendTogether(store, [
        msg({ user: 'ann', at: '2026-03-02T10:00:00Z', text: 'Hi!', intent: 'Greet' }),
        msg({ user: 'bob', at: '2026-03-02T10:00:00Z', text: 'hi', intent: 'Greet' }),
        msg({ user: 'bob', at: '2026-03-02T10:01:00Z', text: 'hi', type: 'outgoing' }),
        msg({ user: 'bob', at: '2026-03-02T10:02:00Z', text: 'Pizza?' }),
        ev('bob', 'hi', '2026-03-02T10:03:00Z'),
        msg({ user: 'bob', at: '2026-03-02T10:04:00Z', text: '!!!' }),
      ]);
      await appendEach(store, [msg({ user: 'cat', at: '2026-03-03T10:00:00Z', text: 'HI', intent: 'Greet' }), msg({ user: 'cat', at: '2026-03-03T10:00:00Z', text: 'pizza' })]);
      expect(await get('/api/analytics/messages')).toEqual({
        total: 5,
        messages: [
          { text: 'Hi!', key: 'hi', count: 3, share: 0.6, intent: 'Greet' },
          { text: 'Pizza?', key: 'pizza', count: 2, share: 0.4, intent: null },
        ],
      });
      expect(await get('/api/analytics/messages?from=2026-03-02&to=2026-03-03')).toEqual({
        total: 3,
        messages: [
          { text: 'Hi!', key: 'hi', count: 2, share: 0.6667, intent: 'Greet' },
          { text: 'Pizza?', key: 'pizza', count: 1, share: 0.3333, intent: null },
        ],
      });
    });
  });

  it('keeps the first 500 characters of a message as its text, and a clicked button\'s label to 200', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      const long = `${'word '.repeat(150)}end`;
      await appendEach(store, [msg({ user: 'ann', at: '2026-03-02T10:00:00Z', text: long, button: 'b1' })]);
      const [top] = (await get('/api/analytics/messages')).messages;
      expect(top.text).toBe(long.slice(0, 500));
      expect(top.key).toBe(long.slice(0, 200));
      expect((await get('/api/analytics/buttons')).buttons).toEqual([{ button: 'b1', label: long.slice(0, 200), clicks: 1 }]);
    });
  });

  it('counts clicks on each button per day, together or apart', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendTogether(store, [
        msg({ user: 'ann', at: '2026-03-02T10:00:00Z', text: 'Order', button: 'order' }),
        msg({ user: 'bob', at: '2026-03-02T10:00:00Z', text: 'Order', button: 'order' }),
        msg({ user: 'bob', at: '2026-03-02T10:01:00Z', text: 'Menu', button: 'menu' }),
      ]);
      await appendEach(store, [msg({ user: 'cat', at: '2026-03-02T11:00:00Z', text: 'Order', button: 'order' }), msg({ user: 'cat', at: '2026-03-03T11:00:00Z', text: 'Order', button: 'order' })]);
      expect(await get('/api/analytics/buttons')).toEqual({ total: 5, buttons: [{ button: 'order', label: 'Order', clicks: 4 }, { button: 'menu', label: 'Menu', clicks: 1 }] });
      expect((await get('/api/analytics/buttons?from=2026-03-02&to=2026-03-03')).total).toBe(4);
    });
  });

  it('keeps each user\'s messages and events per day, platform and channel, together or apart', async () => {
    await withStore(await fresh(), async (store) => {
      await appendTogether(store, [
        msg({ user: 'ann', at: '2026-03-02T10:00:00Z', channel: 'webchat' }),
        msg({ user: 'ann', at: '2026-03-02T10:01:00Z', type: 'outgoing', channel: 'webchat' }),
        ev('ann', 'purchase', '2026-03-02T10:02:00Z'),
        msg({ user: 'ann', at: '2026-03-02T23:59:59Z', platform: 'twitter', channel: 'webchat' }),
      ]);
      await appendEach(store, [msg({ user: 'ann', at: '2026-03-02T12:00:00Z', channel: 'webchat' }), ev('ann', 'purchase', '2026-03-03T00:00:00Z'), msg({ user: '', at: '2026-03-02T12:00:00Z' })]);
      const rows = await store.db.selectFrom('user_days').select(['user_id', 'day', 'platform', 'channel', 'messages', 'events']).orderBy('day').orderBy('platform').execute();
      expect(rows.map((r) => ({ ...r, day: new Date(Number(r.day)).toISOString(), messages: Number(r.messages), events: Number(r.events) }))).toEqual([
        { user_id: 'ann', day: iso('2026-03-02'), platform: 'twitter', channel: 'webchat', messages: 1, events: 1 },
        { user_id: 'ann', day: iso('2026-03-02'), platform: 'universal', channel: 'webchat', messages: 3, events: 0 },
        { user_id: 'ann', day: iso('2026-03-03'), platform: 'twitter', channel: 'webchat', messages: 0, events: 1 },
      ]);
    });
  });

  it('counts a user active on a day, in a week and in a month once, however often they came', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendTogether(store, [msg({ user: 'ann', at: '2026-03-02T10:00:00Z' }), msg({ user: 'ann', at: '2026-03-02T11:00:00Z' }), msg({ user: 'bob', at: '2026-03-04T11:00:00Z' })]);
      await appendEach(store, [msg({ user: 'ann', at: '2026-03-03T10:00:00Z' }), msg({ user: 'ann', at: '2026-03-08T23:00:00Z' }), msg({ user: 'ann', at: '2026-03-09T10:00:00Z' }), msg({ user: 'bob', at: '2026-03-04T12:00:00Z' })]);
      expect((await get('/api/analytics/active-users?interval=week&from=2026-03-02&to=2026-03-16')).points).toEqual([
        { start: iso('2026-03-02'), active: 2, new: 2, returning: 0 },
        { start: iso('2026-03-09'), active: 1, new: 0, returning: 1 },
      ]);
      expect((await get('/api/analytics/active-users?interval=day&from=2026-03-02&to=2026-03-05')).points.map((p: { active: number }) => p.active)).toEqual([1, 1, 1]);
      expect((await get('/api/analytics/retention?from=2026-03-02&to=2026-03-09')).cohorts[0]).toMatchObject({ week: iso('2026-03-02'), users: 2 });
    });
  });

  it('keeps each bot\'s figures apart', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendTogether(store, [
        msg({ user: 'ann', at: '2026-03-02T10:00:00Z', intent: 'Greet', button: 'x' }),
        msg({ user: 'ann', at: '2026-03-02T11:00:00Z', intent: 'Greet', button: 'x', bot: OTHER_BOT }),
      ]);
      await appendEach(store, [msg({ user: 'ann', at: '2026-03-02T12:00:00Z', bot: OTHER_BOT })]);
      const users = (await get('/api/users')).users;
      expect(users.map((u: { bot: string; messages: number }) => [u.bot, u.messages])).toEqual([[OTHER_BOT, 2], [BOT, 1]]);
      expect((await get(`/api/summary?bot=${OTHER_BOT}`)).records).toBe(2);
      expect((await get(`/api/analytics/messages?bot=${BOT}`)).total).toBe(1);
      expect((await get(`/api/analytics/buttons?bot=${OTHER_BOT}`)).total).toBe(1);
      expect((await get(`/api/conversations?bot=${OTHER_BOT}`)).conversations[0]).toMatchObject({ userIds: ['ann'], messages: 2 });
    });
  });

  it('writes a batch bigger than one statement holds', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      const records = Array.from({ length: 450 }, (_, i) => msg({ user: `u${i}`, at: new Date(Date.parse('2026-03-02T00:00:00Z') + i * 60_000).toISOString(), text: `m${i}`, button: `b${i}` }));
      const stored = await appendTogether(store, records);
      expect(new Set(stored.map((r) => r.seq)).size).toBe(450);
      expect(await get('/api/summary')).toMatchObject({ records: 450, messages: 450, users: 450, conversations: 450 });
      expect((await get('/api/analytics/buttons?limit=1000')).total).toBe(450);
      expect((await get('/api/analytics/sessions')).sessions).toBe(450);
      const { n } = await store.db.selectFrom('entries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect(Number(n)).toBe(450);
      const counted = await sql<{ n: number }>`select count(*) as n from user_weeks`.execute(store.db);
      expect(Number(counted.rows[0].n)).toBe(450);
    });
  });
});
