/**
 * Writing what a batch of committed records adds to the views, in the projection's transaction:
 * their entries (events given their conversation's channel), every summary table the read side
 * queries (upserts that add to what is there, in key order), what each feedback is about, and the
 * sessions with their per-day figures.
 *
 * Each table's statement is written once, with Kysely, below. On PostgreSQL a batch's rows go in
 * multi-row statements; on SQLite, where a statement costs little to run but much to prepare,
 * each statement is compiled and prepared once (from a row of placeholders) and run for each row.
 */
import type { Compilable, InsertResult, Insertable, Transaction } from 'kysely';
import type { Backend } from './backend.js';
import { fillEventChannels } from './channels.js';
import type { Dialect } from './dialect.js';
import { rateFeedback } from './feedback.js';
import { recordOf } from './record-row.js';
import { batchRows, projectEntries } from './rows.js';
import type { Database } from './schema.js';
import { sessionRows } from './sessions.js';
import type { StoredRecord } from '../types.js';

/** Rows per INSERT statement: well under SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const ROWS_PER_INSERT = 400;

type Row<T extends keyof Database> = Insertable<Database[T]>;

/** The statement of each table the views write: an insert of `values`, adding to the row already there. */
const UPSERTS = {
  entries: (trx: Transaction<Database>, values: Row<'entries'>[]) => trx.insertInto('entries').values(values),
  users: (trx: Transaction<Database>, values: Row<'users'>[], d: Dialect) => trx.insertInto('users').values(values)
    .onConflict((oc) => oc.columns(['bot', 'user_id']).doUpdateSet((eb) => {
      const newer = eb.and([eb('excluded.channel', '<>', ''), eb.or([eb('excluded.channel_at', '>=', eb.ref('users.channel_at')), eb('users.channel', '=', '')])]);
      // (name_at is 0 while there is no name: every entry happened after 2000.)
      const newerName = eb.and([eb('excluded.name', 'is not', null), eb('excluded.name_at', '>=', eb.ref('users.name_at'))]);
      return {
        // The name of the latest entry that has one: the batch's, unless the stored one is later.
        name: eb.case().when(newerName).then(eb.ref('excluded.name')).else(eb.ref('users.name')).end(),
        name_at: eb.case().when(newerName).then(eb.ref('excluded.name_at')).else(eb.ref('users.name_at')).end(),
        first_at: d.least(eb.ref('users.first_at'), eb.ref('excluded.first_at')),
        last_at: d.greatest(eb.ref('users.last_at'), eb.ref('excluded.last_at')),
        platform: eb.case().when('excluded.last_at', '>=', eb.ref('users.last_at')).then(eb.ref('excluded.platform')).else(eb.ref('users.platform')).end(),
        // The channel of the latest entry that has one: the batch's, unless the stored one is later.
        channel: eb.case().when(newer).then(eb.ref('excluded.channel')).else(eb.ref('users.channel')).end(),
        channel_at: eb.case().when(newer).then(eb.ref('excluded.channel_at')).else(eb.ref('users.channel_at')).end(),
        messages: eb('users.messages', '+', eb.ref('excluded.messages')),
        events: eb('users.events', '+', eb.ref('excluded.events')),
      };
    })),
  conversations: (trx: Transaction<Database>, values: Row<'conversations'>[], d: Dialect) => trx.insertInto('conversations').values(values)
    .onConflict((oc) => oc.columns(['bot', 'conversation_id']).doUpdateSet((eb) => {
      const newer = eb.and([eb('excluded.channel', '<>', ''), eb.or([eb('excluded.channel_at', '>=', eb.ref('conversations.channel_at')), eb('conversations.channel', '=', '')])]);
      return {
        first_at: d.least(eb.ref('conversations.first_at'), eb.ref('excluded.first_at')),
        last_at: d.greatest(eb.ref('conversations.last_at'), eb.ref('excluded.last_at')),
        platform: eb.case().when('excluded.last_at', '>=', eb.ref('conversations.last_at')).then(eb.ref('excluded.platform')).else(eb.ref('conversations.platform')).end(),
        // The channel of the latest entry that has one: the batch's, unless the stored one is later.
        channel: eb.case().when(newer).then(eb.ref('excluded.channel')).else(eb.ref('conversations.channel')).end(),
        channel_at: eb.case().when(newer).then(eb.ref('excluded.channel_at')).else(eb.ref('conversations.channel_at')).end(),
        messages: eb('conversations.messages', '+', eb.ref('excluded.messages')),
        events: eb('conversations.events', '+', eb.ref('excluded.events')),
      };
    })),
  conversation_users: (trx: Transaction<Database>, values: Row<'conversation_users'>[], d: Dialect) => trx.insertInto('conversation_users').values(values)
    .onConflict((oc) => oc.columns(['bot', 'conversation_id', 'user_id']).doUpdateSet((eb) => ({
      first_at: d.least(eb.ref('conversation_users.first_at'), eb.ref('excluded.first_at')),
    }))),
  conversation_channels: (trx: Transaction<Database>, values: Row<'conversation_channels'>[]) => trx.insertInto('conversation_channels').values(values)
    .onConflict((oc) => oc.columns(['channel', 'bot', 'conversation_id']).doNothing()),
  counts: (trx: Transaction<Database>, values: Row<'counts'>[]) => trx.insertInto('counts').values(values)
    .onConflict((oc) => oc.columns(['bot', 'width', 'at', 'platform', 'channel', 'type', 'direction', 'intent', 'event_type', 'event_name', 'currency']).doUpdateSet((eb) => ({
      records: eb('counts.records', '+', eb.ref('excluded.records')),
      entries: eb('counts.entries', '+', eb.ref('excluded.entries')),
      ai_generated: eb('counts.ai_generated', '+', eb.ref('excluded.ai_generated')),
      revenue: eb('counts.revenue', '+', eb.ref('excluded.revenue')),
      score_sum: eb('counts.score_sum', '+', eb.ref('excluded.score_sum')),
      scored: eb('counts.scored', '+', eb.ref('excluded.scored')),
    }))),
  daily_messages: (trx: Transaction<Database>, values: Row<'daily_messages'>[]) => trx.insertInto('daily_messages').values(values)
    .onConflict((oc) => oc.columns(['bot', 'day', 'platform', 'channel', 'text_key', 'intent']).doUpdateSet((eb) => ({
      count: eb('daily_messages.count', '+', eb.ref('excluded.count')),
    }))),
  user_days: (trx: Transaction<Database>, values: Row<'user_days'>[]) => trx.insertInto('user_days').values(values)
    .onConflict((oc) => oc.columns(['bot', 'user_id', 'day', 'platform', 'channel']).doUpdateSet((eb) => ({
      messages: eb('user_days.messages', '+', eb.ref('excluded.messages')),
      events: eb('user_days.events', '+', eb.ref('excluded.events')),
    }))),
  message_totals: (trx: Transaction<Database>, values: Row<'message_totals'>[]) => trx.insertInto('message_totals').values(values)
    .onConflict((oc) => oc.columns(['bot', 'platform', 'channel', 'text_key', 'intent']).doUpdateSet((eb) => ({
      count: eb('message_totals.count', '+', eb.ref('excluded.count')),
    }))),
  daily_clicks: (trx: Transaction<Database>, values: Row<'daily_clicks'>[]) => trx.insertInto('daily_clicks').values(values)
    .onConflict((oc) => oc.columns(['bot', 'day', 'platform', 'channel', 'button']).doUpdateSet((eb) => ({
      clicks: eb('daily_clicks.clicks', '+', eb.ref('excluded.clicks')),
    }))),
  // A button's label as offered: a later offer's replaces it (of two at one moment, the later stored), an earlier one's (arriving late) never does.
  button_labels: (trx: Transaction<Database>, values: Row<'button_labels'>[]) => trx.insertInto('button_labels').values(values)
    .onConflict((oc) => oc.columns(['bot', 'button']).doUpdateSet((eb) => ({
      label: eb.ref('excluded.label'),
      offered_at: eb.ref('excluded.offered_at'),
    })).whereRef('excluded.offered_at', '>=', 'button_labels.offered_at')),
  sessions: (trx: Transaction<Database>, values: Row<'sessions'>[]) => trx.insertInto('sessions').values(values)
    .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({
      start_at: eb.ref('excluded.start_at'), last_at: eb.ref('excluded.last_at'), messages: eb.ref('excluded.messages'),
      events: eb.ref('excluded.events'), path: eb.ref('excluded.path'), steps: eb.ref('excluded.steps'),
    }))),
  session_heads: (trx: Transaction<Database>, values: Row<'session_heads'>[]) => trx.insertInto('session_heads').values(values)
    .onConflict((oc) => oc.columns(['bot', 'user_id', 'conversation_id']).doUpdateSet((eb) => ({ session_id: eb.ref('excluded.session_id') }))),
  session_days: (trx: Transaction<Database>, values: Row<'session_days'>[]) => trx.insertInto('session_days').values(values)
    .onConflict((oc) => oc.columns(['bot', 'day', 'platform', 'channel']).doUpdateSet((eb) => ({
      sessions: eb('session_days.sessions', '+', eb.ref('excluded.sessions')),
      messages: eb('session_days.messages', '+', eb.ref('excluded.messages')),
      events: eb('session_days.events', '+', eb.ref('excluded.events')),
      length_ms: eb('session_days.length_ms', '+', eb.ref('excluded.length_ms')),
    }))),
  session_paths: (trx: Transaction<Database>, values: Row<'session_paths'>[]) => trx.insertInto('session_paths').values(values)
    .onConflict((oc) => oc.columns(['bot', 'day', 'platform', 'channel', 'path']).doUpdateSet((eb) => ({
      sessions: eb('session_paths.sessions', '+', eb.ref('excluded.sessions')),
    }))),
  session_lengths: (trx: Transaction<Database>, values: Row<'session_lengths'>[]) => trx.insertInto('session_lengths').values(values)
    .onConflict((oc) => oc.columns(['bot', 'day', 'platform', 'channel', 'bucket']).doUpdateSet((eb) => ({
      sessions: eb('session_lengths.sessions', '+', eb.ref('excluded.sessions')),
    }))),
  user_weeks: (trx: Transaction<Database>, values: Row<'user_weeks'>[]) => trx.insertInto('user_weeks').values(values).onConflict((oc) => oc.doNothing()),
} satisfies Record<string, (trx: Transaction<Database>, values: never[], dialect: Dialect) => Compilable<InsertResult> & { execute(): Promise<InsertResult[]> }>;

