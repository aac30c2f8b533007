/**
 * Sessions as the store keeps them while records arrive (store/sessions.ts), read through the
 * sessions and paths views: a session is one user's stretch in one conversation with no gap over
 * 30 minutes, on SQLite and on PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { appendEach, appendTogether, databases, ev, msg, withEndpoint, withStore } from './databases.js';
import type { NewRecord, RecordStore } from '../../src/store/store.js';
import { deriveSessions, sessionRows, type SessionEntry } from '../../src/store/sessions.js';
import { openStore } from '../../src/store/open.js';

const DBS = databases();
const iso = (at: string) => new Date(at).toISOString();
const at = (base: string, minutes: number, ms = 0) => new Date(Date.parse(base) + minutes * 60_000 + ms).toISOString();
const T = '2026-03-02T10:00:00.000Z';

/** Each stored session: user, conversation, start, last, messages, events, path. */
async function sessionsOf(store: RecordStore) {
  const rows = await store.db.selectFrom('sessions').selectAll().orderBy('start_at').orderBy('user_id').execute();
  return rows.map((s) => ({
    user: s.user_id, conversation: s.conversation_id, start: new Date(Number(s.start_at)).toISOString(), last: new Date(Number(s.last_at)).toISOString(),
    messages: Number(s.messages), events: Number(s.events), path: JSON.parse(s.path) as string[], steps: Number(s.steps), channel: s.channel, platform: s.platform,
  }));
}

