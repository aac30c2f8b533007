/**
 * Retention (RecordStore.deleteBefore): what happened before the cutoff goes, with the figures over
 * it, and the figures of what is left are those of what is left. On SQLite and on PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { appendEach, databases, ev, msg, withEndpoint } from './databases.js';
import type { RecordStore } from '../../src/store/store.js';

const DBS = databases();
const iso = (at: string) => new Date(at).toISOString();
const count = async (store: RecordStore, table: 'session_heads' | 'conversation_users' | 'sessions') =>
  Number((await store.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

describe.each(DBS)('retention on $name', ({ fresh }) => {
  it('retention deletes what happened before the cutoff and keeps the figures of what is left', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [
        msg({ user: 'ann', at: '2026-03-01T10:00:00Z', text: 'Hi', intent: 'Greet', name: 'Ann', channel: 'webchat', conversation: 'room' }),
        msg({ user: 'bob', at: '2026-03-01T10:05:00Z', text: 'Hi', intent: 'Greet', conversation: 'room' }),
        ev('ann', 'purchase', '2026-03-01T10:06:00Z', {}, 'room'),
        msg({ user: 'bob', at: '2026-03-01T11:00:00Z', text: 'Order', button: 'order', conversation: 'bob-only' }),
        msg({ user: 'ann', at: '2026-03-12T09:00:00Z', text: 'hi', intent: 'Greet', conversation: 'room' }),
        msg({ user: 'ann', at: '2026-03-12T09:01:00Z', type: 'outgoing', text: 'Hello', conversation: 'room' }),
        ev('ann', 'purchase', '2026-03-12T09:02:00Z', {}, 'room'),
      ]);
      const deleted = await store.deleteBefore(Date.parse('2026-03-09T00:00:00Z'));
      expect(deleted).toBe(4);
      expect((await store.records()).map((r) => r.occurredAt)).toEqual([iso('2026-03-12T09:00:00Z'), iso('2026-03-12T09:01:00Z'), iso('2026-03-12T09:02:00Z')]);
      expect((await get('/api/users')).users).toEqual([{
        userId: 'ann', name: 'Ann', bot: expect.any(String), platform: 'twitter', channel: 'webchat',
        firstActivity: iso('2026-03-12T09:00:00Z'), lastActivity: iso('2026-03-12T09:02:00Z'), messages: 2, events: 1, conversations: 1,
      }]);
      expect((await get('/api/conversations')).conversations).toEqual([expect.objectContaining({
        conversationId: 'room', userIds: ['ann', 'bob'], firstActivity: iso('2026-03-12T09:00:00Z'), lastActivity: iso('2026-03-12T09:02:00Z'), messages: 2, events: 1,
      })]);
      expect(await get('/api/summary')).toMatchObject({ records: 3, messages: 2, events: 1, users: 1, conversations: 1, firstAt: iso('2026-03-12T09:00:00Z') });
      expect(await get('/api/analytics/messages')).toMatchObject({ total: 1, messages: [{ key: 'hi', count: 1 }] });
      expect(await get('/api/analytics/buttons')).toEqual({ total: 0, buttons: [] });
      expect((await get('/api/analytics/sessions')).sessions).toBe(1);
      expect((await get('/api/analytics/paths')).paths).toEqual([{ steps: ['Greet', 'event:purchase'], sessions: 1, share: 1 }]);
      expect((await get('/api/analytics/active-users?interval=week')).points).toEqual([{ start: iso('2026-03-09T00:00:00Z'), active: 1, new: 1, returning: 0 }]);
      expect((await get('/api/transcript?user=ann')).entries).toHaveLength(3);
      expect(await count(store, 'session_heads')).toBe(1);
      expect(await count(store, 'conversation_users')).toBe(2);
    });
  });

  it('deletes hourly, daily and weekly figures only once their hour, day or week is wholly before the cutoff', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      // The cutoff is Monday 2026-03-09 00:00: the hour, day and week just before it end exactly there.
      await appendEach(store, [
        msg({ user: 'ann', at: '2026-03-02T08:00:00Z', button: 'b' }),
        msg({ user: 'ann', at: '2026-03-08T23:59:59Z', button: 'b' }),
        msg({ user: 'bob', at: '2026-03-09T00:00:00Z', button: 'b' }),
      ]);
      expect(await store.deleteBefore(Date.parse('2026-03-09T00:00:00Z'))).toBe(2);
      expect((await get('/api/timeseries?bucket=hour&from=2026-03-08T23:00:00Z&to=2026-03-09T01:00:00Z')).points.map((p: { incoming: number }) => p.incoming)).toEqual([0, 1]);
      expect((await get('/api/timeseries?bucket=day&from=2026-03-08&to=2026-03-10')).points.map((p: { incoming: number }) => p.incoming)).toEqual([0, 1]);
      expect((await get('/api/analytics/active-users?interval=day&from=2026-03-08&to=2026-03-10')).points.map((p: { active: number }) => p.active)).toEqual([0, 1]);
      expect((await get('/api/analytics/retention?from=2026-03-02&to=2026-03-16')).cohorts).toEqual([expect.objectContaining({ week: iso('2026-03-09'), users: 1 })]);
      expect((await get('/api/analytics/messages?from=2026-03-01&to=2026-03-10')).total).toBe(1);
      expect((await get('/api/analytics/buttons?from=2026-03-01&to=2026-03-10')).total).toBe(1);
    });
  });

  it('keeps the figures of an hour and a day that straddle the cutoff until they have passed', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [
        msg({ user: 'ann', at: '2026-03-09T11:00:00Z', button: 'b' }),
        msg({ user: 'ann', at: '2026-03-09T12:10:00Z', button: 'b' }),
        msg({ user: 'bob', at: '2026-03-09T12:40:00Z', button: 'b' }),
      ]);
      expect(await store.deleteBefore(Date.parse('2026-03-09T12:30:00Z'))).toBe(2);
      // Records and entries go at once; the counts of 11:00 go, those of 12:00 and of the day stay.
      expect((await store.records()).map((r) => r.occurredAt)).toEqual([iso('2026-03-09T12:40:00Z')]);
      expect((await get('/api/users')).users.map((u: { userId: string }) => u.userId)).toEqual(['bob']);
      expect((await get('/api/timeseries?bucket=hour&from=2026-03-09T11:00:00Z&to=2026-03-09T13:00:00Z')).points.map((p: { incoming: number }) => p.incoming)).toEqual([0, 2]);
      expect((await get('/api/summary')).records).toBe(3);
      expect((await get('/api/analytics/buttons')).total).toBe(3);
      expect((await get('/api/analytics/active-users?interval=day&from=2026-03-09&to=2026-03-10')).points[0].active).toBe(2);
      // Sessions go with the day they started: those of 2026-03-09 stay.
      expect((await get('/api/analytics/sessions')).sessions).toBe(3);
      expect(await count(store, 'sessions')).toBe(3);
    });
  });

  it('deletes the sessions of the days before the cutoff\'s, with their figures, and starts a new session after them', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [
        msg({ user: 'ann', at: '2026-03-08T23:50:00Z', intent: 'Greet' }),
        msg({ user: 'ann', at: '2026-03-09T00:10:00Z', intent: 'Order' }),
        msg({ user: 'bob', at: '2026-03-09T00:00:00Z', intent: 'Greet' }),
      ]);
      await store.deleteBefore(Date.parse('2026-03-09T00:00:00Z'));
      expect(await count(store, 'sessions')).toBe(1);
      expect(await count(store, 'session_heads')).toBe(1);
      expect(await get('/api/analytics/sessions?from=2026-03-08&to=2026-03-10')).toMatchObject({ sessions: 1, perDay: [{ start: iso('2026-03-08'), sessions: 0 }, { start: iso('2026-03-09'), sessions: 1 }], medianLengthSeconds: 0 });
      expect((await get('/api/analytics/paths')).paths).toEqual([{ steps: ['Greet'], sessions: 1, share: 1 }]);
      // Ann's next message is a session of its own: the one it would have joined is gone.
      await appendEach(store, [msg({ user: 'ann', at: '2026-03-09T00:20:00Z', intent: 'Pay' })]);
      expect((await get('/api/analytics/paths')).paths).toEqual([{ steps: ['Greet'], sessions: 1, share: 0.5 }, { steps: ['Pay'], sessions: 1, share: 0.5 }]);
    });
  });

  it('retention that finds nothing before the cutoff deletes nothing and changes no figure', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [msg({ user: 'ann', at: '2026-03-09T10:00:00Z', text: 'Hi!' }), msg({ user: 'bob', at: '2026-03-09T10:00:00Z', text: 'hi' })]);
      const before = await get('/api/analytics/messages');
      expect(before.messages).toEqual([{ text: 'Hi!', key: 'hi', count: 2, share: 1, intent: null }]);
      expect(await store.deleteBefore(Date.parse('2026-03-01T00:00:00Z'))).toBe(0);
      expect(await get('/api/analytics/messages')).toEqual(before);
      expect((await get('/api/users')).users.map((u: { userId: string; messages: number }) => [u.userId, u.messages])).toEqual([['ann', 1], ['bob', 1]]);
    });
  });
});
