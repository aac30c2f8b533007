/**
 * Ratings (feedback events) as the store files them (store/feedback.ts and store/rows.ts), read
 * through the feedback view: each counted for the intent of the reply it rates, else of what the
 * user asked before it; and events given their conversation's channel (store/channels.ts). On
 * SQLite and on PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { BOT, OTHER_BOT, appendEach, appendTogether, databases, ev, msg, withEndpoint } from './databases.js';
import type { NewRecord } from '../../src/store/store.js';

const DBS = databases();
const T = '2026-03-02T10:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(T) + minutes * 60_000).toISOString();
/** A feedback event (Teams' thumbs, through the middleware). */
const rating = (user: string, minutes: number, extraInfo: Record<string, unknown>, conversation = `c-${user}`, bot = BOT): NewRecord =>
  ev(user, 'feedback', at(minutes), { extraInfo: { timestamp: at(minutes), ...extraInfo } }, conversation, bot);

describe.each(DBS)('ratings on $name', ({ fresh }) => {
  it('a feedback is counted for the intent of the reply it rates', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [
        msg({ user: 'ann', at: at(0), intent: 'Greet' }),
        msg({ user: 'ann', at: at(1), type: 'outgoing', intent: 'Welcome', id: 'r1' }),
        msg({ user: 'ann', at: at(2), intent: 'Order' }),
        msg({ user: 'ann', at: at(3), type: 'outgoing', intent: 'Confirm', id: 'r2' }),
      ]);
      await appendEach(store, [rating('ann', 4, { reaction: 'like', replyToId: 'r1', feedbackText: 'Nice welcome' }), rating('ann', 5, { reaction: 'dislike', replyToId: 'r2' })]);
      const body = await get('/api/analytics/feedback');
      expect(body.perIntent).toEqual([{ intent: 'Confirm', up: 0, down: 1 }, { intent: 'Welcome', up: 1, down: 0 }]);
      expect(body.comments).toEqual([{ time: at(4), userId: 'ann', userName: null, reaction: 'like', comment: 'Nice welcome', intent: 'Welcome', replyTo: 'r1' }]);
    });
  });

  it('a feedback that arrives before what it rates is counted for it once it arrives: the reply, else the message before the reply', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [msg({ user: 'ann', at: at(0), intent: 'Greet' }), msg({ user: 'bob', at: at(0), intent: 'Greet' })]);
      await appendEach(store, [rating('ann', 5, { reaction: 'like', replyToId: 'r1' }), rating('bob', 5, { reaction: 'dislike', replyToId: 'r2' })]);
      expect((await get('/api/analytics/feedback')).perIntent).toEqual([{ intent: 'Greet', up: 1, down: 1 }]);
      // ann's reply arrives, with an intent of its own; bob's without one, then the message it answered.
      await appendEach(store, [msg({ user: 'ann', at: at(3), type: 'outgoing', intent: 'Confirm', id: 'r1' }), msg({ user: 'bob', at: at(3), type: 'outgoing', id: 'r2' })]);
      expect((await get('/api/analytics/feedback')).perIntent).toEqual([{ intent: 'Confirm', up: 1, down: 0 }, { intent: 'Greet', up: 0, down: 1 }]);
      await appendEach(store, [msg({ user: 'bob', at: at(2), intent: 'Order' }), msg({ user: 'bob', at: at(4), intent: 'AfterTheReply' })]);
      expect((await get('/api/analytics/feedback')).perIntent).toEqual([{ intent: 'Confirm', up: 1, down: 0 }, { intent: 'Order', up: 0, down: 1 }]);
    });
  });

  it('a feedback on a reply without an intent is counted for what the user asked before that reply, in its conversation', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [
        msg({ user: 'ann', at: at(0), intent: 'Greet', conversation: 'c1' }),
        msg({ user: 'ann', at: at(1), conversation: 'c1' }),
        msg({ user: 'ann', at: at(2), type: 'outgoing', id: 'r1', conversation: 'c1' }),
        msg({ user: 'ann', at: at(3), intent: 'Later', conversation: 'c1' }),
        msg({ user: 'ann', at: at(4), intent: 'Elsewhere', conversation: 'c2' }),
      ]);
      // Rated from another conversation id (a Teams thread): the reply's conversation counts.
      await appendEach(store, [rating('ann', 5, { reaction: 'up', replyToId: 'r1' }, 'c2')]);
      expect((await get('/api/analytics/feedback')).perIntent).toEqual([{ intent: 'Greet', up: 1, down: 0 }]);
    });
  });

  it('a feedback on a reply the store does not know is counted for the user\'s last intent before it, in its conversation', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [
        msg({ user: 'ann', at: at(0), intent: 'Greet' }),
        msg({ user: 'ann', at: at(1), intent: 'Order' }),
        msg({ user: 'ann', at: at(1), intent: 'AnotherBot', bot: OTHER_BOT }),
        msg({ user: 'ann', at: at(2), type: 'outgoing', intent: 'Reply' }),
        msg({ user: 'ann', at: at(3), intent: 'Other', conversation: 'elsewhere' }),
      ]);
      await appendEach(store, [rating('ann', 4, { reaction: 'thumbsdown', replyToId: 'unknown' }), rating('ann', 5, { reaction: 'like' })]);
      await appendEach(store, [msg({ user: 'ann', at: at(6), intent: 'After' })]);
      expect((await get('/api/analytics/feedback')).perIntent).toEqual([{ intent: 'Order', up: 1, down: 1 }]);
    });
  });

  it('a feedback with nothing to rate has no intent', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [msg({ user: 'ann', at: at(0) }), msg({ user: 'ann', at: at(1), type: 'outgoing', id: 'r1' }), rating('ann', 2, { reaction: 'like', replyToId: 'r1' }), rating('bob', 2, { reaction: 'dislike' })]);
      const body = await get('/api/analytics/feedback');
      expect(body.perIntent).toEqual([{ intent: null, up: 1, down: 1 }]);
    });
  });

  it('a feedback rates the reply of its own bot, the latest with that id', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [
        msg({ user: 'ann', at: at(0), type: 'outgoing', intent: 'Old', id: 'r1' }),
        msg({ user: 'ann', at: at(1), type: 'outgoing', intent: 'New', id: 'r1' }),
        msg({ user: 'ann', at: at(2), type: 'outgoing', intent: 'OtherBot', id: 'r2', bot: OTHER_BOT }),
        msg({ user: 'ann', at: at(2), intent: 'Asked', id: 'r2' }),
        msg({ user: 'ann', at: at(3), type: 'outgoing', id: 'r3' }),
      ]);
      await appendEach(store, [rating('ann', 4, { reaction: 'like', replyToId: 'r1' }), rating('ann', 5, { reaction: 'like', replyToId: 'r2' })]);
      expect((await get(`/api/analytics/feedback?bot=${BOT}`)).perIntent).toEqual([{ intent: 'Asked', up: 1, down: 0 }, { intent: 'New', up: 1, down: 0 }]);
    });
  });

  it('a feedback stored with the reply it rates, in one transaction, finds it', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendTogether(store, [msg({ user: 'ann', at: at(0), intent: 'Order' }), msg({ user: 'ann', at: at(1), type: 'outgoing', id: 'r1' }), rating('ann', 2, { reaction: 'like', replyToId: 'r1' })]);
      expect((await get('/api/analytics/feedback')).perIntent).toEqual([{ intent: 'Order', up: 1, down: 0 }]);
    });
  });

  it('reads a reaction in Teams\' words and the others\', and counts an event with none as no rating', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      const likes = ['like', ' LIKE ', 'up', 'thumbsup', '+1', '👍', 'positive', 'true', '1', true, 1];
      const dislikes = ['dislike', 'Down', 'thumbsdown', '-1', '👎', 'negative', 'false', '0', false, 0];
      const neither = ['meh', '', 2, null, { value: 'like' }];
      await appendTogether(store, [...likes, ...dislikes, ...neither].map((reaction, i) => rating(`u${i}`, i, { reaction })));
      await appendEach(store, [
        ev('x', 'feedback', at(50)),
        ev('y', 'rating', at(51), { extraInfo: { reaction: 'like' } }),
        ev('z', 'feedback', at(52), { type: 'revenueEvent', extraInfo: { reaction: 'like' } }),
      ]);
      const body = await get('/api/analytics/feedback');
      expect(body).toMatchObject({ up: likes.length, down: dislikes.length });
      const rows = await store.db.selectFrom('entries').select(['user_id', 'reaction']).where('direction', '=', 'event').execute();
      const reaction = Object.fromEntries(rows.map((r) => [r.user_id, r.reaction]));
      expect(likes.map((_, i) => reaction[`u${i}`])).toEqual(likes.map(() => 'like'));
      expect(dislikes.map((_, i) => reaction[`u${likes.length + i}`])).toEqual(dislikes.map(() => 'dislike'));
      expect(neither.map((_, i) => reaction[`u${likes.length + dislikes.length + i}`])).toEqual(neither.map(() => null));
      expect([reaction.x, reaction.y, reaction.z]).toEqual([null, null, null]);
    });
  });

  it('keeps a comment from feedbackText, else comment, to 2,000 characters, and none that is empty or not text', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [
        rating('a', 1, { reaction: 'like', feedbackText: 'from Teams', comment: 'not this' }),
        rating('b', 2, { reaction: 'like', comment: 'from a comment' }),
        rating('c', 3, { reaction: 'like', feedbackText: '' }),
        rating('d', 4, { reaction: 'like', feedbackText: 42 }),
        rating('e', 5, { reaction: 'like', feedbackText: 'x'.repeat(2500), replyToId: 7 }),
      ]);
      const comments = (await get('/api/analytics/feedback')).comments;
      expect(comments.map((c: { userId: string; comment: string; replyTo: string | null }) => [c.userId, c.comment.length > 100 ? c.comment.length : c.comment, c.replyTo])).toEqual([
        ['e', 2000, null], ['b', 'from a comment', null], ['a', 'from Teams', null],
      ]);
    });
  });
});

