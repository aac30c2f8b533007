/**
 * Sessions made in any order of arrival (store/sessions.ts), read from the sessions and per-day
 * tables on SQLite: a late entry joins the session its time falls in, joins two, moves a start
 * back, or is a session of its own; the per-day tables follow, row for row. (sessions.test.ts
 * runs the same rules through the views on both databases.)
 */
import { describe, expect, it } from 'vitest';
import { appendEach, appendTogether, databases, ev, msg, withStore } from './databases.js';
import type { NewRecord, RecordStore } from '../../src/store/store.js';
import { deriveSessions, lengthBucket, stepOf, type SessionEntry } from '../../src/store/sessions.js';

const [SQLITE] = databases();
const T = '2026-03-02T23:00:00.000Z';
const DAY = Date.parse('2026-03-02T00:00:00.000Z');
const NEXT_DAY = DAY + 86_400_000;
const at = (minutes: number, ms = 0) => new Date(Date.parse(T) + minutes * 60_000 + ms).toISOString();
const m = (user: string, minutes: number, intent?: string, extra: Partial<Parameters<typeof msg>[0]> = {}) => msg({ user, at: at(minutes), ...(intent ? { intent } : {}), ...extra });

/** Appends `records` (each in a transaction of its own, or `together` in one) and waits until the views hold them, so that what comes next is a batch of its own. */
async function send(store: RecordStore, records: NewRecord[], together = false): Promise<void> {
  await (together ? appendTogether(store, records) : appendEach(store, records));
  await store.db.selectFrom('entries').select('seq').limit(1).execute();
}

/** Each session: user, conversation, start and last (minutes from T), messages, events, path, id's seq. */
async function sessions(store: RecordStore) {
  const rows = await store.db.selectFrom('sessions').selectAll().orderBy('user_id').orderBy('conversation_id').orderBy('start_at').execute();
  return rows.map((s) => [s.user_id, s.conversation_id, (Number(s.start_at) - Date.parse(T)) / 60_000, (Number(s.last_at) - Date.parse(T)) / 60_000, Number(s.messages), Number(s.events), JSON.parse(s.path), Number(s.steps), s.channel]);
}

/** The per-day tables, rows that count something only, as [day, sessions, messages, events, length ms], [day, bucket, sessions], [day, path, sessions]. */
async function tables(store: RecordStore) {
  const days = await store.db.selectFrom('session_days').selectAll().where('sessions', '<>', 0).orderBy('day').orderBy('channel').execute();
  const lengths = await store.db.selectFrom('session_lengths').selectAll().where('sessions', '<>', 0).orderBy('day').orderBy('bucket').execute();
  const paths = await store.db.selectFrom('session_paths').selectAll().where('sessions', '<>', 0).orderBy('day').orderBy('path').execute();
  const zero = async (table: 'session_days' | 'session_lengths' | 'session_paths') => (await store.db.selectFrom(table).select('sessions').where('sessions', '<', 0).execute()).length;
  expect([await zero('session_days'), await zero('session_lengths'), await zero('session_paths')]).toEqual([0, 0, 0]);
  return {
    days: days.map((d) => [Number(d.day), d.channel, Number(d.sessions), Number(d.messages), Number(d.events), Number(d.length_ms)]),
    lengths: lengths.map((l) => [Number(l.day), Number(l.bucket), Number(l.sessions)]),
    paths: paths.map((p) => [Number(p.day), p.path, Number(p.sessions)]),
  };
}

/** The latest session of each user and conversation, as [user, conversation, start]. */
async function heads(store: RecordStore) {
  const rows = await store.db.selectFrom('session_heads as h').innerJoin('sessions as s', 's.id', 'h.session_id').select(['h.user_id', 'h.conversation_id', 's.start_at']).orderBy('h.user_id').orderBy('h.conversation_id').execute();
  return rows.map((r) => [r.user_id, r.conversation_id, (Number(r.start_at) - Date.parse(T)) / 60_000]);
}