describe.each(DBS)('sessions on $name', ({ fresh }) => {
  it('a session continues within 30 minutes and a new one starts after', async () => {
    for (const write of [appendEach, appendTogether]) {
      await withEndpoint(await fresh(), async (store, get) => {
        await write(store, [
          msg({ user: 'ann', at: T }),
          msg({ user: 'ann', at: at(T, 30), type: 'outgoing' }),
          msg({ user: 'ann', at: at(T, 60, 1) }),
        ]);
        expect(await get('/api/analytics/sessions')).toEqual({
          sessions: 2, users: 1, messagesPerSession: 1.5, averageLengthSeconds: 900, medianLengthSeconds: 1800, perDay: [{ start: iso('2026-03-02'), sessions: 2 }],
        });
      });
    }
  });

  it('the next message joins the session that started last, once a new one has started', async () => {
    await withStore(await fresh(), async (store) => {
      await appendEach(store, [msg({ user: 'ann', at: T }), msg({ user: 'ann', at: at(T, 10) }), msg({ user: 'ann', at: at(T, 60) }), msg({ user: 'ann', at: at(T, 70) }), msg({ user: 'ann', at: at(T, 95) })]);
      expect((await sessionsOf(store)).map((s) => [s.start, s.last, s.messages])).toEqual([[T, at(T, 10), 2], [at(T, 60), at(T, 95), 3]]);
    });
  });

  it('an earlier message within 30 minutes of a session\'s start joins it, and one further back starts its own without ending the latest', async () => {
    for (const write of [appendEach, appendTogether]) {
      await withStore(await fresh(), async (store) => {
        await appendEach(store, [msg({ user: 'ann', at: T }), msg({ user: 'ann', at: at(T, 10) })]);
        // History imported later: 25 minutes before the start joins; 60 minutes before is a session of its own.
        await write(store, [msg({ user: 'ann', at: at(T, -25) }), msg({ user: 'ann', at: at(T, -90) })]);
        // What comes next still extends the latest session.
        await appendEach(store, [msg({ user: 'ann', at: at(T, 20) })]);
        expect((await sessionsOf(store)).map((s) => [s.start, s.last, s.messages])).toEqual([
          [at(T, -90), at(T, -90), 1],
          [at(T, -25), at(T, 20), 4],
        ]);
      });
    }
  });

  it('an old message of a user with a later session elsewhere in time starts its own session, 30 minutes before its start and no earlier', async () => {
    await withStore(await fresh(), async (store) => {
      await appendEach(store, [msg({ user: 'ann', at: T })]);
      await appendEach(store, [msg({ user: 'ann', at: at(T, -30) })]);
      await appendEach(store, [msg({ user: 'bob', at: T })]);
      await appendEach(store, [msg({ user: 'bob', at: at(T, -30, -1) })]);
      expect((await sessionsOf(store)).map((s) => [s.user, s.start, s.last])).toEqual([
        ['bob', at(T, -30, -1), at(T, -30, -1)],
        ['ann', at(T, -30), T],
        ['bob', T, T],
      ]);
    });
  });

  it('keeps each user\'s sessions in each conversation apart, and makes none of records without a user', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendTogether(store, [
        msg({ user: 'ann', at: T, conversation: 'one' }),
        msg({ user: 'ann', at: at(T, 1), conversation: 'two' }),
        msg({ user: 'bob', at: at(T, 2), conversation: 'one' }),
        msg({ user: '', at: at(T, 3), conversation: 'one' }),
      ]);
      await appendEach(store, [msg({ user: 'ann', at: at(T, 5), conversation: 'one' }), msg({ user: 'bob', at: at(T, 6), conversation: 'two' })]);
      expect((await sessionsOf(store)).map((s) => [s.user, s.conversation, s.messages])).toEqual([['ann', 'one', 2], ['ann', 'two', 1], ['bob', 'one', 1], ['bob', 'two', 1]]);
      expect((await get('/api/analytics/sessions')).sessions).toBe(4);
    });
  });

  it('reads the messages of a batch in the order they happened, whatever order they arrive in', async () => {
    await withStore(await fresh(), async (store) => {
      await appendTogether(store, [msg({ user: 'ann', at: at(T, 40), intent: 'C' }), msg({ user: 'ann', at: T, intent: 'A' }), msg({ user: 'ann', at: at(T, 20), intent: 'B' })]);
      expect((await sessionsOf(store)).map((s) => [s.start, s.last, s.path])).toEqual([[T, at(T, 40), ['A', 'B', 'C']]]);
    });
  });

  it('takes messages of the same moment in the order they were received, and a webhook\'s items in their order', async () => {
    await withStore(await fresh(), async (store) => {
      await appendTogether(store, [msg({ user: 'ann', at: T, intent: 'First' }), msg({ user: 'ann', at: T, intent: 'Second' }), msg({ user: 'ann', at: T, intent: 'Third' })]);
      const item = (intent: string) => ({ sender: { id: 'psid' }, recipient: { id: 'page' }, timestamp: Date.parse(T), message: { text: intent }, intent: { name: intent, inputs: [] } });
      await appendTogether(store, [{ platform: 'facebook', platformKind: 'messenger', v: '11.1.0-rest', type: 'incoming', bot: 'abcdefabcdef', body: { object: 'page', entry: [{ id: 'page', messaging: [item('One'), item('Two'), item('Three')] }] } }]);
      expect((await sessionsOf(store)).map((s) => [s.user, s.path])).toEqual([['ann', ['First', 'Second', 'Third']], ['psid', ['One', 'Two', 'Three']]]);
    });
  });

  it('counts messages and events of a session, and keeps the platform and channel it started on', async () => {
    await withStore(await fresh(), async (store) => {
      await appendTogether(store, [msg({ user: 'ann', at: T, channel: 'webchat', platform: 'twitter' }), msg({ user: 'ann', at: at(T, 1), type: 'outgoing' }), ev('ann', 'purchase', at(T, 2))]);
      await appendEach(store, [ev('ann', 'tip', at(T, 3)), msg({ user: 'ann', at: at(T, 4), channel: 'msteams' })]);
      expect(await sessionsOf(store)).toEqual([{ user: 'ann', conversation: 'c-ann', start: T, last: at(T, 4), messages: 3, events: 2, path: ['event:purchase', 'event:tip'], steps: 2, channel: 'webchat', platform: 'twitter' }]);
    });
  });

  it('follows a path through intents and events, the same step twice in a row once, ratings left out, at most 8 steps', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      const steps = ['Greet', 'Greet', 'Menu', 'Order', 'Order', 'Pay', 'Help', 'Menu', 'Order', 'Pay', 'Bye', 'More'];
      await appendEach(store, [
        ...steps.slice(0, 6).map((intent, i) => msg({ user: 'ann', at: at(T, i), intent })),
        msg({ user: 'ann', at: at(T, 6), type: 'outgoing', intent: 'Reply' }),
        msg({ user: 'ann', at: at(T, 7) }),
        ev('ann', 'feedback', at(T, 8), { extraInfo: { reaction: 'like' } }),
      ]);
      await appendTogether(store, [ev('ann', 'purchase', at(T, 9)), ...steps.slice(6).map((intent, i) => msg({ user: 'ann', at: at(T, 10 + i), intent }))]);
      const [session] = await sessionsOf(store);
      expect(session.path).toEqual(['Greet', 'Menu', 'Order', 'Pay', 'event:purchase', 'Help', 'Menu', 'Order']);
      expect(session.steps).toBe(8);
      expect((await get('/api/analytics/paths')).paths).toEqual([{ steps: ['Greet', 'Menu', 'Order', 'Pay', 'event:purchase', 'Help', 'Menu', 'Order'], sessions: 1, share: 1 }]);
    });
  });

  it('moves a session to its new path as it grows, counting each path once', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [msg({ user: 'ann', at: T, intent: 'Greet' }), msg({ user: 'bob', at: T, intent: 'Greet' })]);
      expect((await get('/api/analytics/paths')).paths).toEqual([{ steps: ['Greet'], sessions: 2, share: 1 }]);
      await appendEach(store, [msg({ user: 'ann', at: at(T, 1), intent: 'Order' }), msg({ user: 'cat', at: T })]);
      expect(await get('/api/analytics/paths')).toEqual({ sessions: 2, paths: [{ steps: ['Greet'], sessions: 1, share: 0.5 }, { steps: ['Greet', 'Order'], sessions: 1, share: 0.5 }] });
      await appendEach(store, [msg({ user: 'cat', at: at(T, 1), intent: 'Greet' })]);
      expect((await get('/api/analytics/paths')).paths).toEqual([{ steps: ['Greet'], sessions: 2, share: 0.6667 }, { steps: ['Greet', 'Order'], sessions: 1, share: 0.3333 }]);
    });
  });

  it('keeps a session on the day it started, and moves it to an earlier day when history extends it back past midnight', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [msg({ user: 'ann', at: '2026-03-02T23:50:00Z' }), msg({ user: 'ann', at: '2026-03-03T00:10:00Z' })]);
      await appendEach(store, [msg({ user: 'bob', at: '2026-03-03T00:05:00Z' })]);
      expect((await get('/api/analytics/sessions?from=2026-03-02&to=2026-03-04')).perDay).toEqual([{ start: iso('2026-03-02'), sessions: 1 }, { start: iso('2026-03-03'), sessions: 1 }]);
      await appendEach(store, [msg({ user: 'bob', at: '2026-03-02T23:40:00Z', type: 'outgoing' })]);
      const body = await get('/api/analytics/sessions?from=2026-03-02&to=2026-03-04');
      expect(body).toEqual({ sessions: 2, users: 2, messagesPerSession: 2, averageLengthSeconds: 1350, medianLengthSeconds: 1500, perDay: [{ start: iso('2026-03-02'), sessions: 2 }, { start: iso('2026-03-03'), sessions: 0 }] });
      expect((await get('/api/analytics/sessions?from=2026-03-03&to=2026-03-04')).sessions).toBe(0);
    });
  });

  it('puts each session\'s length in its bucket as it grows, so that the median follows', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      // Three sessions of 0 s; then one grows to 5 minutes, then a second to 45 minutes (in 10-minute steps).
      await appendEach(store, [msg({ user: 'a', at: T }), msg({ user: 'b', at: T }), msg({ user: 'c', at: T })]);
      expect(await get('/api/analytics/sessions')).toMatchObject({ sessions: 3, medianLengthSeconds: 0, averageLengthSeconds: 0 });
      await appendEach(store, [msg({ user: 'a', at: at(T, 5) }), msg({ user: 'b', at: at(T, 25) }), msg({ user: 'b', at: at(T, 45) })]);
      expect(await get('/api/analytics/sessions')).toMatchObject({ sessions: 3, medianLengthSeconds: 300, averageLengthSeconds: 1000, messagesPerSession: 2 });
      await appendEach(store, [msg({ user: 'c', at: at(T, 30) }), msg({ user: 'c', at: at(T, 60) })]);
      expect(await get('/api/analytics/sessions')).toMatchObject({ sessions: 3, medianLengthSeconds: 2700, averageLengthSeconds: 2200 });
    });
  });

  it('makes the same sessions from records in several transactions as from one', async () => {
    const visits: NewRecord[] = [];
    for (const [user, start, count, gap] of [['ann', 0, 4, 10], ['bob', 5, 3, 40], ['ann', 100, 2, 29]] as const) {
      for (let i = 0; i < count; i++) visits.push(msg({ user, at: at(T, start + i * gap), intent: `S${i}` }));
    }
    const answers: unknown[] = [];
    for (const write of [appendEach, appendTogether]) {
      await withEndpoint(await fresh(), async (store, get) => {
        await write(store, visits);
        answers.push({ sessions: await get('/api/analytics/sessions'), paths: await get('/api/analytics/paths'), rows: (await sessionsOf(store)).map((s) => [s.user, s.start, s.last, s.path]) });
      });
    }
    expect(answers[1]).toEqual(answers[0]);
    expect((answers[0] as { sessions: { sessions: number } }).sessions.sessions).toBe(5);
  });
});