describe.each(DBS)('the channel of an event on $name', ({ fresh }) => {
  it('an event takes its conversation\'s channel, from the same batch or from what is stored', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendTogether(store, [msg({ user: 'ann', at: at(0), channel: 'webchat' }), ev('ann', 'same-batch', at(1))]);
      await appendEach(store, [ev('ann', 'later', at(2))]);
      expect((await get('/api/summary?channel=webchat')).events).toBe(2);
      const rows = await store.db.selectFrom('entries').select(['event_name', 'channel']).where('direction', '=', 'event').orderBy('seq').execute();
      expect(rows).toEqual([{ event_name: 'same-batch', channel: 'webchat' }, { event_name: 'later', channel: 'webchat' }]);
    });
  });

  it('an event in a conversation without a channel takes its user\'s, and one of a user without any none', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [msg({ user: 'ann', at: at(0), channel: 'msteams', conversation: 'chat' }), msg({ user: 'ann', at: at(1), conversation: 'quiet' })]);
      await appendTogether(store, [
        ev('ann', 'in-quiet', at(2), {}, 'quiet'),
        ev('ann', 'new-conversation', at(3), {}, 'fresh'),
        ev('bob', 'nobody-knows', at(4)),
        msg({ user: 'cat', at: at(5), channel: 'webchat', conversation: 'cat-chat' }),
        ev('cat', 'cat-elsewhere', at(6), {}, 'cat-other'),
      ]);
      const rows = await store.db.selectFrom('entries').select(['event_name', 'channel']).where('direction', '=', 'event').orderBy('seq').execute();
      expect(Object.fromEntries(rows.map((r) => [r.event_name, r.channel]))).toEqual({ 'in-quiet': 'msteams', 'new-conversation': 'msteams', 'nobody-knows': '', 'cat-elsewhere': 'webchat' });
      expect((await get('/api/summary?channel=msteams')).events).toBe(2);
    });
  });

  it('an event takes the channel of its conversation\'s latest message that has one, in the same batch', async () => {
    await withEndpoint(await fresh(), async (store) => {
      await appendTogether(store, [msg({ user: 'ann', at: at(0), channel: 'webchat' }), msg({ user: 'ann', at: at(1) }), ev('ann', 'purchase', at(2))]);
      const rows = await store.db.selectFrom('entries').select(['event_name', 'channel']).where('direction', '=', 'event').execute();
      expect(rows).toEqual([{ event_name: 'purchase', channel: 'webchat' }]);
    });
  });

  it('an event takes the channel its conversation has now, over its user\'s', async () => {
    await withEndpoint(await fresh(), async (store) => {
      await appendEach(store, [
        msg({ user: 'ann', at: at(0), channel: 'webchat', conversation: 'one' }),
        msg({ user: 'ann', at: at(1), channel: 'msteams', conversation: 'two' }),
      ]);
      await appendEach(store, [ev('ann', 'in-one', at(2), {}, 'one')]);
      // In the same batch: the latest message of the conversation with a channel, then of the user.
      await appendTogether(store, [
        msg({ user: 'bob', at: at(3), channel: 'webchat', conversation: 'b1' }),
        msg({ user: 'bob', at: at(4), channel: 'msteams', conversation: 'b1' }),
        msg({ user: 'bob', at: at(5), channel: 'sms', conversation: 'b2' }),
        ev('bob', 'in-b1', at(6), {}, 'b1'),
        ev('bob', 'in-b3', at(7), {}, 'b3'),
      ]);
      const rows = await store.db.selectFrom('entries').select(['event_name', 'channel']).where('direction', '=', 'event').execute();
      expect(Object.fromEntries(rows.map((r) => [r.event_name, r.channel]))).toEqual({ 'in-one': 'webchat', 'in-b1': 'msteams', 'in-b3': 'sms' });
    });
  });

  it('an event gets no channel from another bot\'s user or conversation of the same id', async () => {
    await withEndpoint(await fresh(), async (store) => {
      await appendEach(store, [msg({ user: 'ann', at: at(0), channel: 'webchat', bot: OTHER_BOT })]);
      await appendEach(store, [ev('ann', 'mine', at(1))]);
      const rows = await store.db.selectFrom('entries').select(['event_name', 'channel']).where('direction', '=', 'event').execute();
      expect(rows).toEqual([{ event_name: 'mine', channel: '' }]);
    });
  });

  it('an event takes the channel its conversation or user has in the same batch over the one stored before', async () => {
    await withEndpoint(await fresh(), async (store) => {
      await appendEach(store, [msg({ user: 'ann', at: at(0), channel: 'webchat', conversation: 'room' }), msg({ user: 'cat', at: at(0), channel: 'webchat', conversation: 'cat-old' })]);
      await appendTogether(store, [
        // Room's latest channel is in this batch (by bob), though ann herself is not.
        msg({ user: 'bob', at: at(1), channel: 'msteams', conversation: 'room' }),
        ev('ann', 'in-room', at(2), {}, 'room'),
        // Cat's latest channel is in this batch, though the event's conversation is new.
        msg({ user: 'cat', at: at(3), channel: 'sms', conversation: 'cat-now' }),
        ev('cat', 'cat-fresh', at(4), {}, 'cat-fresh'),
      ]);
      const rows = await store.db.selectFrom('entries').select(['event_name', 'channel']).where('direction', '=', 'event').execute();
      expect(Object.fromEntries(rows.map((r) => [r.event_name, r.channel]))).toEqual({ 'in-room': 'msteams', 'cat-fresh': 'sms' });
    });
  });

  it('an event gets no channel from a bot whose name and conversation id run together into the same text as its own', async () => {
    await withEndpoint(await fresh(), async (store) => {
      await appendTogether(store, [msg({ user: 'ann', at: at(0), channel: 'webchat', conversation: 'c1', bot: 'ab' }), ev('zed', 'other-bot', at(1), {}, '1', 'abc')]);
      const rows = await store.db.selectFrom('entries').select(['event_name', 'channel']).where('direction', '=', 'event').execute();
      expect(rows).toEqual([{ event_name: 'other-bot', channel: '' }]);
    });
  });

  it('events of many conversations at once each find theirs', async () => {
    await withEndpoint(await fresh(), async (store) => {
      const users = Array.from({ length: 320 }, (_, i) => `u${i}`);
      await appendTogether(store, users.map((user, i) => msg({ user, at: at(0), channel: i % 2 === 0 ? 'webchat' : 'msteams' })));
      await appendTogether(store, users.map((user) => ev(user, 'purchase', at(1))));
      const rows = await store.db.selectFrom('entries').select(['user_id', 'channel']).where('direction', '=', 'event').execute();
      expect(rows).toHaveLength(320);
      for (const row of rows) expect(row.channel, row.user_id).toBe(Number(row.user_id.slice(1)) % 2 === 0 ? 'webchat' : 'msteams');
    });
  });
});
