/**
 * Events carry no channel of their own (the spec's event has no `platformJson`): an event takes
 * the channel of its conversation, else of its user, so that narrowing any view to a channel keeps
 * the purchases and ratings made there: the channel of the latest message that has one, from the
 * messages in the same batch first, else from what the database knows (the conversation's, then
 * the user's).
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
  // The channel of the latest entry (by when it happened; of two at one moment, the later in the batch) that has one, per conversation and per user.
  const known = new Map<string, { channel: string; at: number }>();
  const see = (k: string, entry: EntriesTable) => {
    const seen = known.get(k);
    if (seen === undefined || entry.occurred_at >= seen.at) known.set(k, { channel: entry.channel, at: entry.occurred_at });
  };
  for (const entry of entries) {
    if (entry.channel === '') continue;
    see(key('c', entry.bot, entry.conversation_id), entry);
    see(key('u', entry.bot, entry.user_id), entry);
  }
  // The conversation comes first, from the batch, else as stored; then the user, likewise.
  const stored = new Map<string, string>();
  const conversationsToRead = events.filter((event) => !known.has(key('c', event.bot, event.conversation_id)));
  const usersToRead = conversationsToRead.filter((event) => !known.has(key('u', event.bot, event.user_id)));
  for (let i = 0; i < conversationsToRead.length; i += 300) {
    // Stryker disable next-line MethodExpression: parts only bound each statement's parameters; looking up every missing event in each part finds the same rows.
    const part = conversationsToRead.slice(i, i + 300);
    const rows = await trx.selectFrom('conversations').select(['bot', 'conversation_id', 'channel']).where('channel', '<>', '')
      .where((eb) => eb(eb.refTuple('bot', 'conversation_id'), 'in', part.map((e) => eb.tuple(e.bot, e.conversation_id)))).execute();
    for (const row of rows) stored.set(key('c', row.bot, row.conversation_id), row.channel);
  }
  for (let i = 0; i < usersToRead.length; i += 300) {
    const part = usersToRead.slice(i, i + 300);
    // Stryker disable next-line StringLiteral: a user stored without a channel gives the event '' either way (its fallback), and only users the batch does not know are read.
    const rows = await trx.selectFrom('users').select(['bot', 'user_id', 'channel']).where('channel', '<>', '')
      .where((eb) => eb(eb.refTuple('bot', 'user_id'), 'in', part.map((e) => eb.tuple(e.bot, e.user_id)))).execute();
    for (const row of rows) stored.set(key('u', row.bot, row.user_id), row.channel);
  }
  for (const event of events) {
    const conversation = key('c', event.bot, event.conversation_id);
    const user = key('u', event.bot, event.user_id);
    event.channel = known.get(conversation)?.channel ?? stored.get(conversation) ?? known.get(user)?.channel ?? stored.get(user) ?? '';
  }
}
