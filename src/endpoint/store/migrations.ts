/**
 * The schema's versions, oldest first. Each migration is a plain module (`up`), run once, in
 * order, at start (Kysely's Migrator keeps the list of those applied, and on PostgreSQL a lock,
 * so that several endpoints starting together migrate once). A new version of the schema is a
 * new entry at the end; an entry is never changed once released.
 */
import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { DialectName } from './dialect.js';

/** Column types that differ between the two databases. */
function typesOf(dialect: DialectName) {
  return dialect === 'postgres'
    ? { id: 'bigint', millis: 'bigint', json: 'jsonb', real: 'double precision', int: 'integer' } as const
    : // On SQLite only a column declared exactly INTEGER PRIMARY KEY is the row id (fast, and never reused).
      { id: 'integer', millis: 'integer', json: 'text', real: 'double precision', int: 'integer' } as const;
}

function initial(dialect: DialectName): Migration {
  const t = typesOf(dialect);
  return {
    async up(db: Kysely<any>) {
      if (dialect === 'postgres') await sql`create sequence if not exists record_seq`.execute(db);
      await db.schema
        .createTable('records')
        .addColumn('seq', t.id, (c) => c.primaryKey())
        .addColumn('received_at', t.millis, (c) => c.notNull())
        .addColumn('occurred_at', t.millis, (c) => c.notNull())
        .addColumn('platform', 'text')
        .addColumn('platform_kind', 'text')
        .addColumn('v', 'text')
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('body', t.json, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('records_occurred').on('records').columns(['occurred_at']).execute();

      await db.schema
        .createTable('entries')
        .addColumn('seq', t.id, (c) => c.notNull())
        .addColumn('idx', t.int, (c) => c.notNull())
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('occurred_at', t.millis, (c) => c.notNull())
        .addColumn('received_at', t.millis, (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('direction', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('user_name', 'text')
        .addColumn('conversation_id', 'text', (c) => c.notNull())
        .addColumn('text', 'text')
        .addColumn('text_key', 'text')
        .addColumn('intent', 'text')
        .addColumn('intent_score', t.real)
        .addColumn('clicked_button', 'text')
        .addColumn('ai_generated', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('event_type', 'text')
        .addColumn('event_name', 'text')
        .addColumn('amount', t.real)
        .addColumn('currency', 'text')
        .addColumn('activity_id', 'text')
        .addColumn('reaction', 'text')
        .addColumn('comment', 'text')
        .addColumn('reply_to', 'text')
        .addColumn('rated_intent', 'text')
        .addPrimaryKeyConstraint('entries_pk', ['seq', 'idx'])
        .execute();
      // Transcripts (in the order received), time ranges, and the intent and event views.
      await db.schema.createIndex('entries_user').on('entries').columns(['user_id', 'seq']).execute();
      await db.schema.createIndex('entries_conversation').on('entries').columns(['conversation_id', 'seq']).execute();
      await db.schema.createIndex('entries_time').on('entries').columns(['bot', 'occurred_at']).execute();
      await db.schema.createIndex('entries_occurred').on('entries').columns(['occurred_at']).execute();
      // Intent and event steps (funnels, filters), covering: who took the step, when.
      await db.schema.createIndex('entries_intent').on('entries').columns(['intent', 'direction', 'bot', 'user_id', 'occurred_at']).execute();
      await db.schema.createIndex('entries_event').on('entries').columns(['event_type', 'occurred_at']).execute();
      await db.schema.createIndex('entries_event_name').on('entries').columns(['event_name', 'bot', 'user_id', 'occurred_at']).execute();
      await db.schema.createIndex('entries_activity').on('entries').columns(['activity_id']).where(sql.ref('activity_id'), 'is not', null).execute();
      await db.schema.createIndex('entries_feedback').on('entries').columns(['occurred_at']).where(sql.ref('reaction'), 'is not', null).execute();

      await db.schema
        .createTable('users')
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('first_at', t.millis, (c) => c.notNull())
        .addColumn('last_at', t.millis, (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('messages', t.millis, (c) => c.notNull())
        .addColumn('events', t.millis, (c) => c.notNull())
        .addPrimaryKeyConstraint('users_pk', ['bot', 'user_id'])
        .execute();
      await db.schema.createIndex('users_last').on('users').columns(['last_at']).execute();

      await db.schema
        .createTable('conversations')
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('conversation_id', 'text', (c) => c.notNull())
        .addColumn('first_at', t.millis, (c) => c.notNull())
        .addColumn('last_at', t.millis, (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('messages', t.millis, (c) => c.notNull())
        .addColumn('events', t.millis, (c) => c.notNull())
        .addPrimaryKeyConstraint('conversations_pk', ['bot', 'conversation_id'])
        .execute();
      await db.schema.createIndex('conversations_last').on('conversations').columns(['last_at']).execute();

      await db.schema
        .createTable('conversation_users')
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('conversation_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('first_at', t.millis, (c) => c.notNull())
        .addPrimaryKeyConstraint('conversation_users_pk', ['bot', 'conversation_id', 'user_id'])
        .execute();
      await db.schema.createIndex('conversation_users_user').on('conversation_users').columns(['bot', 'user_id']).execute();

      await db.schema
        .createTable('counts')
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('width', 'text', (c) => c.notNull())
        .addColumn('at', t.millis, (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('direction', 'text', (c) => c.notNull())
        .addColumn('intent', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('event_name', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('records', t.millis, (c) => c.notNull())
        .addColumn('entries', t.millis, (c) => c.notNull())
        .addColumn('ai_generated', t.millis, (c) => c.notNull())
        .addColumn('revenue', t.real, (c) => c.notNull())
        .addColumn('score_sum', t.real, (c) => c.notNull())
        .addColumn('scored', t.millis, (c) => c.notNull())
        .addPrimaryKeyConstraint('counts_pk', ['bot', 'width', 'at', 'platform', 'channel', 'type', 'direction', 'intent', 'event_type', 'event_name', 'currency'])
        .execute();
      await db.schema.createIndex('counts_at').on('counts').columns(['width', 'at']).execute();

      await db.schema
        .createTable('user_days')
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('day', t.millis, (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('messages', t.millis, (c) => c.notNull())
        .addColumn('events', t.millis, (c) => c.notNull())
        .addPrimaryKeyConstraint('user_days_pk', ['bot', 'user_id', 'day', 'platform', 'channel'])
        .execute();
      await db.schema.createIndex('user_days_day').on('user_days').columns(['day', 'user_id']).execute();

      await db.schema
        .createTable('user_weeks')
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('week', t.millis, (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('user_weeks_pk', ['bot', 'user_id', 'week', 'platform', 'channel'])
        .execute();
      await db.schema.createIndex('user_weeks_week').on('user_weeks').columns(['week', 'user_id']).execute();

      await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('conversation_id', 'text', (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('start_at', t.millis, (c) => c.notNull())
        .addColumn('last_at', t.millis, (c) => c.notNull())
        .addColumn('messages', t.millis, (c) => c.notNull())
        .addColumn('events', t.millis, (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('steps', t.int, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_start').on('sessions').columns(['start_at']).execute();
      await db.schema.createIndex('sessions_bot_start').on('sessions').columns(['bot', 'start_at']).execute();

      await db.schema
        .createTable('session_heads')
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('conversation_id', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('session_heads_pk', ['bot', 'user_id', 'conversation_id'])
        .execute();

      await db.schema
        .createTable('daily_messages')
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('day', t.millis, (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('text_key', 'text', (c) => c.notNull())
        .addColumn('intent', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('count', t.millis, (c) => c.notNull())
        .addPrimaryKeyConstraint('daily_messages_pk', ['bot', 'day', 'platform', 'channel', 'text_key', 'intent'])
        .execute();
      await db.schema.createIndex('daily_messages_day').on('daily_messages').columns(['day']).execute();

      await db.schema
        .createTable('message_totals')
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('text_key', 'text', (c) => c.notNull())
        .addColumn('intent', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('count', t.millis, (c) => c.notNull())
        .addPrimaryKeyConstraint('message_totals_pk', ['bot', 'platform', 'channel', 'text_key', 'intent'])
        .execute();
      await db.schema.createIndex('message_totals_intent').on('message_totals').columns(['intent', 'text_key']).execute();

      await db.schema
        .createTable('daily_clicks')
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('day', t.millis, (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('button', 'text', (c) => c.notNull())
        .addColumn('label', 'text', (c) => c.notNull())
        .addColumn('clicks', t.millis, (c) => c.notNull())
        .addPrimaryKeyConstraint('daily_clicks_pk', ['bot', 'day', 'platform', 'channel', 'button'])
        .execute();
      await db.schema.createIndex('daily_clicks_day').on('daily_clicks').columns(['day']).execute();

      await db.schema
        .createTable('session_days')
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('day', t.millis, (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('sessions', t.millis, (c) => c.notNull())
        .addColumn('messages', t.millis, (c) => c.notNull())
        .addColumn('events', t.millis, (c) => c.notNull())
        .addColumn('length_ms', t.millis, (c) => c.notNull())
        .addPrimaryKeyConstraint('session_days_pk', ['bot', 'day', 'platform', 'channel'])
        .execute();
      await db.schema.createIndex('session_days_day').on('session_days').columns(['day']).execute();

      await db.schema
        .createTable('session_lengths')
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('day', t.millis, (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('bucket', t.int, (c) => c.notNull())
        .addColumn('sessions', t.millis, (c) => c.notNull())
        .addPrimaryKeyConstraint('session_lengths_pk', ['bot', 'day', 'platform', 'channel', 'bucket'])
        .execute();
      await db.schema.createIndex('session_lengths_day').on('session_lengths').columns(['day']).execute();

      await db.schema
        .createTable('session_paths')
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('day', t.millis, (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('sessions', t.millis, (c) => c.notNull())
        .addPrimaryKeyConstraint('session_paths_pk', ['bot', 'day', 'platform', 'channel', 'path'])
        .execute();
      await db.schema.createIndex('session_paths_day').on('session_paths').columns(['day']).execute();

      await db.schema
        .createTable('imports')
        .addColumn('source', 'text', (c) => c.primaryKey())
        .addColumn('records', t.millis, (c) => c.notNull())
        .addColumn('imported_at', t.millis, (c) => c.notNull())
        .execute();
    },
  };
}

/**
 * Views built behind the acknowledgements (store/projection.ts). `unprojected` holds the records
 * acknowledged but not yet in the views: a record's number is added in the transaction that
 * commits the record, and removed in the one that adds it to the views. An explicit mark rather
 * than a high-water mark, because on PostgreSQL numbers from a sequence can commit out of order.
 * What a database held before this version was written with its views, so it starts empty.
 * Records now reach the views in batches, so a user's and a conversation's channel keep when the
 * entry that gave it happened (`channel_at`): the latest entry that has a channel wins, whether
 * the entries came in one batch or several (before, the latest entry's time stood for it).
 */
function projection(dialect: DialectName): Migration {
  const t = typesOf(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema.createTable('unprojected').addColumn('seq', t.id, (c) => c.primaryKey()).execute();
      for (const table of ['users', 'conversations']) {
        await db.schema.alterTable(table).addColumn('channel_at', t.millis, (c) => c.notNull().defaultTo(0)).execute();
        await db.updateTable(table).set({ channel_at: sql.ref('last_at') }).where('channel', '<>', '').execute();
      }
    },
  };
}

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
function readIndexes(dialect: DialectName): Migration {
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

/** Every version of the schema, by name (names sort in the order they run). */
export function migrationsFor(dialect: DialectName): Record<string, Migration> {
  return {
    '0001_initial': initial(dialect),
    '0003_projection': projection(dialect),
    '0004_read_indexes': readIndexes(dialect),
  };
}

/** The migrations as Kysely's Migrator takes them. */
export function migrationProvider(dialect: DialectName): MigrationProvider {
  return { getMigrations: async () => migrationsFor(dialect) };
}
