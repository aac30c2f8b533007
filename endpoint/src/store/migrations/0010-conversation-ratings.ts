/** Version 8: a conversation's ratings by time (see `conversationRatings` below). */
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * `entries_conversation_ratings`: the ratings of one conversation by time. A message that arrives
 * late looks again at the ratings made in its conversation after it (store/feedback.ts); without
 * this index that read went through every entry of the conversation after the message, so its
 * cost grew with the conversation's history (a long-lived thread: thousands of entries). Only
 * ratings are in it (1–2% of entries), so it costs the write path little.
 */
export function conversationRatings(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.createIndex('entries_conversation_ratings').on('entries').columns(['conversation_id', 'bot', 'occurred_at'])
        .where(sql.ref('reaction'), 'is not', null).execute();
      // Statistics for the query planner (SQLite: this index alone; PostgreSQL analyses tables).
      // Stryker disable next-line all: statistics only steer the plans (checked with EXPLAIN, bench/README.md); no answer depends on them
      await sql.raw(dialect === 'sqlite' ? 'analyze entries_conversation_ratings' : 'analyze entries').execute(db);
    },
  };
}
