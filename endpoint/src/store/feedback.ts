/**
 * What a feedback event is about, found once, as it is stored, so the feedback view needs no
 * lookups: the intent of the reply it rates (when the bot set one), else the intent of the user's
 * last message before that reply (by when they happened), in the same conversation (or before the
 * feedback, when the reply is not known). It is found among the entries stored when the feedback
 * is: a reply or a message that arrives after the feedback that rates it is not looked at again.
 */
import type { Transaction } from 'kysely';
import type { Database, EntriesTable } from './schema.js';

/** Sets `rated_intent` on the feedback entries of a batch already written in `trx`. */
export async function rateFeedback(trx: Transaction<Database>, entries: readonly EntriesTable[]): Promise<void> {
  for (const entry of entries) {
    if (entry.reaction === null) continue;
    // Stryker disable next-line ConditionalExpression: saves a query; looking up a reply with a null id finds none (SQL's = null is never true).
    const reply = entry.reply_to === null ? undefined : await trx.selectFrom('entries')
      .select(['seq', 'idx', 'occurred_at', 'intent', 'conversation_id'])
      .where('activity_id', '=', entry.reply_to).where('bot', '=', entry.bot).where('direction', '=', 'outgoing')
      .orderBy('seq', 'desc').limit(1).executeTakeFirst();
    let intent = reply?.intent ?? null;
    if (intent === null) {
      const before = await trx.selectFrom('entries').select('intent')
        .where('conversation_id', '=', reply?.conversation_id ?? entry.conversation_id).where('bot', '=', entry.bot)
        .where('direction', '=', 'incoming').where('intent', 'is not', null)
        .where((eb) => eb(eb.refTuple('occurred_at', 'seq', 'idx'), '<', reply === undefined ? eb.tuple(entry.occurred_at, entry.seq, entry.idx) : eb.tuple(Number(reply.occurred_at), Number(reply.seq), Number(reply.idx))))
        .orderBy('occurred_at', 'desc').orderBy('seq', 'desc').orderBy('idx', 'desc').limit(1).executeTakeFirst();
      intent = before?.intent ?? null;
    }
    // Stryker disable next-line ConditionalExpression: saves an update; setting rated_intent to null leaves it null, as stored.
    if (intent !== null) await trx.updateTable('entries').set({ rated_intent: intent }).where('seq', '=', entry.seq).where('idx', '=', entry.idx).execute();
  }
}
