/**
 * What a feedback event is about, found as it is stored, so the feedback view needs no lookups:
 * the intent of the reply it rates (when the bot set one), else the intent of the user's last
 * message before that reply (by when they happened), in the same conversation (or before the
 * feedback, when the reply is not known). A reply or a message that arrives after the feedback
 * that rates it (late) has the feedback looked at again, so the answer does not depend on the
 * order records arrive in.
 */
import type { Transaction } from 'kysely';
import type { Database, EntriesTable } from './schema.js';

/** Conversations (and activity ids) looked up per statement when looking for feedback to rate again. */
const PER_STATEMENT = 100;

type Rated = Pick<EntriesTable, 'seq' | 'idx' | 'bot' | 'conversation_id' | 'occurred_at' | 'reply_to'>;

/** Finds and sets the rated intent of one feedback entry already written in `trx`. */
async function rate(trx: Transaction<Database>, entry: Rated): Promise<void> {
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

/**
 * Sets `rated_intent` on the feedback entries of a batch already written in `trx`, and again on
 * those stored before that the batch's entries may answer otherwise: feedback in a conversation
 * where the batch brings a message with an intent that happened before it, and feedback on a reply
 * the batch brings.
 */
export async function rateFeedback(trx: Transaction<Database>, entries: readonly EntriesTable[]): Promise<void> {
  const inBatch = new Set<string>();
  for (const entry of entries) {
    if (entry.reaction === null) continue;
    // Stryker disable next-line StringLiteral: a batch's rating looked at again gives the same answer
    inBatch.add(`${entry.seq}:${entry.idx}`);
    await rate(trx, entry);
  }
  // The first and last message with an intent per conversation, and the replies, that the batch brings.
  const earliest = new Map<string, { bot: string; conversation: string; at: number; last: Rated }>();
  const replies = new Map<string, { ids: Set<string>; at: number }>();
  for (const entry of entries) {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: only narrows the ratings looked at again (each is found exactly, by rate): a wider set gives the same answers
    if (entry.direction === 'incoming' && entry.intent !== null) {
      const key = `${entry.bot}\u0000${entry.conversation_id}`;
      const seen = earliest.get(key);
      if (seen === undefined) earliest.set(key, { bot: entry.bot, conversation: entry.conversation_id, at: entry.occurred_at, last: entry });
      else {
        seen.at = Math.min(seen.at, entry.occurred_at);
        if (entry.occurred_at >= seen.last.occurred_at) seen.last = entry;
      }
    }
    // Stryker disable next-line ConditionalExpression,LogicalOperator: only narrows the ratings looked at again (each is found exactly, by rate): a wider set gives the same answers
    if (entry.direction === 'outgoing' && entry.activity_id !== null) {
      const seen = replies.get(entry.bot) ?? { ids: new Set<string>(), at: entry.occurred_at };
      seen.ids.add(entry.activity_id);
      seen.at = Math.min(seen.at, entry.occurred_at);
      replies.set(entry.bot, seen);
    }
  }
  const again = new Map<string, Rated>();
  const conversations = [...earliest.values()];
  // Stryker disable next-line EqualityOperator: one more statement over no conversation finds nothing
  for (let i = 0; i < conversations.length; i += PER_STATEMENT) {
    // Stryker disable next-line MethodExpression: parts only bound each statement's parameters
    const part = conversations.slice(i, i + PER_STATEMENT);
    // The ratings of each conversation since its late message (`reaction is not null` in each term, so
    // that SQLite reads each from the partial index entries_conversation_ratings, as PostgreSQL does).
    const rows = await trx.selectFrom('entries').select(['seq', 'idx', 'bot', 'conversation_id', 'occurred_at', 'reply_to'])
      // Stryker disable next-line ArrayDeclaration: only narrows the ratings looked at again (each is found exactly, by rate): a wider set gives the same answers
      .where((eb) => eb.or(part.map((c) => eb.and([eb('reaction', 'is not', null), eb('conversation_id', '=', c.conversation), eb('bot', '=', c.bot), eb('occurred_at', '>=', c.at)]))))
      .execute();
    // Feedback after a message that arrived late (none for messages in order). Only feedback on what
    // happened before the conversation's next message with an intent can be about the late one.
    const found = new Map<string, Rated[]>();
    for (const row of rows) {
      const key = `${row.bot}\u0000${row.conversation_id}`;
      // Stryker disable next-line ArrayDeclaration: an item that is no rating has no time and is never looked at again
      found.set(key, [...(found.get(key) ?? []), { ...row, seq: Number(row.seq), idx: Number(row.idx), occurred_at: Number(row.occurred_at) }]);
    }
    for (const [key, candidates] of found) {
      const { bot, conversation, at, last } = earliest.get(key)!;
      const next = await trx.selectFrom('entries').select('occurred_at')
        // Stryker disable next-line StringLiteral: no next message is no bound: only narrows the ratings looked at again (each is found exactly, by rate): a wider set gives the same answers
        .where('conversation_id', '=', conversation).where('bot', '=', bot).where('direction', '=', 'incoming').where('intent', 'is not', null)
        .where((eb) => eb(eb.refTuple('occurred_at', 'seq', 'idx'), '>', eb.tuple(last.occurred_at, last.seq, last.idx)))
        .orderBy('occurred_at').orderBy('seq').orderBy('idx').limit(1).executeTakeFirst();
      // Stryker disable next-line ConditionalExpression: only narrows the ratings looked at again (each is found exactly, by rate): a wider set gives the same answers
      const until = next === undefined ? Number.POSITIVE_INFINITY : Number(next.occurred_at);
      // Stryker disable next-line ConditionalExpression,ArrayDeclaration: looking up a reply that no rating names finds none it uses
      const ids = [...new Set(candidates.flatMap((c) => (c.reply_to === null ? [] : [c.reply_to])))];
      const replyAt = new Map<string, number>();
      // Stryker disable next-line EqualityOperator: one more statement over no id finds nothing
      for (let j = 0; j < ids.length; j += PER_STATEMENT) {
        // Stryker disable next-line MethodExpression: parts only bound each statement's parameters
        const found = await trx.selectFrom('entries').select(['activity_id', 'occurred_at']).where('activity_id', 'in', ids.slice(j, j + PER_STATEMENT)).where('bot', '=', bot).where('direction', '=', 'outgoing').execute();
        for (const reply of found) replyAt.set(reply.activity_id!, Number(reply.occurred_at));
      }
      for (const candidate of candidates) {
        // Stryker disable next-line ConditionalExpression: no reply is looked up for a null id
        const anchor = candidate.reply_to === null ? undefined : replyAt.get(candidate.reply_to);
        const when = anchor ?? candidate.occurred_at;
        if (when >= at && when <= until) again.set(`${candidate.seq}:${candidate.idx}`, candidate);
      }
    }
  }
  for (const [bot, { ids, at }] of replies) {
    const list = [...ids];
    // Stryker disable next-line EqualityOperator: one more statement over no id finds nothing
    for (let i = 0; i < list.length; i += PER_STATEMENT) {
      const rows = await trx.selectFrom('entries').select(['seq', 'idx', 'bot', 'conversation_id', 'occurred_at', 'reply_to']).where('reaction', 'is not', null)
        // Stryker disable next-line MethodExpression: parts only bound each statement's parameters
        .where('bot', '=', bot).where('occurred_at', '>=', at).where('reply_to', 'in', list.slice(i, i + PER_STATEMENT))
        .execute();
      for (const row of rows) again.set(`${row.seq}:${row.idx}`, row);
    }
  }
  for (const [key, row] of again) {
    // Stryker disable next-line ConditionalExpression: a batch's rating looked at again gives the same answer
    if (!inBatch.has(key)) await rate(trx, { ...row, seq: Number(row.seq), idx: Number(row.idx), occurred_at: Number(row.occurred_at) });
  }
}
