/** Version 4: indexes for the read queries at a million records (see `readIndexes` below). */
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Indexes for the read queries at a million records and more (bench/database.ts, section 6): each
 * view's query reads an index that holds every column it needs, so that a filter by bot, platform
 * or channel never fetches the rows it then leaves out.
 * - Ratings and revenue events (a few per hundred entries): partial indexes of their own, so
 *   `bot=…` reads its ratings rather than every entry of the bot.
 * - Funnel steps, and a conversation's entries (transcripts; whether it has any on a platform or
 *   channel): these indexes also hold platform and channel (they replace those of 0001).
 * - Active users: user_days by day, covering. Top messages: daily_messages and message_totals by
 *   text, covering (the ranking reads them in the order it groups them, without sorting).
 * The planner's statistics are refreshed for what changed (SQLite: `ANALYZE` of each new index;
 * PostgreSQL: `ANALYZE` of the tables).
 */
export function readIndexes(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.createIndex('entries_ratings').on('entries').columns(['bot', 'occurred_at', 'platform', 'channel', 'rated_intent', 'reaction'])
        .where(sql.ref('reaction'), 'is not', null).execute();
      await db.schema.createIndex('entries_revenue').on('entries').columns(['bot', 'occurred_at', 'platform', 'channel', 'user_id', 'currency', 'amount'])
        .where(sql<boolean>`${sql.ref('event_type')} = ${sql.lit('revenueEvent')} and ${sql.ref('amount')} is not null`).execute();
      await db.schema.dropIndex('entries_intent').execute();
      await db.schema.createIndex('entries_intent_step').on('entries').columns(['intent', 'direction', 'bot', 'user_id', 'occurred_at', 'platform', 'channel']).execute();
      await db.schema.dropIndex('entries_event_name').execute();
      await db.schema.createIndex('entries_event_step').on('entries').columns(['event_name', 'bot', 'user_id', 'occurred_at', 'platform', 'channel']).execute();
      await db.schema.dropIndex('entries_conversation').execute();
      await db.schema.createIndex('entries_conversation_dims').on('entries').columns(['conversation_id', 'seq', 'bot', 'platform', 'channel']).execute();
      await db.schema.dropIndex('user_days_day').execute();
      await db.schema.createIndex('user_days_by_day').on('user_days').columns(['day', 'bot', 'user_id', 'platform', 'channel']).execute();
      await db.schema.dropIndex('daily_messages_day').execute();
      await db.schema.createIndex('daily_messages_text').on('daily_messages').columns(['text_key', 'day', 'bot', 'platform', 'channel', 'intent', 'count']).execute();
      await db.schema.createIndex('message_totals_key').on('message_totals').columns(['text_key', 'intent', 'bot', 'platform', 'channel', 'count']).execute();
      if (dialect === 'sqlite') {
        // Each new index on its own: a sampled ANALYZE of the whole database (analysis_limit) would
        // blur the statistics of the others (every index then looks as selective as the least).
        for (const index of ['entries_ratings', 'entries_revenue', 'entries_intent_step', 'entries_event_step', 'entries_conversation_dims', 'user_days_by_day', 'daily_messages_text', 'message_totals_key']) {
          await sql`analyze ${sql.id(index)}`.execute(db);
        }
      } else {
        await sql`analyze entries, user_days, daily_messages, message_totals`.execute(db);
      }
    },
  };
}