/** Appends `records` one after the other and waits until the views hold them, so that what comes next is a batch of its own. */
async function sendEach(store: RecordStore, records: NewRecord[]): Promise<void> {
  await appendEach(store, records);
  await store.db.selectFrom('entries').select('seq').limit(1).execute();
}

/** A seeded shuffle (a linear congruential generator), so that a failure can be run again. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** The per-day tables of sessions, without the rows a late record emptied (they count nothing). */
async function perDayTables(store: RecordStore) {
  const days = await store.db.selectFrom('session_days').selectAll().where('sessions', '<>', 0).orderBy('day').orderBy('channel').execute();
  const lengths = await store.db.selectFrom('session_lengths').selectAll().where('sessions', '<>', 0).orderBy('day').orderBy('bucket').execute();
  const paths = await store.db.selectFrom('session_paths').selectAll().where('sessions', '<>', 0).orderBy('day').orderBy('path').execute();
  const numbers = (rows: Record<string, unknown>[]) => rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && /^-?\d+$/.test(v) && k !== 'path' ? Number(v) : v])))
    .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  return { days: numbers(days), lengths: numbers(lengths), paths: numbers(paths) };
}

describe('deriveSessions: the sessions one user\'s entries in one conversation make', () => {
  const entry = (minutes: number, seq: number, extra: Partial<SessionEntry> = {}): SessionEntry => ({
    seq, idx: 0, bot: 'b', user_id: 'ann', conversation_id: 'c', platform: 'universal', channel: 'webchat', occurred_at: Date.parse(T) + minutes * 60_000,
    direction: 'incoming', intent: `I${seq}`, event_name: null, ...extra,
  });

  it('splits where more than 30 minutes pass, not where exactly 30 do, in the order they happened whatever the order given', () => {
    const made = deriveSessions([entry(60, 1), entry(0, 2), entry(30, 3), entry(90, 4, { occurred_at: Date.parse(T) + 90 * 60_000 + 1 })]);
    expect(made.map((s) => [s.id, new Date(s.start_at).toISOString(), new Date(s.last_at).toISOString(), s.messages, s.pathSteps])).toEqual([
      ['2:0', T, at(T, 60), 3, ['I2', 'I3', 'I1']],
      ['4:0', at(T, 90, 1), at(T, 90, 1), 1, ['I4']],
    ]);
    expect(deriveSessions([])).toEqual([]);
  });

  it('orders entries of one moment by arrival, then by their place in the record; names a session by its first and gives it that entry\'s platform and channel', () => {
    const made = deriveSessions([
      entry(0, 7, { idx: 1, intent: 'B' }), entry(0, 9, { intent: 'C', channel: 'msteams' }), entry(0, 7, { idx: 0, intent: 'A', platform: 'twitter' }),
      entry(1, 10, { direction: 'event', intent: null, event_name: 'purchase' }), entry(2, 11, { direction: 'outgoing', intent: 'Reply' }),
    ]);
    expect(made).toEqual([{
      id: '7:0', bot: 'b', user_id: 'ann', conversation_id: 'c', platform: 'twitter', channel: 'webchat', start_at: Date.parse(T), last_at: Date.parse(at(T, 2)),
      messages: 4, events: 1, path: '[]', steps: 0, pathSteps: ['A', 'B', 'C', 'event:purchase'],
    }]);
  });
});

