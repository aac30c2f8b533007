/**
 * Retention: deleting what happened before a cutoff, records and everything the views hold of
 * them, in one transaction that holds the right to build the views (so no projection runs
 * halfway through it, on any endpoint).
 */
import type { Backend } from './backend.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;

/**
 * Deletes what happened before `cutoff` (ms): records, their entries, and the counts over them;
 * users and conversations not active since are forgotten, and the others' first activity and
 * counts are recomputed from what is left. Resolves with the records deleted. Records still marked
 * unprojected that it deletes are simply never added to the views.
 */
export function deleteBefore(backend: Backend, cutoff: number): Promise<number> {
  return backend.db.transaction().execute(async (trx) => {
    await backend.lockProjection(trx, true);
    const deleted = await trx.deleteFrom('records').where('occurred_at', '<', cutoff).executeTakeFirst();
    await trx.deleteFrom('entries').where('occurred_at', '<', cutoff).execute();
    await trx.deleteFrom('counts').where((eb) => eb.or([
      eb.and([eb('width', '=', 'h'), eb('at', '<=', cutoff - HOUR)]),
      eb.and([eb('width', '=', 'd'), eb('at', '<=', cutoff - DAY)]),
    ])).execute();
    await trx.deleteFrom('user_days').where('day', '<=', cutoff - DAY).execute();
    await trx.deleteFrom('user_weeks').where('week', '<=', cutoff - 7 * DAY).execute();
    await trx.deleteFrom('daily_messages').where('day', '<=', cutoff - DAY).execute();
    await trx.deleteFrom('daily_clicks').where('day', '<=', cutoff - DAY).execute();
    await trx.deleteFrom('button_labels').where('offered_at', '<', cutoff).execute();
    // Sessions go with the day they started, so that the per-day figures stay their sums.
    const cutoffDay = Math.floor(cutoff / DAY) * DAY;
    await trx.deleteFrom('sessions').where('start_at', '<', cutoffDay).execute();
    for (const table of ['session_days', 'session_lengths', 'session_paths'] as const) await trx.deleteFrom(table).where('day', '<', cutoffDay).execute();
    await trx.deleteFrom('session_heads').where(({ not, exists, selectFrom }) => not(exists(
      selectFrom('sessions as s').select('s.id').whereRef('s.id', '=', 'session_heads.session_id'),
    ))).execute();
    await trx.deleteFrom('users').where('last_at', '<', cutoff).execute();
    await trx.deleteFrom('conversations').where('last_at', '<', cutoff).execute();
    await trx.deleteFrom('conversation_users').where(({ not, exists, selectFrom }) => not(exists(
      selectFrom('conversations as c').select('c.bot').whereRef('c.bot', '=', 'conversation_users.bot').whereRef('c.conversation_id', '=', 'conversation_users.conversation_id'),
    ))).execute();
    // A conversation keeps a channel while it keeps an entry on that channel.
    await trx.deleteFrom('conversation_channels').where(({ not, exists, selectFrom }) => not(exists(
      selectFrom('entries as e').select('e.seq').whereRef('e.conversation_id', '=', 'conversation_channels.conversation_id')
        .whereRef('e.bot', '=', 'conversation_channels.bot').whereRef('e.channel', '=', 'conversation_channels.channel'),
    ))).execute();
    await trx.updateTable('users').where('first_at', '<', cutoff).set((eb) => ({
      first_at: eb.fn.coalesce(
        eb.selectFrom('entries as e').select((e) => e.fn.min('e.occurred_at').as('t')).whereRef('e.user_id', '=', 'users.user_id').whereRef('e.bot', '=', 'users.bot'),
        eb.ref('users.last_at'),
      ),
      messages: eb.selectFrom('entries as e').select((e) => e.fn.countAll<number>().as('n')).whereRef('e.user_id', '=', 'users.user_id').whereRef('e.bot', '=', 'users.bot').where('e.direction', '<>', 'event'),
      events: eb.selectFrom('entries as e').select((e) => e.fn.countAll<number>().as('n')).whereRef('e.user_id', '=', 'users.user_id').whereRef('e.bot', '=', 'users.bot').where('e.direction', '=', 'event'),
    })).execute();
    await trx.updateTable('conversations').where('first_at', '<', cutoff).set((eb) => ({
      first_at: eb.fn.coalesce(
        eb.selectFrom('entries as e').select((e) => e.fn.min('e.occurred_at').as('t')).whereRef('e.conversation_id', '=', 'conversations.conversation_id').whereRef('e.bot', '=', 'conversations.bot'),
        eb.ref('conversations.last_at'),
      ),
      messages: eb.selectFrom('entries as e').select((e) => e.fn.countAll<number>().as('n')).whereRef('e.conversation_id', '=', 'conversations.conversation_id').whereRef('e.bot', '=', 'conversations.bot').where('e.direction', '<>', 'event'),
      events: eb.selectFrom('entries as e').select((e) => e.fn.countAll<number>().as('n')).whereRef('e.conversation_id', '=', 'conversations.conversation_id').whereRef('e.bot', '=', 'conversations.bot').where('e.direction', '=', 'event'),
    })).execute();
    if (Number(deleted.numDeletedRows) > 0) {
      // The all-time message counts are those of the days left.
      await trx.deleteFrom('message_totals').execute();
      await trx.insertInto('message_totals').columns(['bot', 'platform', 'channel', 'text_key', 'intent', 'text', 'count'])
        .expression((eb) => eb.selectFrom('daily_messages')
          .select(['bot', 'platform', 'channel', 'text_key', 'intent', (s) => s.fn.max('text').as('text'), (s) => s.fn.sum<number>('count').as('count')])
          .groupBy(['bot', 'platform', 'channel', 'text_key', 'intent']))
        .execute();
    }
    return Number(deleted.numDeletedRows);
  });
}