type Table = keyof typeof UPSERTS;
type RowOf<T extends Table> = Parameters<(typeof UPSERTS)[T]>[1][number];

/** Marks a placeholder row's values: the compiled statement's parameters that start with it name a column. */
const COLUMN = '\u0000column:';

/** A batch of the views failed; `seqs` are the records it held (none when it failed before taking any). */
export class BatchError extends Error {
  constructor(readonly seqs: number[], override readonly cause: unknown) {
    super((cause as Error)?.message ?? String(cause));
  }
}

/** The views of one store: writes batches of records into them, with the backend's statements kept prepared where it keeps them. */
export class ViewWriter {
  private readonly prepared = new Map<Table, (row: Record<string, unknown>) => void>();

  constructor(private readonly backend: Backend) {}

  /**
   * Adds up to `limit` marked records, lowest numbers first, to the views and removes their marks,
   * in one transaction that holds the right to build them. Resolves with how many marks it
   * removed, or `'busy'` when another endpoint holds that right. Rejects with a `BatchError`.
   */
  async project(limit: number): Promise<number | 'busy'> {
    const { backend } = this;
    let seqs: number[] = [];
    try {
      return await backend.db.transaction().execute(async (trx) => {
        if (!(await backend.lockProjection(trx, false))) return 'busy' as const;
        const marks = await trx.selectFrom('unprojected').select('seq').orderBy('seq').limit(limit).execute();
        if (marks.length === 0) return 0;
        seqs = marks.map((mark) => Number(mark.seq));
        // A record deleted (retention) since it was marked is simply not there.
        const rows = await trx.selectFrom('records').selectAll().where('seq', 'in', seqs).orderBy('seq').execute();
        await this.write(trx, rows.map((row) => recordOf(row, backend.dialect)));
        await trx.deleteFrom('unprojected').where('seq', 'in', seqs).execute();
        await backend.afterProjecting?.(trx, seqs[seqs.length - 1]);
        return seqs.length;
      });
    } catch (error) {
      throw new BatchError(seqs, error);
    }
  }

