/** Version 1: the records, their entries, and the summary tables the read side queries. */
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { typesOf } from './column-types.js';

export function initial(dialect: DialectName): Migration {
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
