/**
 * What a rating is about when the records arrive in any order (store/feedback.ts), read from the
 * stored entries on SQLite: the rated reply's intent, else the intent of the user's last message
 * before that reply (or before the rating), by when things happened; a rating stored before the
 * reply or the message it is about is looked at again when they arrive.
 */
import { describe, expect, it } from 'vitest';
import { BOT, OTHER_BOT, appendEach, appendTogether, databases, ev, msg, withStore } from './databases.js';
import type { NewRecord, RecordStore } from '../../src/store/store.js';

const [SQLITE] = databases();
const T = '2026-03-02T10:00:00.000Z';
const at = (minutes: number, ms = 0) => new Date(Date.parse(T) + minutes * 60_000 + ms).toISOString();
const rating = (user: string, minutes: number, extraInfo: Record<string, unknown>, conversation = `c-${user}`, bot = BOT): NewRecord =>
  ev(user, 'feedback', at(minutes), { extraInfo: { timestamp: at(minutes), reaction: 'like', ...extraInfo } }, conversation, bot);

/** Appends `records`, each in a transaction of its own, and waits until the views hold them (so each later append is a batch of its own). */
async function send(store: RecordStore, records: NewRecord[], together = false): Promise<void> {
  await (together ? appendTogether(store, records) : appendEach(store, records));
  await store.db.selectFrom('entries').select('seq').limit(1).execute();
}

/** Each rating's comment (its name here) and rated intent, in the order they happened. */
async function rated(store: RecordStore): Promise<[string | null, string | null][]> {
  const rows = await store.db.selectFrom('entries').select(['comment', 'rated_intent']).where('reaction', 'is not', null).orderBy('occurred_at').orderBy('seq').execute();
  return rows.map((row) => [row.comment, row.rated_intent]);
}

