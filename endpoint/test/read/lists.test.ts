/**
 * The lists of users and conversations, search and transcripts, called in-process on a real store
 * (read/lists.ts): what each filter (bot, bots, platform, channel, from/to, intent, user, text)
 * keeps, the order (by time, then arrival), limits, cursors and empty answers; on SQLite and
 * PostgreSQL (`LISTS_SQLITE_ONLY=1` keeps SQLite alone, for mutation runs).
 */
import { describe, expect, it } from 'vitest';
import { listConversations, listUsers, readTranscript, search } from '../../src/read/lists.js';
import type { RecordStore } from '../../src/store/store.js';
import { BOT, OTHER_BOT, appendEach, databases, msg, withStore } from '../store/databases.js';

const ALL = databases();
const DBS = process.env.LISTS_SQLITE_ONLY ? ALL.filter((db) => db.name === 'SQLite') : ALL;
const at = (day: number, hour: number, minute = 0) => `2026-03-0${day}T${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00.000Z`;
const ms = (day: number, hour: number, minute = 0) => Date.parse(at(day, hour, minute));

/**
 * ann (universal, webchat, conversation c1, bot BOT): day 1 10:00 "Hello world" (intent greet), the bot's answer at 10:01, day 2 10:00 "bye now".
 * bob (twitter, msteams, c2, BOT): day 3 10:00 "HELLO again" (intent buy).
 * cat (sms, no channel, c3, OTHER_BOT): day 4 10:00 "nothing".
 */
async function fill(store: RecordStore): Promise<void> {
  await appendEach(store, [
    msg({ user: 'ann', name: 'Ann Lee', at: at(1, 10), text: 'Hello world', channel: 'webchat', conversation: 'c1', intent: 'greet' }),
    msg({ user: 'ann', name: 'Ann Lee', at: at(1, 10, 1), text: 'hi Ann', channel: 'webchat', conversation: 'c1', type: 'outgoing' }),
    msg({ user: 'ann', name: 'Ann Lee', at: at(2, 10), text: 'bye now', channel: 'webchat', conversation: 'c1' }),
    msg({ user: 'bob', name: 'Bob', at: at(3, 10), text: 'HELLO again', platform: 'twitter', channel: 'msteams', conversation: 'c2', intent: 'buy' }),
    msg({ user: 'cat', at: at(4, 10), text: 'nothing', platform: 'sms', conversation: 'c3', bot: OTHER_BOT }),
  ]);
}

const userIds = async (store: RecordStore, filter: Parameters<typeof listUsers>[1], limit = 10) => {
  const { total, users } = await listUsers(store, filter, limit);
  return { total, ids: users.map((u) => u.userId) };
};
const conversationIds = async (store: RecordStore, filter: Parameters<typeof listConversations>[1], limit = 10) => {
  const { total, conversations } = await listConversations(store, filter, limit);
  return { total, ids: conversations.map((c) => c.conversationId) };
};
const found = async (store: RecordStore, filter: Parameters<typeof search>[1], terms: Parameters<typeof search>[2], limit = 10) => {
  const { results, more } = await search(store, filter, terms, limit);
  return { texts: results.map((r) => r.text), more };
};