describe('sessions in any order of arrival, on SQLite', () => {
  it('in order: within 30 minutes extends, 30 minutes and a millisecond later starts anew; the tables count each', async () => {
    await withStore(await SQLITE.fresh(), async (store) => {
      await send(store, [m('ann', 0, 'A'), m('ann', 30, 'B'), msg({ user: 'ann', at: at(60, 1), intent: 'C' }), ev('ann', 'buy', at(61))]);
      expect(await sessions(store)).toEqual([['ann', 'c-ann', 0, 30, 2, 0, ['A', 'B'], 2, ''], ['ann', 'c-ann', 60 + 1 / 60_000, 61, 1, 1, ['C', 'event:buy'], 2, '']]);
      expect(await tables(store)).toEqual({
        days: [[DAY, '', 1, 2, 0, 1_800_000], [NEXT_DAY, '', 1, 1, 1, 59_999]],
        lengths: [[DAY, 1800, 1], [NEXT_DAY, 50, 1]],
        paths: [[DAY, '["A","B"]', 1], [NEXT_DAY, '["C","event:buy"]', 1]],
      });
      expect(await heads(store)).toEqual([['ann', 'c-ann', 60 + 1 / 60_000]]);
    });
  });

  it('a late entry joins the session its time falls in: the path in time order, the tables moved from the old path to the new', async () => {
    await withStore(await SQLITE.fresh(), async (store) => {
      await send(store, [m('ann', 0, 'A'), m('ann', 20, 'C')]);
      await send(store, [m('ann', 10, 'B')]);
      expect(await sessions(store)).toEqual([['ann', 'c-ann', 0, 20, 3, 0, ['A', 'B', 'C'], 3, '']]);
      expect(await tables(store)).toEqual({ days: [[DAY, '', 1, 3, 0, 1_200_000]], lengths: [[DAY, 1200, 1]], paths: [[DAY, '["A","B","C"]', 1]] });
    });
  });

  it('a late entry before a session\'s start (within 30 minutes) moves it back, to the day before; more than 30 minutes before it is its own', async () => {
    await withStore(await SQLITE.fresh(), async (store) => {
      await send(store, [m('ann', 70, 'B'), m('ann', 75, 'C')]);
      expect((await tables(store)).days).toEqual([[NEXT_DAY, '', 1, 2, 0, 300_000]]);
      await send(store, [m('ann', 50, 'A')]);
      expect(await sessions(store)).toEqual([['ann', 'c-ann', 50, 75, 3, 0, ['A', 'B', 'C'], 3, '']]);
      expect(await tables(store)).toEqual({ days: [[DAY, '', 1, 3, 0, 1_500_000]], lengths: [[DAY, 1500, 1]], paths: [[DAY, '["A","B","C"]', 1]] });
      await send(store, [msg({ user: 'ann', at: at(20, -1), intent: 'Z' })]);
      expect((await sessions(store)).map((r) => r.slice(2, 5))).toEqual([[20 - 1 / 60_000, 20 - 1 / 60_000, 1], [50, 75, 3]]);
      expect(await heads(store)).toEqual([['ann', 'c-ann', 50]]);
    });
  });

  it('a late entry within 30 minutes of two sessions joins them; one at exactly 30 minutes of each too', async () => {
    await withStore(await SQLITE.fresh(), async (store) => {
      await send(store, [m('ann', 0, 'A'), m('ann', 60, 'C'), m('ann', 65, 'D')]);
      expect((await tables(store)).days).toEqual([[DAY, '', 1, 1, 0, 0], [NEXT_DAY, '', 1, 2, 0, 300_000]]);
      await send(store, [m('ann', 30, 'B')]);
      expect(await sessions(store)).toEqual([['ann', 'c-ann', 0, 65, 4, 0, ['A', 'B', 'C', 'D'], 4, '']]);
      expect(await tables(store)).toEqual({ days: [[DAY, '', 1, 4, 0, 3_900_000]], lengths: [[DAY, 3600, 1]], paths: [[DAY, '["A","B","C","D"]', 1]] });
      expect(await heads(store)).toEqual([['ann', 'c-ann', 0]]);
      await send(store, [m('ann', 70, 'E')]);
      expect((await sessions(store)).map((r) => r.slice(2, 5))).toEqual([[0, 70, 5]]);
    });
  });

  it('a batch of late entries that reaches past a later session joins it too, and the sessions after it within 30 minutes', async () => {
    await withStore(await SQLITE.fresh(), async (store) => {
      await send(store, [m('ann', 0, 'A'), m('ann', 45, 'C'), m('ann', 100, 'E'), m('ann', 200, 'G')]);
      await send(store, [m('ann', 20, 'B'), m('ann', 72, 'D')], true);
      expect((await sessions(store)).map((r) => [r[2], r[3], r[4], r[6]])).toEqual([[0, 100, 5, ['A', 'B', 'C', 'D', 'E']], [200, 200, 1, ['G']]]);
      expect(await heads(store)).toEqual([['ann', 'c-ann', 200]]);
      expect((await tables(store)).days).toEqual([[DAY, '', 1, 5, 0, 6_000_000], [NEXT_DAY, '', 1, 1, 0, 0]]);
    });
  });

  it('late entries join sessions one after another, one at a time or several in one batch, up to the latest', async () => {
    await withStore(await SQLITE.fresh(), async (store) => {
      await send(store, [m('ann', 0, 'A'), m('ann', 40, 'B'), m('ann', 60, 'C'), m('ann', 85, 'D')]);
      expect((await sessions(store)).map((r) => [r[2], r[3]])).toEqual([[0, 0], [40, 85]]);
      await send(store, [m('ann', 120, 'F'), m('ann', 160, 'G')]);
      await send(store, [m('ann', 20, 'Late')]);
      expect((await sessions(store)).map((r) => [r[2], r[3], r[6]])).toEqual([[0, 85, ['A', 'Late', 'B', 'C', 'D']], [120, 120, ['F']], [160, 160, ['G']]]);
      await send(store, [m('ann', 100, 'E'), m('ann', 140, 'Late2')], true);
      expect((await sessions(store)).map((r) => [r[2], r[3], r[4]])).toEqual([[0, 160, 9]]);
      expect(await heads(store)).toEqual([['ann', 'c-ann', 0]]);
    });
  });

  it('finds the sessions it touches among more than are read at once; the others keep their rows', async () => {
    await withStore(await SQLITE.fresh(), async (store) => {
      await send(store, Array.from({ length: 45 }, (_, i) => m('ann', i * 60, `H${i}`)), true);
      await send(store, [m('ann', 90, 'Mid'), m('ann', 30 * 60 + 30, 'Late')]);
      const rows = await sessions(store);
      expect(rows).toHaveLength(43);
      expect(rows.filter((r) => r[4] !== 1).map((r) => [r[2], r[3], r[6]])).toEqual([[60, 120, ['H1', 'Mid', 'H2']], [1800, 1860, ['H30', 'Late', 'H31']]]);
    });
  });

  it('a batch whose late entries span many sessions reads them all, page after page, and derives them again unchanged but for the two joined', async () => {
    // Messenger webhooks: the items of one record are added to the views in one batch, whatever the pace.
    const item = (minutes: number, intent: string) => ({ sender: { id: 'psid' }, recipient: { id: 'page' }, timestamp: Date.parse(at(minutes)), message: { text: intent }, intent: { name: intent, inputs: [] } });
    const webhook = (items: ReturnType<typeof item>[]): NewRecord => ({ platform: 'facebook', platformKind: 'messenger', v: '11.1.0-rest', type: 'incoming', bot: 'abcdefabcdef', body: { object: 'page', entry: [{ id: 'page', messaging: items }] } });
    await withStore(await SQLITE.fresh(), async (store) => {
      await send(store, [webhook(Array.from({ length: 45 }, (_, i) => item(i * 60, `H${i}`)))]);
      const before = await tables(store);
      // One batch: its window runs from minute 90 to 1830, over 30 stored sessions (several statements' worth).
      await send(store, [webhook([item(90, 'Mid'), item(30 * 60 + 30, 'Late')])]);
      const rows = await sessions(store);
      expect(rows).toHaveLength(43);
      expect(rows.filter((r) => r[4] !== 1).map((r) => [r[2], r[3], r[6]])).toEqual([[60, 120, ['H1', 'Mid', 'H2']], [1800, 1860, ['H30', 'Late', 'H31']]]);
      expect(rows.filter((r) => r[4] === 1).map((r) => r[2])).toEqual([0, ...Array.from({ length: 27 }, (_, i) => (i + 3) * 60), ...Array.from({ length: 13 }, (_, i) => (i + 32) * 60)]);
      const after = await tables(store);
      // Two sessions fewer, two longer; the rest as before.
      expect(after.days.reduce((sum, d) => sum + Number(d[2]), 0)).toBe(before.days.reduce((sum, d) => sum + Number(d[2]), 0) - 2);
      expect((await heads(store)).map((h) => h[2])).toEqual([44 * 60]);
    });
  });

  it('a batch of records without a user makes no session, and its records are still counted', async () => {
    await withStore(await SQLITE.fresh(), async (store) => {
      await send(store, [m('ann', 0, 'A')]);
      await send(store, [m('', 5, 'NoUser'), m('', 6, 'NoUserEither')], true);
      expect((await sessions(store)).map((r) => [r[0], r[2]])).toEqual([['ann', 0]]);
      const counted = await store.db.selectFrom('counts').select((eb) => eb.fn.sum<number>('records').as('n')).where('width', '=', 'd').executeTakeFirstOrThrow();
      expect(Number(counted.n)).toBe(3);
      expect(await tables(store)).toEqual({ days: [[DAY, '', 1, 1, 0, 0]], lengths: [[DAY, 0, 1]], paths: [[DAY, '["A"]', 1]] });
    });
  });

  it('keeps users, conversations and bots apart, and leaves entries without a user or conversation out', async () => {
    await withStore(await SQLITE.fresh(), async (store) => {
      await send(store, [m('ann', 0, 'A'), m('bob', 10, 'B'), m('ann', 20, 'X', { conversation: 'two' }), m('', 5)]);
      await send(store, [m('ann', 10, 'Late'), m('bob', 0, 'Early'), m('ann', 15, 'Y', { conversation: 'two' })]);
      expect((await sessions(store)).map((r) => [r[0], r[1], r[2], r[3], r[6]])).toEqual([
        ['ann', 'c-ann', 0, 10, ['A', 'Late']], ['ann', 'two', 15, 20, ['Y', 'X']], ['bob', 'c-bob', 0, 10, ['Early', 'B']],
      ]);
      expect(await heads(store)).toEqual([['ann', 'c-ann', 0], ['ann', 'two', 15], ['bob', 'c-bob', 0]]);
    });
  });

  it('any order of arrival, one at a time or together, makes the sessions and tables of the order things happened', async () => {
    const records: NewRecord[] = [];
    // Events carry no channel, and one that arrives before every message of its conversation gets none (a limit the README
    // states): here none is the first entry of its session, so that the sessions' channels do not depend on it.
    for (const [user, start, count, gap] of [['ann', 0, 6, 9], ['ann', 90, 3, 29], ['bob', 10, 4, 29], ['cat', 40, 5, 12], ['dan', 0, 3, 31]] as const) {
      for (let i = 0; i < count; i++) records.push(i === 2 && user !== 'dan' ? ev(user, `e${i}`, at(start + i * gap)) : m(user, start + i * gap, `S${i % 3}`, { channel: 'webchat' }));
    }
    const orders: [string, NewRecord[][]][] = [['in order', records.map((r) => [r])], ['newest first', [...records].reverse().map((r) => [r])]];
    for (const seed of [3, 5]) {
      let state = seed;
      const order = [...records];
      for (let i = order.length - 1; i > 0; i--) {
        state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
        const j = state % (i + 1);
        [order[i], order[j]] = [order[j], order[i]];
      }
      orders.push([`seed ${seed}`, order.map((r) => [r])], [`seed ${seed} by threes`, Array.from({ length: Math.ceil(order.length / 3) }, (_, k) => order.slice(k * 3, k * 3 + 3))]);
    }
    const results: unknown[] = [];
    for (const [, batches] of orders) {
      await withStore(await SQLITE.fresh(), async (store) => {
        for (const batch of batches) await send(store, batch, true);
        results.push({ sessions: (await sessions(store)).map((r) => r.slice(0, 8)), tables: await tables(store), heads: await heads(store) });
      });
    }
    for (let i = 1; i < results.length; i++) expect(results[i], orders[i][0]).toEqual(results[0]);
    expect((results[0] as { sessions: unknown[] }).sessions).toHaveLength(7);
  });
});

