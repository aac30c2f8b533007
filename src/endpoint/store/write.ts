/**
 * Writing a batch of records in its transaction: numbering them, their entries (events given their
 * conversation's channel), every summary table the read side queries (upserts that add to what is
 * there, in key order so that concurrent writers never deadlock), what each feedback is about,
 * and the sessions with their per-day figures.
 */
import type { Transaction } from 'kysely';
import { fillEventChannels } from './channels.js';
import type { Dialect } from './dialect.js';
import { rateFeedback } from './feedback.js';
import { batchRows, entriesOf, type BatchRows, type RecordWithJson } from './rows.js';
import type { Database } from './schema.js';
import { sessionRows } from './sessions.js';
import type { Backend } from './store.js';
import type { StoredRecord } from '../types.js';

/** Rows per INSERT statement: well under SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const ROWS_PER_INSERT = 400;

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) out.push(rows.slice(i, i + ROWS_PER_INSERT));
  return out;
}

/** Numbers the records, and writes them and what they add to the summary tables, in `trx`. Returns them as stored. */
export async function writeBatch(trx: Transaction<Database>, backend: Backend, batch: readonly { record: StoredRecord; json: string }[]): Promise<StoredRecord[]> {
  const { dialect } = backend;
  const seqs = await backend.allocateSeqs(trx, batch.length);
  const numbered: RecordWithJson[] = batch.map(({ record, json }, i) => ({ record: { ...record, seq: seqs[i] }, json }));
  const entries = entriesOf(numbered, dialect);
  await fillEventChannels(trx, entries);
  const rows = batchRows(numbered, entries, dialect);
  await insertRows(trx, rows, dialect);
  await rateFeedback(trx, rows.entries);
  await writeSessions(trx, rows, dialect);
  return numbered.map(({ record }, i) => ({ ...record, occurredAt: new Date(rows.records[i].occurred_at).toISOString() }));
}

async function writeSessions(trx: Transaction<Database>, rows: BatchRows, dialect: Dialect): Promise<void> {
  const { sessions, heads, days, lengths, paths } = await sessionRows(trx, rows.entries, dialect.name === 'postgres');
  for (const part of chunks(sessions)) {
    await trx.insertInto('sessions').values(part)
      .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({
        start_at: eb.ref('excluded.start_at'), last_at: eb.ref('excluded.last_at'), messages: eb.ref('excluded.messages'),
        events: eb.ref('excluded.events'), path: eb.ref('excluded.path'), steps: eb.ref('excluded.steps'),
      })))
      .execute();
  }
  for (const part of chunks(heads)) {
    await trx.insertInto('session_heads').values(part)
      .onConflict((oc) => oc.columns(['bot', 'user_id', 'conversation_id']).doUpdateSet((eb) => ({ session_id: eb.ref('excluded.session_id') })))
      .execute();
  }
  for (const part of chunks(days)) {
    await trx.insertInto('session_days').values(part)
      .onConflict((oc) => oc.columns(['bot', 'day', 'platform', 'channel']).doUpdateSet((eb) => ({
        sessions: eb('session_days.sessions', '+', eb.ref('excluded.sessions')),
        messages: eb('session_days.messages', '+', eb.ref('excluded.messages')),
        events: eb('session_days.events', '+', eb.ref('excluded.events')),
        length_ms: eb('session_days.length_ms', '+', eb.ref('excluded.length_ms')),
      })))
      .execute();
  }
  for (const part of chunks(paths)) {
    await trx.insertInto('session_paths').values(part)
      .onConflict((oc) => oc.columns(['bot', 'day', 'platform', 'channel', 'path']).doUpdateSet((eb) => ({
        sessions: eb('session_paths.sessions', '+', eb.ref('excluded.sessions')),
      })))
      .execute();
  }
  for (const part of chunks(lengths)) {
    await trx.insertInto('session_lengths').values(part)
      .onConflict((oc) => oc.columns(['bot', 'day', 'platform', 'channel', 'bucket']).doUpdateSet((eb) => ({
        sessions: eb('session_lengths.sessions', '+', eb.ref('excluded.sessions')),
      })))
      .execute();
  }
}