describe('ratings and the order records arrive in', () => {
  it('rates the reply\'s own intent, else the last message with an intent before the reply, else before the rating; of two at one moment, the later received', async () => {
    await withStore(await SQLITE.fresh(), async (store) => {
      await send(store, [
        msg({ user: 'ann', at: at(0), intent: 'First' }),
        msg({ user: 'ann', at: at(1), intent: 'Tie1' }),
        msg({ user: 'ann', at: at(1), intent: 'Tie2' }),
        msg({ user: 'ann', at: at(1), text: 'no intent' }),
        msg({ user: 'ann', at: at(2), type: 'outgoing', id: 'plain' }),
        msg({ user: 'ann', at: at(3), type: 'outgoing', id: 'own', intent: 'Own' }),
        msg({ user: 'ann', at: at(4), intent: 'Later' }),
        msg({ user: 'ann', at: at(4), type: 'outgoing', intent: 'SameIdElsewhere', id: 'plain', bot: OTHER_BOT }),
        msg({ user: 'ann', at: at(5), intent: 'Outgoing?', type: 'outgoing' }),
      ]);
      await send(store, [
        rating('ann', 6, { feedbackText: 'plain', replyToId: 'plain' }),
        rating('ann', 7, { feedbackText: 'own', replyToId: 'own' }),
        rating('ann', 8, { feedbackText: 'unknown reply', replyToId: 'nowhere' }),
        rating('ann', 9, { feedbackText: 'no reply named' }),
        rating('bob', 9, { feedbackText: 'nothing before' }),
      ]);
      expect(await rated(store)).toEqual([['plain', 'Tie2'], ['own', 'Own'], ['unknown reply', 'Later'], ['no reply named', 'Later'], ['nothing before', null]]);
    });
  });

  it('a message before the rating at the very same moment counts; one at the same moment received after it does not', async () => {
    await withStore(await SQLITE.fresh(), async (store) => {
      await send(store, [msg({ user: 'ann', at: at(0), intent: 'Before' }), msg({ user: 'ann', at: at(1), intent: 'SameMomentFirst' })]);
      await send(store, [rating('ann', 1, { feedbackText: 'r' })]);
      await send(store, [msg({ user: 'ann', at: at(1), intent: 'SameMomentAfter' })]);
      expect(await rated(store)).toEqual([['r', 'SameMomentFirst']]);
    });
  });

  it('a late message with an intent, before the rated reply, changes the rating; one after the reply, or in another conversation or bot, does not', async () => {
    await withStore(await SQLITE.fresh(), async (store) => {
      await send(store, [msg({ user: 'ann', at: at(0), intent: 'Greet' }), msg({ user: 'ann', at: at(3), type: 'outgoing', id: 'r1' }), msg({ user: 'ann', at: at(10), intent: 'Next' })]);
      await send(store, [rating('ann', 5, { feedbackText: 'on r1', replyToId: 'r1' }), rating('ann', 12, { feedbackText: 'on nothing' })]);
      expect(await rated(store)).toEqual([['on r1', 'Greet'], ['on nothing', 'Next']]);
      await send(store, [msg({ user: 'ann', at: at(4), intent: 'AfterTheReply' })]);
      await send(store, [msg({ user: 'ann', at: at(2), intent: 'Elsewhere', conversation: 'other' }), msg({ user: 'ann', at: at(2), intent: 'OtherBot', bot: OTHER_BOT })]);
      expect(await rated(store)).toEqual([['on r1', 'Greet'], ['on nothing', 'Next']]);
      await send(store, [msg({ user: 'ann', at: at(2), intent: 'Order' })]);
      expect(await rated(store)).toEqual([['on r1', 'Order'], ['on nothing', 'Next']]);
      await send(store, [msg({ user: 'ann', at: at(11), intent: 'Last' })]);
      expect(await rated(store)).toEqual([['on r1', 'Order'], ['on nothing', 'Last']]);
    });
  });

  it('a rating given long after, on a reply made before the next message, is looked at again too', async () => {
    await withStore(await SQLITE.fresh(), async (store) => {
      await send(store, [msg({ user: 'ann', at: at(0), intent: 'Greet' }), msg({ user: 'ann', at: at(3), type: 'outgoing', id: 'r1' }), msg({ user: 'ann', at: at(10), intent: 'Next' })]);
      await send(store, [rating('ann', 60, { feedbackText: 'late thumbs', replyToId: 'r1' })]);
      await send(store, [msg({ user: 'ann', at: at(2), intent: 'Order' })]);
      expect(await rated(store)).toEqual([['late thumbs', 'Order']]);
    });
  });

  it('a reply that arrives after the rating gives it its intent, or the message before it; another bot\'s reply of that id does not', async () => {
    await withStore(await SQLITE.fresh(), async (store) => {
      await send(store, [msg({ user: 'ann', at: at(0), intent: 'Greet' }), msg({ user: 'ann', at: at(4), intent: 'AfterBoth' })]);
      await send(store, [rating('ann', 5, { feedbackText: 'a', replyToId: 'ra' }), rating('ann', 6, { feedbackText: 'b', replyToId: 'rb' })]);
      expect(await rated(store)).toEqual([['a', 'AfterBoth'], ['b', 'AfterBoth']]);
      await send(store, [msg({ user: 'ann', at: at(1), type: 'outgoing', id: 'ra', intent: 'Own', bot: OTHER_BOT })]);
      expect(await rated(store)).toEqual([['a', 'AfterBoth'], ['b', 'AfterBoth']]);
      await send(store, [msg({ user: 'ann', at: at(1), type: 'outgoing', id: 'ra', intent: 'Own' }), msg({ user: 'ann', at: at(2), type: 'outgoing', id: 'rb' })], true);
      expect(await rated(store)).toEqual([['a', 'Own'], ['b', 'Greet']]);
    });
  });

  it('looks again at every rating a batch touches, in many conversations at once', async () => {
    await withStore(await SQLITE.fresh(), async (store) => {
      const users = Array.from({ length: 120 }, (_, i) => `u${i}`);
      await send(store, users.map((user) => msg({ user, at: at(3), type: 'outgoing', id: `r-${user}` })), true);
      await send(store, users.map((user) => rating(user, 5, { feedbackText: user, replyToId: `r-${user}` })), true);
      expect((await rated(store)).every(([, intent]) => intent === null)).toBe(true);
      await send(store, users.map((user, i) => msg({ user, at: at(1), intent: `I${i}` })), true);
      const byUser = new Map(await rated(store));
      expect(users.map((user) => byUser.get(user))).toEqual(users.map((_, i) => `I${i}`));
      await send(store, users.map((user, i) => msg({ user, at: at(2), type: 'outgoing', id: `r-${user}`, intent: `Own${i}`, bot: i % 2 === 0 ? BOT : OTHER_BOT })), true);
      const again = new Map(await rated(store));
      expect(users.map((user) => again.get(user))).toEqual(users.map((_, i) => (i % 2 === 0 ? `Own${i}` : `I${i}`)));
    });
  });

  it('a batch of late messages in one conversation: the ratings between its first and last and up to the next message are looked at again; messages get no rated intent', async () => {
    await withStore(await SQLITE.fresh(), async (store) => {
      await send(store, [
        msg({ user: 'ann', at: at(0), intent: 'Greet' }), msg({ user: 'ann', at: at(3), type: 'outgoing', id: 'r3' }),
        msg({ user: 'ann', at: at(7), type: 'outgoing', id: 'r7' }), msg({ user: 'ann', at: at(9), type: 'outgoing', id: 'r9' }), msg({ user: 'ann', at: at(20), intent: 'Next' }),
      ]);
      await send(store, [rating('ann', 30, { feedbackText: 'on r3', replyToId: 'r3' }), rating('ann', 31, { feedbackText: 'on r7', replyToId: 'r7' }), rating('ann', 32, { feedbackText: 'on r9', replyToId: 'r9' })]);
      expect(await rated(store)).toEqual([['on r3', 'Greet'], ['on r7', 'Greet'], ['on r9', 'Greet']]);
      // Two late messages together, received latest first: one before r3, one before r7 and r9.
      await send(store, [msg({ user: 'ann', at: at(6), intent: 'Second' }), msg({ user: 'ann', at: at(2), intent: 'First' })], true);
      expect(await rated(store)).toEqual([['on r3', 'First'], ['on r7', 'Second'], ['on r9', 'Second']]);
      const messages = await store.db.selectFrom('entries').select('rated_intent').where('reaction', 'is', null).execute();
      expect(messages.map((m) => m.rated_intent)).toEqual(messages.map(() => null));
    });
  });

  it('a batch of late replies of one bot: each rating on them gets its reply\'s intent, the earliest reply\'s included', async () => {
    await withStore(await SQLITE.fresh(), async (store) => {
      await send(store, [msg({ user: 'ann', at: at(0), intent: 'Greet' })]);
      await send(store, [rating('ann', 5, { feedbackText: 'on early', replyToId: 'early' }), rating('ann', 31, { feedbackText: 'on later', replyToId: 'later' })]);
      await send(store, [msg({ user: 'ann', at: at(9), type: 'outgoing', id: 'later', intent: 'L' }), msg({ user: 'ann', at: at(1), type: 'outgoing', id: 'early', intent: 'E' })], true);
      expect(await rated(store)).toEqual([['on early', 'E'], ['on later', 'L']]);
    });
  });
});