describe.each(DBS)('records that arrive late, on $name', ({ fresh }) => {
  it('a late message joins the session its time falls in: the path in the order things happened, the session still one', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await sendEach(store, [msg({ user: 'ann', at: T, intent: 'Greet' }), msg({ user: 'ann', at: at(T, 2), intent: 'Checkout' }), ev('ann', 'purchase', at(T, 3))]);
      await sendEach(store, [msg({ user: 'ann', at: at(T, 1), intent: 'Order' })]);
      expect((await sessionsOf(store)).map((s) => [s.start, s.last, s.messages, s.events, s.path])).toEqual([[T, at(T, 3), 3, 1, ['Greet', 'Order', 'Checkout', 'event:purchase']]]);
      expect((await get('/api/analytics/paths')).paths).toEqual([{ steps: ['Greet', 'Order', 'Checkout', 'event:purchase'], sessions: 1, share: 1 }]);
      expect(await get('/api/analytics/sessions')).toMatchObject({ sessions: 1, messagesPerSession: 3, averageLengthSeconds: 180 });
    });
  });

  it('a late message within 30 minutes of two sessions joins them into one, and the per-day tables count one', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await sendEach(store, [msg({ user: 'ann', at: T, intent: 'A' }), msg({ user: 'ann', at: at(T, 10), intent: 'B' }), msg({ user: 'ann', at: at(T, 50), intent: 'D' }), msg({ user: 'ann', at: at(T, 60), intent: 'E' })]);
      expect((await get('/api/analytics/sessions')).sessions).toBe(2);
      await sendEach(store, [msg({ user: 'ann', at: at(T, 30), intent: 'C' })]);
      expect((await sessionsOf(store)).map((s) => [s.start, s.last, s.messages, s.path])).toEqual([[T, at(T, 60), 5, ['A', 'B', 'C', 'D', 'E']]]);
      expect(await get('/api/analytics/sessions')).toEqual({ sessions: 1, users: 1, messagesPerSession: 5, averageLengthSeconds: 3600, medianLengthSeconds: 3600, perDay: [{ start: iso('2026-03-02'), sessions: 1 }] });
      expect((await get('/api/analytics/paths')).paths).toEqual([{ steps: ['A', 'B', 'C', 'D', 'E'], sessions: 1, share: 1 }]);
      // The next message still goes to the latest session.
      await sendEach(store, [msg({ user: 'ann', at: at(T, 70), intent: 'F' })]);
      expect((await sessionsOf(store)).map((s) => [s.start, s.last, s.messages])).toEqual([[T, at(T, 70), 6]]);
    });
  });

  it('a late message more than 30 minutes from every session is a session of its own between them; at exactly 30 minutes it joins', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await sendEach(store, [msg({ user: 'ann', at: T }), msg({ user: 'ann', at: at(T, 120) })]);
      await sendEach(store, [msg({ user: 'ann', at: at(T, 60) })]);
      expect((await sessionsOf(store)).map((s) => [s.start, s.last])).toEqual([[T, T], [at(T, 60), at(T, 60)], [at(T, 120), at(T, 120)]]);
      await sendEach(store, [msg({ user: 'ann', at: at(T, 90) })]);
      expect((await sessionsOf(store)).map((s) => [s.start, s.last])).toEqual([[T, T], [at(T, 60), at(T, 120)]]);
      await sendEach(store, [msg({ user: 'ann', at: at(T, 30, 1) })]);
      expect((await sessionsOf(store)).map((s) => [s.start, s.last])).toEqual([[T, T], [at(T, 30, 1), at(T, 120)]]);
      await sendEach(store, [msg({ user: 'ann', at: at(T, 125) })]);
      expect((await sessionsOf(store)).map((s) => [s.start, s.last, s.messages])).toEqual([[T, T, 1], [at(T, 30, 1), at(T, 125), 5]]);
      expect(await get('/api/analytics/sessions')).toMatchObject({ sessions: 2, messagesPerSession: 3 });
    });
  });

  it('a late message days back touches only its own stretch of the history: the sessions around it, nothing else', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      const days = [0, 1, 2, 3, 4].map((d) => at(T, d * 1440));
      await sendEach(store, days.flatMap((day) => [msg({ user: 'ann', at: day, intent: 'Greet' }), msg({ user: 'ann', at: at(day, 5), intent: 'Bye' })]));
      const before = await sessionsOf(store);
      await sendEach(store, [msg({ user: 'ann', at: at(days[1], 2), intent: 'Order' })]);
      const after = await sessionsOf(store);
      expect(after.map((s) => s.path)).toEqual([['Greet', 'Bye'], ['Greet', 'Order', 'Bye'], ['Greet', 'Bye'], ['Greet', 'Bye'], ['Greet', 'Bye']]);
      expect(after.filter((_, i) => i !== 1)).toEqual(before.filter((_, i) => i !== 1));
      expect((await get('/api/analytics/paths')).paths).toEqual([{ steps: ['Greet', 'Bye'], sessions: 4, share: 0.8 }, { steps: ['Greet', 'Order', 'Bye'], sessions: 1, share: 0.2 }]);
    });
  });

  it('finds the sessions a late message touches among more than are read at once, and leaves the others as they were', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      // 30 sessions of one message, an hour apart; then, late, messages that join the 3rd and 4th, and the 29th and 30th.
      await appendTogether(store, Array.from({ length: 30 }, (_, i) => msg({ user: 'ann', at: at(T, i * 60), intent: `H${i}` })));
      const before = await sessionsOf(store);
      expect(before).toHaveLength(30);
      await sendEach(store, [msg({ user: 'ann', at: at(T, 150), intent: 'Between' })]);
      await sendEach(store, [msg({ user: 'ann', at: at(T, 28 * 60 + 30), intent: 'Late' })]);
      const after = await sessionsOf(store);
      expect(after.map((s) => s.path)).toEqual([
        ...before.slice(0, 2).map((s) => s.path), ['H2', 'Between', 'H3'], ...before.slice(4, 28).map((s) => s.path), ['H28', 'Late', 'H29'],
      ]);
      expect(after.filter((s) => s.messages === 1)).toEqual([...before.slice(0, 2), ...before.slice(4, 28)]);
      expect(await get('/api/analytics/sessions')).toMatchObject({ sessions: 28, messagesPerSession: 1.14 });
    });
  });

  it('any order of arrival, one at a time or in batches, gives the sessions, per-day tables and views of the order things happened', async () => {
    const visits: NewRecord[] = [];
    const plan = [['ann', 'one', 0, 5, 7], ['ann', 'one', 70, 3, 20], ['ann', 'two', 10, 4, 29], ['bob', 'one', 1430, 6, 11], ['bob', 'one', 1500, 2, 31], ['cat', 'three', 2, 3, 40]] as const;
    for (const [user, conversation, start, count, gap] of plan) {
      for (let i = 0; i < count; i++) {
        const time = at(T, start + i * gap);
        visits.push(i === 2 ? ev(user, `e${i}`, time, {}, conversation) : msg({ user, conversation, at: time, intent: `S${i % 3}`, type: i % 2 === 1 ? 'outgoing' : 'incoming', channel: user === 'bob' ? 'msteams' : 'webchat' }));
      }
    }
    const answers: unknown[] = [];
    // Events carry no channel and take their conversation's as known when they arrive (a limit the
    // endpoint's README states): here, as a payment service's, they arrive after the messages.
    const late = (order: NewRecord[]) => [...order.filter((r) => r.type !== 'event'), ...order.filter((r) => r.type === 'event')];
    // Each record (or batch of 4) built before the next is sent: every late one goes through the late path.
    const oneByOne = async (store: RecordStore, records: NewRecord[]) => {
      for (const record of records) await sendEach(store, [record]);
    };
    const runs: [string, (store: RecordStore) => Promise<void>][] = [
      ['in order', (store) => oneByOne(store, visits)],
      ['newest first', (store) => oneByOne(store, late([...visits].reverse()))],
      ...[1, 2, 3].map((seed): [string, (store: RecordStore) => Promise<void>] => [`shuffled (seed ${seed})`, (store) => oneByOne(store, late(shuffled(visits, seed)))]),
      ['shuffled in batches of 4', async (store) => {
        const order = late(shuffled(visits, 7));
        for (let i = 0; i < order.length; i += 4) {
          await appendTogether(store, order.slice(i, i + 4));
          await store.db.selectFrom('entries').select('seq').limit(1).execute();
        }
      }],
    ];
    for (const [name, write] of runs) {
      await withEndpoint(await fresh(), async (store, get) => {
        await write(store);
        answers.push({
          name, sessions: await get('/api/analytics/sessions'), paths: await get('/api/analytics/paths'), tables: await perDayTables(store),
          rows: (await sessionsOf(store)).map((s) => [s.user, s.conversation, s.start, s.last, s.messages, s.events, s.path, s.channel]),
        });
      });
    }
    const [first, ...rest] = answers as { name: string }[];
    for (const answer of rest) expect({ ...answer, name: first.name }, answer.name).toEqual(first);
    expect((first as unknown as { sessions: { sessions: number } }).sessions.sessions).toBe(8);
  }, 120_000);
});