describe('the steps, paths and lengths of sessions', () => {
  const entry = (minute: number, seq: number, extra: Partial<SessionEntry> = {}): SessionEntry => ({
    seq, idx: 0, bot: 'b', user_id: 'u', conversation_id: 'c', platform: 'p', channel: 'ch', occurred_at: minute * 60_000, direction: 'incoming', intent: null, event_name: null, ...extra,
  });

  it('a step is an incoming message\'s intent, or an event other than a rating; nothing else', () => {
    expect(stepOf({ direction: 'incoming', intent: 'Greet', event_name: null })).toBe('Greet');
    expect(stepOf({ direction: 'incoming', intent: null, event_name: 'x' })).toBeUndefined();
    expect(stepOf({ direction: 'outgoing', intent: 'Reply', event_name: null })).toBeUndefined();
    expect(stepOf({ direction: 'event', intent: 'Greet', event_name: 'purchase' })).toBe('event:purchase');
    expect(stepOf({ direction: 'event', intent: null, event_name: 'feedback' })).toBeUndefined();
    expect(stepOf({ direction: 'event', intent: null, event_name: '' })).toBeUndefined();
    expect(stepOf({ direction: 'event', intent: null, event_name: null })).toBeUndefined();
    expect(stepOf({ direction: 'outgoing', intent: null, event_name: 'purchase' })).toBeUndefined();
  });

  it('lengths go in buckets of 10 s under 10 minutes, of a minute under an hour, of 10 minutes under 4 hours, then one', () => {
    const at = (seconds: number) => lengthBucket(seconds * 1000);
    expect([at(-5), at(0), at(9.999), at(10), at(599), at(600), at(659), at(660), at(3599), at(3600), at(4199), at(4200), at(14_399), at(14_400), at(99_999)])
      .toEqual([0, 0, 0, 10, 590, 600, 600, 660, 3540, 3600, 3600, 4200, 13_800, 14_400, 14_400]);
  });

  it('a path keeps 8 steps at most, the same step twice in a row once, and counts messages and events apart', () => {
    const intents = ['A', 'A', 'B', 'A', 'C', 'D', 'E', 'F', 'G', 'H', 'I'];
    const [session] = deriveSessions([
      ...intents.map((intent, i) => entry(i, i + 1, { intent })),
      entry(20, 50, { direction: 'event', event_name: 'feedback' }), entry(21, 51, { direction: 'outgoing', intent: 'Reply' }),
    ]);
    expect(session.pathSteps).toEqual(['A', 'B', 'A', 'C', 'D', 'E', 'F', 'G']);
    expect([session.messages, session.events, session.id, session.path, session.steps]).toEqual([12, 1, '1:0', '[]', 0]);
  });
});
