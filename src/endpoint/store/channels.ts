/**
 * Events carry no channel of their own (the spec's event has no `platformJson`): an event takes
 * the channel of its conversation, else of its user, so that narrowing any view to a channel keeps
 * the purchases and ratings made there. The channel comes from the messages in the same batch
 * first, else from what the database knows of the conversation or the user.
 */
import type { Transaction } from 'kysely';
import type { Database, EntriesTable } from './schema.js';

const key = (...parts: string[]) => parts.join('\u0000');

/** Gives each event entry its conversation's (or user's) channel, in place. */
export async function fillEventChannels(trx: Transaction<Database>, batch: readonly EntriesTable[][]): Promise<void> {
  const entries = batch.flat();
  // Every event is one to fill: an event entry has no channel of its own (entries.ts gives it none).
  const events = entries.filter((entry) => entry.direction === 'event');
  // Stryker disable next-line ConditionalExpression: saves the work below for a batch without events, where it would change no entry.
  if (events.length === 0) return;
  // The latest channel seen in this batch, per conversation and per user.
  const known = new Map<string, string>();
  for (const entry of entries) {
    if (entry.channel === '') continue;
    known.set(key('c', entry.bot, entry.conversation_id), entry.channel);
    known.set(key('u', entry.bot, entry.user_id), entry.channel);
  }
  const missing = events.filter((event) => !known.has(key('c', event.bot, event.conversation_id)) && !known.has(key('u', event.bot, event.user_id)));
  for (let i = 0; i < missing.length; i += 300) {
    // Stryker disable next-line MethodExpression: parts only bound each statement's parameters; looking up every missing event in each part finds the same rows.
    const part = missing.slice(i, i + 300);
    const [conversations, users] = await Promise.all([
      trx.selectFrom('conversations').select(['bot', 'conversation_id', 'channel']).where('channel', '<>', '')
        .where((eb) => eb(eb.refTuple('bot', 'conversation_id'), 'in', part.map((e) => eb.tuple(e.bot, e.conversation_id)))).execute(),
      // Stryker disable next-line StringLiteral: a user stored without a channel gives the event '' either way (its fallback), and only users the batch does not know are read.
      trx.selectFrom('users').select(['bot', 'user_id', 'channel']).where('channel', '<>', '')
        .where((eb) => eb(eb.refTuple('bot', 'user_id'), 'in', part.map((e) => eb.tuple(e.bot, e.user_id)))).execute(),
    ]);
    for (const row of conversations) known.set(key('c', row.bot, row.conversation_id), row.channel);
    // Only users the batch does not know are looked up: what is stored of them is all there is.
    for (const row of users) known.set(key('u', row.bot, row.user_id), row.channel);
  }
  for (const event of events) event.channel = known.get(key('c', event.bot, event.conversation_id)) ?? known.get(key('u', event.bot, event.user_id)) ?? '';
}