describe('sessions of several endpoints on one PostgreSQL database', () => {
  const [, postgres] = databases();
  it('are extended by one endpoint at a time: the other acknowledges at once, and its views wait until the first has committed', async () => {
    const database = await postgres.fresh();
    const [a, b] = await Promise.all([openStore({ database, log: () => undefined }), openStore({ database, log: () => undefined })]);
    try {
      await a.store.append(msg({ user: 'ann', at: T }));
      const entry = await a.store.db.selectFrom('entries').selectAll().executeTakeFirstOrThrow();
      let committedAt = 0;
      let acknowledgedAt = 0;
      let other: Promise<{ rows: { messages: number }[]; at: number }> | undefined;
      await a.store.db.transaction().execute(async (trx) => {
        // Endpoint a reads (and so locks) ann's latest session, as it does to extend it...
        await sessionRows(trx, [{ ...entry, seq: Number(entry.seq), occurred_at: Date.parse(at(T, 1)) }], true);
        // ...while endpoint b stores a message of ann in the same conversation, and reads the sessions.
        other = b.store.append(msg({ user: 'ann', at: at(T, 2) })).then(async () => {
          acknowledgedAt = Date.now();
          const rows = await b.store.db.selectFrom('sessions').select('messages').execute();
          return { rows: rows.map((row) => ({ messages: Number(row.messages) })), at: Date.now() };
        });
        await new Promise((resolve) => setTimeout(resolve, 800));
        committedAt = Date.now();
      });
      const seen = await other!;
      expect(acknowledgedAt).toBeGreaterThan(0);
      expect(acknowledgedAt).toBeLessThan(committedAt);
      expect(seen.at).toBeGreaterThanOrEqual(committedAt);
      expect(seen.rows).toEqual([{ messages: 2 }]);
    } finally {
      await Promise.all([a.store.close(), b.store.close()]);
    }
  });
});