/** Inserts the batch's records and entries, and adds what they bring to each summary table. */
async function insertRows(trx: Transaction<Database>, rows: BatchRows, dialect: Dialect): Promise<void> {
const { least, greatest } = dialect;
  for (const part of chunks(rows.records)) await trx.insertInto('records').values(part).execute();
  for (const part of chunks(rows.entries)) await trx.insertInto('entries').values(part).execute();
  for (const part of chunks(rows.users)) {
    await trx.insertInto('users').values(part)
      .onConflict((oc) => oc.columns(['bot', 'user_id']).doUpdateSet((eb) => ({
        name: eb.fn.coalesce('excluded.name', 'users.name'),
        first_at: least(eb.ref('users.first_at'), eb.ref('excluded.first_at')),
        last_at: greatest(eb.ref('users.last_at'), eb.ref('excluded.last_at')),
        platform: eb.case().when('excluded.last_at', '>=', eb.ref('users.last_at')).then(eb.ref('excluded.platform')).else(eb.ref('users.platform')).end(),
        channel: eb.case()
          .when(eb.and([eb('excluded.channel', '<>', ''), eb.or([eb('excluded.last_at', '>=', eb.ref('users.last_at')), eb('users.channel', '=', '')])]))
          .then(eb.ref('excluded.channel')).else(eb.ref('users.channel')).end(),
        messages: eb('users.messages', '+', eb.ref('excluded.messages')),
        events: eb('users.events', '+', eb.ref('excluded.events')),
      })))
      .execute();
  }
  for (const part of chunks(rows.conversations)) {
    await trx.insertInto('conversations').values(part)
      .onConflict((oc) => oc.columns(['bot', 'conversation_id']).doUpdateSet((eb) => ({
        first_at: least(eb.ref('conversations.first_at'), eb.ref('excluded.first_at')),
        last_at: greatest(eb.ref('conversations.last_at'), eb.ref('excluded.last_at')),
        platform: eb.case().when('excluded.last_at', '>=', eb.ref('conversations.last_at')).then(eb.ref('excluded.platform')).else(eb.ref('conversations.platform')).end(),
        channel: eb.case()
          .when(eb.and([eb('excluded.channel', '<>', ''), eb.or([eb('excluded.last_at', '>=', eb.ref('conversations.last_at')), eb('conversations.channel', '=', '')])]))
          .then(eb.ref('excluded.channel')).else(eb.ref('conversations.channel')).end(),
        messages: eb('conversations.messages', '+', eb.ref('excluded.messages')),
        events: eb('conversations.events', '+', eb.ref('excluded.events')),
      })))
      .execute();
  }
  for (const part of chunks(rows.conversationUsers)) {
    await trx.insertInto('conversation_users').values(part)
      .onConflict((oc) => oc.columns(['bot', 'conversation_id', 'user_id']).doUpdateSet((eb) => ({
        first_at: least(eb.ref('conversation_users.first_at'), eb.ref('excluded.first_at')),
      })))
      .execute();
  }
  for (const part of chunks(rows.counts)) {
    await trx.insertInto('counts').values(part)
      .onConflict((oc) => oc.columns(['bot', 'width', 'at', 'platform', 'channel', 'type', 'direction', 'intent', 'event_type', 'event_name', 'currency']).doUpdateSet((eb) => ({
        records: eb('counts.records', '+', eb.ref('excluded.records')),
        entries: eb('counts.entries', '+', eb.ref('excluded.entries')),
        ai_generated: eb('counts.ai_generated', '+', eb.ref('excluded.ai_generated')),
        revenue: eb('counts.revenue', '+', eb.ref('excluded.revenue')),
        score_sum: eb('counts.score_sum', '+', eb.ref('excluded.score_sum')),
        scored: eb('counts.scored', '+', eb.ref('excluded.scored')),
      })))
      .execute();
  }
  for (const part of chunks(rows.userWeeks)) {
    await trx.insertInto('user_weeks').values(part).onConflict((oc) => oc.doNothing()).execute();
  }
  for (const part of chunks(rows.dailyMessages)) {
    await trx.insertInto('daily_messages').values(part)
      .onConflict((oc) => oc.columns(['bot', 'day', 'platform', 'channel', 'text_key', 'intent']).doUpdateSet((eb) => ({
        count: eb('daily_messages.count', '+', eb.ref('excluded.count')),
      })))
      .execute();
  }
  for (const part of chunks(rows.userDays)) {
    await trx.insertInto('user_days').values(part)
      .onConflict((oc) => oc.columns(['bot', 'user_id', 'day', 'platform', 'channel']).doUpdateSet((eb) => ({
        messages: eb('user_days.messages', '+', eb.ref('excluded.messages')),
        events: eb('user_days.events', '+', eb.ref('excluded.events')),
      })))
      .execute();
  }
  for (const part of chunks(rows.messageTotals)) {
    await trx.insertInto('message_totals').values(part)
      .onConflict((oc) => oc.columns(['bot', 'platform', 'channel', 'text_key', 'intent']).doUpdateSet((eb) => ({
        count: eb('message_totals.count', '+', eb.ref('excluded.count')),
      })))
      .execute();
  }
  for (const part of chunks(rows.dailyClicks)) {
    await trx.insertInto('daily_clicks').values(part)
      .onConflict((oc) => oc.columns(['bot', 'day', 'platform', 'channel', 'button']).doUpdateSet((eb) => ({
        clicks: eb('daily_clicks.clicks', '+', eb.ref('excluded.clicks')),
      })))
      .execute();
  }
}
