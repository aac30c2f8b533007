/** Version 6: indexes for reading records in the order they happened (see `timeOrder` below). */
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Transcripts are read by when their entries happened (then arrival), not by arrival alone, and a
 * record that arrives late re-derives its user's sessions around its time (store/sessions.ts):
 * - `entries_user_time`, `entries_conversation_time`: a user's or a conversation's entries by time
 *   and arrival, so a transcript's latest page, a page back from a cursor, and the entries of one
 *   user's window of time are each one range of an index.
 * - `sessions_user_time`: one user's sessions in one conversation by start, for the sessions a late
 *   record may touch.
 */
export function timeOrder(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.createIndex('entries_user_time').on('entries').columns(['user_id', 'occurred_at', 'seq', 'idx']).execute();
      await db.schema.createIndex('entries_conversation_time').on('entries').columns(['conversation_id', 'occurred_at', 'seq', 'idx']).execute();
      await db.schema.createIndex('sessions_user_time').on('sessions').columns(['user_id', 'conversation_id', 'bot', 'start_at']).execute();
      if (dialect === 'sqlite') {
        for (const index of ['entries_user_time', 'entries_conversation_time', 'sessions_user_time']) await sql`analyze ${sql.id(index)}`.execute(db);
      } else {
        await sql`analyze entries, sessions`.execute(db);
      }
    },
  };
}