describe.each(DBS)('lists on $name', ({ fresh }) => {
  it('lists users most recently active first, each summed up', async () => {
    await withStore(await fresh(), async (store) => {
      expect((await listUsers(store, {}, 10))).toEqual({ total: 0, users: [] });
      await fill(store);
      const { total, users } = await listUsers(store, {}, 10);
      expect(total).toBe(3);
      expect(users).toEqual([
        { userId: 'cat', bot: OTHER_BOT, platform: 'sms', channel: null, firstActivity: at(4, 10), lastActivity: at(4, 10), messages: 1, events: 0, conversations: 1 },
        { userId: 'bob', name: 'Bob', bot: BOT, platform: 'twitter', channel: 'msteams', firstActivity: at(3, 10), lastActivity: at(3, 10), messages: 1, events: 0, conversations: 1 },
        { userId: 'ann', name: 'Ann Lee', bot: BOT, platform: 'universal', channel: 'webchat', firstActivity: at(1, 10), lastActivity: at(2, 10), messages: 3, events: 0, conversations: 1 },
      ]);
      expect(await userIds(store, {}, 2)).toEqual({ total: 3, ids: ['cat', 'bob'] });
    });
  });

  it('orders users active at the same moment by id', async () => {
    await withStore(await fresh(), async (store) => {
      await appendEach(store, [msg({ user: 'zed', at: at(1, 9) }), msg({ user: 'amy', at: at(1, 9) }), msg({ user: 'kim', at: at(1, 8) })]);
      expect(await userIds(store, {})).toEqual({ total: 3, ids: ['amy', 'zed', 'kim'] });
    });
  });

  it('narrows users by bot, bots, platform, channel and intent', async () => {
    await withStore(await fresh(), async (store) => {
      await fill(store);
      expect(await userIds(store, { bot: BOT })).toEqual({ total: 2, ids: ['bob', 'ann'] });
      expect(await userIds(store, { bots: [OTHER_BOT] })).toEqual({ total: 1, ids: ['cat'] });
      expect(await userIds(store, { bots: [] })).toEqual({ total: 0, ids: [] });
      expect(await userIds(store, { platform: 'twitter' })).toEqual({ total: 1, ids: ['bob'] });
      expect(await userIds(store, { platform: 'universal' })).toEqual({ total: 1, ids: ['ann'] });
      expect(await userIds(store, { platform: 'facebook' })).toEqual({ total: 0, ids: [] });
      expect(await userIds(store, { channel: 'webchat' })).toEqual({ total: 1, ids: ['ann'] });
      expect(await userIds(store, { channel: 'msteams', bot: BOT })).toEqual({ total: 1, ids: ['bob'] });
      expect(await userIds(store, { channel: 'msteams', platform: 'universal' })).toEqual({ total: 0, ids: [] });
      expect(await userIds(store, { intent: 'greet' })).toEqual({ total: 1, ids: ['ann'] });
      expect(await userIds(store, { intent: 'buy' })).toEqual({ total: 1, ids: ['bob'] });
      expect(await userIds(store, { intent: 'buy', bot: OTHER_BOT })).toEqual({ total: 0, ids: [] });
      expect(await userIds(store, { intent: 'none' })).toEqual({ total: 0, ids: [] });
      expect(await userIds(store, { intent: 'greet' }, 0)).toEqual({ total: 1, ids: [] });
    });
  });

  it('narrows users to the days they were active: from counts the whole day it falls in, to excludes its day', async () => {
    await withStore(await fresh(), async (store) => {
      await fill(store);
      expect(await userIds(store, { from: ms(2, 12) })).toEqual({ total: 3, ids: ['cat', 'bob', 'ann'] });
      expect(await userIds(store, { from: ms(3, 0) })).toEqual({ total: 2, ids: ['cat', 'bob'] });
      expect(await userIds(store, { from: ms(3, 0) + 1 })).toEqual({ total: 2, ids: ['cat', 'bob'] });
      expect(await userIds(store, { from: ms(4, 12) })).toEqual({ total: 1, ids: ['cat'] });
      expect(await userIds(store, { to: ms(2, 0) })).toEqual({ total: 1, ids: ['ann'] });
      expect(await userIds(store, { to: ms(3, 0) })).toEqual({ total: 1, ids: ['ann'] });
      expect(await userIds(store, { to: ms(3, 0) + 1 })).toEqual({ total: 2, ids: ['bob', 'ann'] });
      expect(await userIds(store, { from: ms(2, 0), to: ms(3, 0) })).toEqual({ total: 1, ids: ['ann'] });
      expect(await userIds(store, { from: ms(5, 0) })).toEqual({ total: 0, ids: [] });
      expect(await userIds(store, { to: ms(1, 0) })).toEqual({ total: 0, ids: [] });
      // The counts hold entries in the range, but not of a user active on those days on that platform.
      expect(await userIds(store, { platform: 'universal', from: ms(3, 0) })).toEqual({ total: 0, ids: [] });
      expect(await userIds(store, { platform: 'sms', from: ms(3, 0) })).toEqual({ total: 1, ids: ['cat'] });
      expect(await userIds(store, { channel: 'webchat', from: ms(2, 0), to: ms(3, 0) })).toEqual({ total: 1, ids: ['ann'] });
    });
  });

  it('narrows users by the platform and channel of the day, not the user\'s latest', async () => {
    await withStore(await fresh(), async (store) => {
      await appendEach(store, [
        msg({ user: 'dan', at: at(1, 10), channel: 'webchat' }),
        msg({ user: 'dan', at: at(3, 10), platform: 'twitter', channel: 'msteams' }),
        msg({ user: 'eve', at: at(3, 10), channel: 'webchat' }),
      ]);
      expect(await userIds(store, { platform: 'universal' })).toEqual({ total: 2, ids: ['dan', 'eve'] });
      expect(await userIds(store, { platform: 'universal', to: ms(2, 0) })).toEqual({ total: 1, ids: ['dan'] });
      expect(await userIds(store, { platform: 'universal', from: ms(2, 0) })).toEqual({ total: 1, ids: ['eve'] });
      expect(await userIds(store, { channel: 'webchat', from: ms(2, 0) })).toEqual({ total: 1, ids: ['eve'] });
      expect(await userIds(store, { channel: 'msteams' })).toEqual({ total: 1, ids: ['dan'] });
      expect(await userIds(store, { platform: 'universal', channel: 'msteams' })).toEqual({ total: 0, ids: [] });
    });
  });

  it('lists conversations most recently active first, with their users in order of arrival', async () => {
    await withStore(await fresh(), async (store) => {
      expect(await listConversations(store, {}, 10)).toEqual({ total: 0, conversations: [] });
      await fill(store);
      await appendEach(store, [msg({ user: 'dan', at: at(2, 11), text: 'me too', channel: 'webchat', conversation: 'c1' })]);
      const { total, conversations } = await listConversations(store, {}, 10);
      expect(total).toBe(3);
      expect(conversations).toEqual([
        { conversationId: 'c3', bot: OTHER_BOT, userIds: ['cat'], platform: 'sms', channel: null, firstActivity: at(4, 10), lastActivity: at(4, 10), messages: 1, events: 0 },
        { conversationId: 'c2', bot: BOT, userIds: ['bob'], platform: 'twitter', channel: 'msteams', firstActivity: at(3, 10), lastActivity: at(3, 10), messages: 1, events: 0 },
        { conversationId: 'c1', bot: BOT, userIds: ['ann', 'dan'], platform: 'universal', channel: 'webchat', firstActivity: at(1, 10), lastActivity: at(2, 11), messages: 4, events: 0 },
      ]);
      expect(await conversationIds(store, {}, 1)).toEqual({ total: 3, ids: ['c3'] });
    });
  });

  it('orders conversations active at the same moment by id, and gives each its own users', async () => {
    await withStore(await fresh(), async (store) => {
      await appendEach(store, [
        msg({ user: 'u1', at: at(1, 9), conversation: 'zz' }),
        msg({ user: 'u2', at: at(1, 9), conversation: 'aa' }),
        msg({ user: 'u3', at: at(1, 8), conversation: 'mm' }),
        msg({ user: 'u3', at: at(1, 8), conversation: 'mm', bot: OTHER_BOT }),
      ]);
      const { total, conversations } = await listConversations(store, {}, 10);
      expect(total).toBe(4);
      expect(conversations.slice(0, 2).map((c) => [c.conversationId, c.bot, c.userIds])).toEqual([['aa', BOT, ['u2']], ['zz', BOT, ['u1']]]);
      expect(conversations.slice(2).map((c) => [c.conversationId, c.userIds])).toEqual([['mm', ['u3']], ['mm', ['u3']]]);
      expect(new Set(conversations.slice(2).map((c) => c.bot))).toEqual(new Set([BOT, OTHER_BOT]));
    });
  });

  it('narrows conversations by bot, bots, platform, channel and intent', async () => {
    await withStore(await fresh(), async (store) => {
      await fill(store);
      expect(await conversationIds(store, { bot: BOT })).toEqual({ total: 2, ids: ['c2', 'c1'] });
      expect(await conversationIds(store, { bots: [OTHER_BOT] })).toEqual({ total: 1, ids: ['c3'] });
      expect(await conversationIds(store, { bots: [] })).toEqual({ total: 0, ids: [] });
      expect(await conversationIds(store, { platform: 'twitter' })).toEqual({ total: 1, ids: ['c2'] });
      expect(await conversationIds(store, { platform: 'sms' })).toEqual({ total: 1, ids: ['c3'] });
      expect(await conversationIds(store, { platform: 'sms', bot: BOT })).toEqual({ total: 0, ids: [] });
      expect(await conversationIds(store, { platform: 'facebook' })).toEqual({ total: 0, ids: [] });
      expect(await conversationIds(store, { channel: 'webchat' })).toEqual({ total: 1, ids: ['c1'] });
      expect(await conversationIds(store, { channel: 'msteams', platform: 'twitter' })).toEqual({ total: 1, ids: ['c2'] });
      expect(await conversationIds(store, { channel: 'msteams', platform: 'universal' })).toEqual({ total: 0, ids: [] });
      expect(await conversationIds(store, { intent: 'greet' })).toEqual({ total: 1, ids: ['c1'] });
      expect(await conversationIds(store, { intent: 'buy' })).toEqual({ total: 1, ids: ['c2'] });
      expect(await conversationIds(store, { intent: 'buy', channel: 'webchat' })).toEqual({ total: 0, ids: [] });
      expect(await conversationIds(store, { intent: 'greet', platform: 'universal' })).toEqual({ total: 1, ids: ['c1'] });
      expect(await conversationIds(store, { intent: 'none' })).toEqual({ total: 0, ids: [] });
      expect(await conversationIds(store, { intent: 'greet' }, 0)).toEqual({ total: 1, ids: [] });
    });
  });

  it('finds a conversation by a platform, channel or intent of any of its entries, not only its latest', async () => {
    await withStore(await fresh(), async (store) => {
      await appendEach(store, [
        msg({ user: 'dan', at: at(1, 10), channel: 'webchat', conversation: 'mixed', intent: 'greet' }),
        msg({ user: 'dan', at: at(2, 10), platform: 'twitter', channel: 'msteams', conversation: 'mixed' }),
        msg({ user: 'eve', at: at(1, 11), platform: 'twitter', channel: 'msteams', conversation: 'tw', intent: 'buy' }),
        msg({ user: 'eve', at: at(1, 12), channel: 'webchat', conversation: 'web' }),
      ]);
      expect(await conversationIds(store, { platform: 'universal' })).toEqual({ total: 2, ids: ['mixed', 'web'] });
      expect(await conversationIds(store, { platform: 'twitter' })).toEqual({ total: 2, ids: ['mixed', 'tw'] });
      expect(await conversationIds(store, { channel: 'webchat' })).toEqual({ total: 2, ids: ['mixed', 'web'] });
      expect(await conversationIds(store, { channel: 'msteams' })).toEqual({ total: 2, ids: ['mixed', 'tw'] });
      expect(await conversationIds(store, { platform: 'universal', channel: 'webchat' })).toEqual({ total: 2, ids: ['mixed', 'web'] });
      expect(await conversationIds(store, { platform: 'universal', intent: 'greet' })).toEqual({ total: 1, ids: ['mixed'] });
      expect(await conversationIds(store, { platform: 'twitter', intent: 'greet' })).toEqual({ total: 0, ids: [] });
      expect(await conversationIds(store, { channel: 'msteams', intent: 'greet' })).toEqual({ total: 0, ids: [] });
      expect(await conversationIds(store, { platform: 'twitter', intent: 'buy' })).toEqual({ total: 1, ids: ['tw'] });
      expect(await conversationIds(store, { channel: 'msteams', intent: 'buy' })).toEqual({ total: 1, ids: ['tw'] });
    });
  });

  it('finds a conversation by a platform and a channel of one entry, and a channel within the bots asked', async () => {
    await withStore(await fresh(), async (store) => {
      await appendEach(store, [
        msg({ user: 'dan', at: at(1, 10), platform: 'twitter', channel: 'msteams', conversation: 'both' }),
        // On twitter and on msteams, but never both in one entry.
        msg({ user: 'eve', at: at(1, 11), channel: 'msteams', conversation: 'split' }),
        msg({ user: 'eve', at: at(1, 12), platform: 'twitter', channel: 'webchat', conversation: 'split' }),
        msg({ user: 'fay', at: at(1, 13), channel: 'msteams', conversation: 'other', bot: OTHER_BOT }),
      ]);
      expect(await conversationIds(store, { platform: 'twitter', channel: 'msteams' })).toEqual({ total: 1, ids: ['both'] });
      expect(await conversationIds(store, { channel: 'msteams' })).toEqual({ total: 3, ids: ['other', 'split', 'both'] });
      expect(await conversationIds(store, { channel: 'msteams', bots: [BOT] })).toEqual({ total: 2, ids: ['split', 'both'] });
      expect(await conversationIds(store, { channel: 'msteams', bot: OTHER_BOT })).toEqual({ total: 1, ids: ['other'] });
    });
  });

  it('narrows conversations to those active in the range: from on its last activity, to on its first', async () => {
    await withStore(await fresh(), async (store) => {
      await fill(store);
      expect(await conversationIds(store, { from: ms(2, 10) })).toEqual({ total: 3, ids: ['c3', 'c2', 'c1'] });
      expect(await conversationIds(store, { from: ms(2, 10) + 1 })).toEqual({ total: 2, ids: ['c3', 'c2'] });
      expect(await conversationIds(store, { to: ms(3, 10) })).toEqual({ total: 1, ids: ['c1'] });
      expect(await conversationIds(store, { to: ms(3, 10) + 1 })).toEqual({ total: 2, ids: ['c2', 'c1'] });
      expect(await conversationIds(store, { to: ms(1, 10) })).toEqual({ total: 0, ids: [] });
      expect(await conversationIds(store, { from: ms(1, 12), to: ms(1, 13) })).toEqual({ total: 1, ids: ['c1'] });
      expect(await conversationIds(store, { from: ms(5, 0) })).toEqual({ total: 0, ids: [] });
      expect(await conversationIds(store, { platform: 'twitter', from: ms(3, 11) })).toEqual({ total: 0, ids: [] });
    });
  });

  it('gives the users of more than 300 conversations in one list', async () => {
    await withStore(await fresh(), async (store) => {
      const records = [];
      for (let i = 0; i < 305; i++) records.push(msg({ user: `u${String(i).padStart(3, '0')}`, at: new Date(ms(1, 0) + i * 1000).toISOString(), conversation: `k${String(i).padStart(3, '0')}` }));
      await Promise.all(records.map((record) => store.append(record)));
      const { total, conversations } = await listConversations(store, {}, 400);
      expect(total).toBe(305);
      expect(conversations.map((c) => c.userIds)).toEqual(records.map((_, i) => [`u${String(304 - i).padStart(3, '0')}`]));
    });
  });

  it('searches text ignoring case, newest first; by user id or name; within the filter', async () => {
    await withStore(await fresh(), async (store) => {
      expect(await search(store, {}, { text: 'hello' }, 10)).toEqual({ results: [], more: false });
      await fill(store);
      const { results, more } = await search(store, {}, { text: 'hello' }, 10);
      expect(more).toBe(false);
      expect(results.map((r) => [r.text, r.bot, r.userId, r.conversationId])).toEqual([['HELLO again', BOT, 'bob', 'c2'], ['Hello world', BOT, 'ann', 'c1']]);
      expect(await found(store, {}, { text: 'hello' }, 1)).toEqual({ texts: ['HELLO again'], more: true });
      expect(await found(store, {}, { text: 'hello' }, 2)).toEqual({ texts: ['HELLO again', 'Hello world'], more: false });
      expect(await found(store, {}, { user: 'ann' })).toEqual({ texts: ['bye now', 'hi Ann', 'Hello world'], more: false });
      expect(await found(store, {}, { user: 'LEE' })).toEqual({ texts: ['bye now', 'hi Ann', 'Hello world'], more: false });
      expect(await found(store, {}, { user: 'cat' })).toEqual({ texts: ['nothing'], more: false });
      expect(await found(store, {}, { user: 'ann', text: 'o' })).toEqual({ texts: ['bye now', 'Hello world'], more: false });
      expect(await found(store, {}, {})).toEqual({ texts: ['nothing', 'HELLO again', 'bye now', 'hi Ann', 'Hello world'], more: false });
      expect(await found(store, { bot: OTHER_BOT }, {})).toEqual({ texts: ['nothing'], more: false });
      expect(await found(store, { bots: [] }, {})).toEqual({ texts: [], more: false });
      expect(await found(store, { platform: 'twitter' }, { text: 'hello' })).toEqual({ texts: ['HELLO again'], more: false });
      expect(await found(store, { platform: 'universal' }, {})).toEqual({ texts: ['bye now', 'hi Ann', 'Hello world'], more: false });
      expect(await found(store, { channel: 'webchat' }, { text: 'hello' })).toEqual({ texts: ['Hello world'], more: false });
      expect(await found(store, { channel: 'msteams' }, {})).toEqual({ texts: ['HELLO again'], more: false });
      expect(await found(store, { platform: 'facebook' }, {})).toEqual({ texts: [], more: false });
      expect(await found(store, {}, { text: 'absent' })).toEqual({ texts: [], more: false });
    });
  });

  it('searches within a range: from inclusive, to exclusive', async () => {
    await withStore(await fresh(), async (store) => {
      await fill(store);
      expect(await found(store, { from: ms(3, 10) }, {})).toEqual({ texts: ['nothing', 'HELLO again'], more: false });
      expect(await found(store, { from: ms(3, 10) + 1 }, {})).toEqual({ texts: ['nothing'], more: false });
      expect(await found(store, { to: ms(3, 10) }, {})).toEqual({ texts: ['bye now', 'hi Ann', 'Hello world'], more: false });
      expect(await found(store, { to: ms(3, 10) + 1 }, { text: 'hello' })).toEqual({ texts: ['HELLO again', 'Hello world'], more: false });
      expect(await found(store, { from: ms(1, 10), to: ms(2, 10) }, {})).toEqual({ texts: ['hi Ann', 'Hello world'], more: false });
      expect(await found(store, { from: ms(1, 0), to: ms(5, 0) }, {}, 3)).toEqual({ texts: ['nothing', 'HELLO again', 'bye now'], more: true });
      expect(await found(store, { from: ms(1, 0), to: ms(5, 0) }, {}, 5)).toEqual({ texts: ['nothing', 'HELLO again', 'bye now', 'hi Ann', 'Hello world'], more: false });
      expect(await found(store, { from: ms(5, 0) }, {})).toEqual({ texts: [], more: false });
    });
  });

  it('searches windows of time back to the oldest entry, and stops once enough are found', async () => {
    await withStore(await fresh(), async (store) => {
      // Latest at day 9; older ones 1 h, 7 h, 2 days and 8 days before: each in a later window.
      await appendEach(store, [
        msg({ user: 'a', at: '2026-03-01T00:00:00.000Z', text: 'w oldest' }),
        msg({ user: 'a', at: '2026-03-07T00:00:00.000Z', text: 'w old' }),
        msg({ user: 'a', at: '2026-03-08T17:00:00.000Z', text: 'w earlier' }),
        msg({ user: 'a', at: '2026-03-08T23:00:00.000Z', text: 'w recent' }),
        msg({ user: 'a', at: '2026-03-09T00:00:00.000Z', text: 'w latest' }),
      ]);
      expect(await found(store, {}, { text: 'w ' })).toEqual({ texts: ['w latest', 'w recent', 'w earlier', 'w old', 'w oldest'], more: false });
      expect(await found(store, {}, { text: 'w ' }, 2)).toEqual({ texts: ['w latest', 'w recent'], more: true });
      expect(await found(store, {}, { text: 'w ' }, 3)).toEqual({ texts: ['w latest', 'w recent', 'w earlier'], more: true });
      expect(await found(store, {}, { text: 'oldest' })).toEqual({ texts: ['w oldest'], more: false });
      expect(await found(store, {}, { text: 'latest' })).toEqual({ texts: ['w latest'], more: false });
    });
  });

  it('orders search results at one moment by arrival, the latest first', async () => {
    await withStore(await fresh(), async (store) => {
      await appendEach(store, [msg({ user: 'a', at: at(1, 10), text: 'x first' }), msg({ user: 'b', at: at(1, 10), text: 'x second' }), msg({ user: 'c', at: at(1, 9), text: 'x third' })]);
      expect(await found(store, {}, { text: 'x' })).toEqual({ texts: ['x second', 'x first', 'x third'], more: false });
      expect(await found(store, { from: ms(1, 0) }, { text: 'x' })).toEqual({ texts: ['x second', 'x first', 'x third'], more: false });
    });
  });

  it('reads a transcript in the order things happened, the latest page first, with a cursor to page back', async () => {
    await withStore(await fresh(), async (store) => {
      expect(await readTranscript(store, { userId: 'ann' }, undefined, 10)).toBeUndefined();
      await fill(store);
      // Arrives last, happened first.
      const [late] = await appendEach(store, [msg({ user: 'ann', at: at(1, 9), text: 'late', channel: 'webchat', conversation: 'c1' })]);
      const whole = await readTranscript(store, { userId: 'ann' }, undefined, 10);
      expect(whole?.entries.map((e) => e.text)).toEqual(['late', 'Hello world', 'hi Ann', 'bye now']);
      expect(whole?.total).toBe(4);
      expect(whole?.before).toBeNull();
      const page = await readTranscript(store, { userId: 'ann' }, undefined, 2);
      expect(page?.entries.map((e) => e.text)).toEqual(['hi Ann', 'bye now']);
      expect(page?.total).toBe(4);
      const first = page!.entries[0];
      expect(page?.before).toBe(`${first.seq}:0`);
      const back = await readTranscript(store, { userId: 'ann' }, undefined, 2, { seq: first.seq, idx: 0 });
      expect(back?.entries.map((e) => e.text)).toEqual(['late', 'Hello world']);
      expect(back?.before).toBeNull();
      const backOne = await readTranscript(store, { userId: 'ann' }, undefined, 1, { seq: first.seq });
      expect(backOne?.entries.map((e) => e.text)).toEqual(['Hello world']);
      expect(backOne?.before).toBe(`${backOne!.entries[0].seq}:0`);
      expect((await readTranscript(store, { userId: 'ann' }, undefined, 5, { seq: late.seq }))?.entries).toEqual([]);
      expect(await readTranscript(store, { userId: 'ann' }, undefined, 0)).toEqual({ entries: [], total: 4, before: null });
      // A record of another transcript: its time is the cursor's.
      const bob = (await readTranscript(store, { userId: 'bob' }, undefined, 1))!.entries[0];
      expect((await readTranscript(store, { userId: 'ann' }, undefined, 10, { seq: bob.seq }))?.entries.map((e) => e.text)).toEqual(['late', 'Hello world', 'hi Ann', 'bye now']);
      const cat = (await readTranscript(store, { userId: 'cat' }, undefined, 1))!.entries[0];
      expect((await readTranscript(store, { userId: 'bob' }, undefined, 10, { seq: cat.seq }))?.entries.map((e) => e.text)).toEqual(['HELLO again']);
      expect((await readTranscript(store, { userId: 'cat' }, undefined, 10, { seq: bob.seq }))?.entries).toEqual([]);
      // A record no longer kept: every entry is before it.
      expect((await readTranscript(store, { userId: 'ann' }, undefined, 10, { seq: 999_999 }))?.entries.map((e) => e.text)).toEqual(['late', 'Hello world', 'hi Ann', 'bye now']);
    });
  });

  it('reads a conversation\'s transcript, of the bots asked', async () => {
    await withStore(await fresh(), async (store) => {
      await fill(store);
      await appendEach(store, [msg({ user: 'dan', at: at(2, 11), text: 'me too', conversation: 'c1' }), msg({ user: 'dan', at: at(2, 12), text: 'other bot', conversation: 'c1', bot: OTHER_BOT })]);
      const conversation = await readTranscript(store, { conversationId: 'c1' }, undefined, 10);
      expect(conversation?.entries.map((e) => e.text)).toEqual(['Hello world', 'hi Ann', 'bye now', 'me too', 'other bot']);
      expect(conversation?.total).toBe(5);
      expect((await readTranscript(store, { conversationId: 'c1' }, [BOT], 10))?.entries.map((e) => e.text)).toEqual(['Hello world', 'hi Ann', 'bye now', 'me too']);
      expect((await readTranscript(store, { conversationId: 'c1' }, [OTHER_BOT], 10))?.total).toBe(1);
      expect(await readTranscript(store, { conversationId: 'c3' }, [BOT], 10)).toBeUndefined();
      expect(await readTranscript(store, { conversationId: 'c9' }, undefined, 10)).toBeUndefined();
      expect((await readTranscript(store, { userId: 'dan' }, [BOT], 10))?.entries.map((e) => e.text)).toEqual(['me too']);
    });
  });

  it('pages back through a record of several entries by its place in the record', async () => {
    await withStore(await fresh(), async (store) => {
      await fill(store);
      const all = (await readTranscript(store, { conversationId: 'c1' }, undefined, 10))!;
      const last = all.entries[2];
      const page = await readTranscript(store, { conversationId: 'c1' }, undefined, 10, { seq: last.seq, idx: 0 });
      expect(page?.entries.map((e) => e.text)).toEqual(['Hello world', 'hi Ann']);
      expect((await readTranscript(store, { conversationId: 'c1' }, undefined, 10, { seq: last.seq, idx: 5 }))?.entries.map((e) => e.text)).toEqual(['Hello world', 'hi Ann', 'bye now']);
    });
  });
});
