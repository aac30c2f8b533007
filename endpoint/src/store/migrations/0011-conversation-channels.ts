/** Version 11: the channels each conversation has entries on (see `conversationChannels` below). */
import { sql, type Kysely, type Migration } from 'kysely';

/**
 * `conversation_channels`: one row per conversation and channel it has an entry on. The list of
 * conversations narrowed to a channel counts them from here (an index range of that channel)
 * rather than by looking, for every conversation, through its entries for one on the channel:
 * 67,000 conversations of a million records took 160–250 ms that way. Filled from the entries
 * already stored; written with every entry from now on (store/rows.ts), in any order of arrival.
 */
export function conversationChannels(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.createTable('conversation_channels')
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('conversation_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('conversation_channels_pk', ['channel', 'bot', 'conversation_id'])
        .execute();
      await sql`insert into conversation_channels (channel, bot, conversation_id)
        select distinct channel, bot, conversation_id from entries where channel <> '' and conversation_id <> ''`.execute(db);
      // Stryker disable next-line all: statistics only steer the plans; no answer depends on them
      await sql`analyze conversation_channels`.execute(db);
    },
  };
}
