/**
 * Sessions as the store keeps them while records arrive (store/sessions.ts), read through the
 * sessions and paths views: a session is one user's stretch in one conversation with no gap over
 * 30 minutes, on SQLite and on PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { appendEach, appendTogether, databases, ev, msg, withEndpoint, withStore } from './databases.js';
import type { NewRecord, RecordStore } from '../../src/store/store.js';
import { sessionRows } from '../../src/store/sessions.js';
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