  /** Writes what `records` (committed, numbered, in order) add to the views, in `trx`. */
  async write(trx: Transaction<Database>, records: readonly StoredRecord[]): Promise<void> {
    if (records.length === 0) return;
    const { dialect } = this.backend;
    const { entries, buttonLabels } = projectEntries(records, dialect);
    await fillEventChannels(trx, entries);
    const rows = batchRows(records, entries, dialect);
    await this.put(trx, 'entries', rows.entries);
    await this.put(trx, 'users', rows.users);
    await this.put(trx, 'conversations', rows.conversations);
    await this.put(trx, 'conversation_users', rows.conversationUsers);
    await this.put(trx, 'conversation_channels', rows.conversationChannels);
    await this.put(trx, 'counts', rows.counts);
    await this.put(trx, 'user_weeks', rows.userWeeks);
    await this.put(trx, 'daily_messages', rows.dailyMessages);
    await this.put(trx, 'user_days', rows.userDays);
    await this.put(trx, 'message_totals', rows.messageTotals);
    await this.put(trx, 'daily_clicks', rows.dailyClicks);
    await this.put(trx, 'button_labels', buttonLabels);
    await rateFeedback(trx, rows.entries);
    const sessions = await sessionRows(trx, rows.entries, dialect.name === 'postgres');
    // Sessions a late entry joined into another are no more.
    for (let i = 0; i < sessions.gone.length; i += ROWS_PER_INSERT) await trx.deleteFrom('sessions').where('id', 'in', sessions.gone.slice(i, i + ROWS_PER_INSERT)).execute();
    await this.put(trx, 'sessions', sessions.sessions);
    await this.put(trx, 'session_heads', sessions.heads);
    await this.put(trx, 'session_days', sessions.days);
    await this.put(trx, 'session_paths', sessions.paths);
    await this.put(trx, 'session_lengths', sessions.lengths);
  }

  /** Writes `rows` with `table`'s statement: per row, prepared once (SQLite), or in multi-row statements. */
  private async put<T extends Table>(trx: Transaction<Database>, table: T, rows: readonly RowOf<T>[]): Promise<void> {
    if (rows.length === 0) return;
    const upsert = UPSERTS[table] as (trx: Transaction<Database>, values: RowOf<T>[], dialect: Dialect) => Compilable & { execute(): Promise<unknown> };
    const prepare = this.backend.prepare;
    if (prepare === undefined) {
      for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) await upsert(trx, rows.slice(i, i + ROWS_PER_INSERT), this.backend.dialect).execute();
      return;
    }
    let run = this.prepared.get(table);
    if (run === undefined) {
      // A row of placeholders, one per column, compiled once: each parameter is a column's value or a constant of the statement.
      const placeholders = Object.fromEntries(Object.keys(rows[0]).map((column) => [column, `${COLUMN}${column}`])) as RowOf<T>;
      const compiled = upsert(trx, [placeholders], this.backend.dialect).compile();
      const columns = compiled.parameters.map((value) => (typeof value === 'string' && value.startsWith(COLUMN) ? value.slice(COLUMN.length) : undefined));
      const constants = compiled.parameters;
      const statement = prepare(compiled.sql);
      run = (row) => statement(columns.map((column, i) => (column === undefined ? constants[i] : (row[column] ?? null))));
      this.prepared.set(table, run);
    }
    for (const row of rows) run(row as Record<string, unknown>);
  }
}
