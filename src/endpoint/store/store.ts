/**
 * The record store: one interface, two databases behind it (SQLite by default, PostgreSQL to run
 * several endpoints on one database). It numbers and timestamps each accepted record and writes
 * it, with everything the read side needs, in one transaction; an append resolves only once that
 * transaction is committed. Appends that arrive together are committed together (one transaction
 * per batch), and a batch that fails is retried record by record, so that one record the database
 * refuses never takes the others down with it.
 *
 * Nothing above store/ knows which database it talks to: the read side receives the Kysely handle
 * and the dialect helpers with the store.
 */
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Dialect, DialectName } from './dialect.js';
import { writeBatch } from './write.js';
import type { Database } from './schema.js';
import type { StoredRecord } from '../types.js';

/** A record to store: everything but what the store assigns. */
export type NewRecord = Omit<StoredRecord, 'seq' | 'receivedAt' | 'occurredAt'>;

/** The database-specific part of a store (sqlite.ts, postgres.ts). */
export interface Backend {
  readonly dialect: Dialect;
  readonly db: Kysely<Database>;
  /** What to show users: the SQLite file (or `:memory:`), or the PostgreSQL URL without its password. */
  readonly location: string;
  /** Numbers for `count` new records, in increasing order, inside the batch's transaction. */
  allocateSeqs(trx: Transaction<Database>, count: number): Promise<number[]>;
  /** Runs inside the batch's transaction, last (PostgreSQL: NOTIFY the other endpoints). */
  beforeCommit?(trx: Transaction<Database>, lastSeq: number): Promise<void>;
  /**
   * Calls `listener` whenever records may have been committed by another process, or when news of
   * them may have been missed (a lost connection). Returns the function that stops it.
   */
  watchOthers?(listener: () => void): () => void;
  /** Whether a failure means the database cannot be reached or cannot write now (rather than a bad record). */
  isUnavailable(error: unknown): boolean;
  close(): Promise<void>;
}

/** The database could not store the record (unreachable, full, read-only): nothing was stored. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

interface PendingAppend {
  record: StoredRecord;
  json: string;
  resolve(record: StoredRecord): void;
  reject(error: unknown): void;
}

/** Most records in one transaction. */
const MAX_BATCH = 500;

/** The row of the records table as a `StoredRecord`. */
export function recordOf(row: Selectable<Database['records']>, dialect: Dialect): StoredRecord {
  return {
    seq: Number(row.seq),
    receivedAt: new Date(Number(row.received_at)).toISOString(),
    occurredAt: new Date(Number(row.occurred_at)).toISOString(),
    platform: row.platform,
    platformKind: row.platform_kind as StoredRecord['platformKind'],
    v: row.v as StoredRecord['v'],
    type: row.type as StoredRecord['type'],
    bot: row.bot,
    body: dialect.bodyOf(row.body),
  };
}

/** What a running endpoint lets its user read of the records it stores (`endpoint.store`). */
export interface StoredRecords {
  /** How many records are stored. Rejects when the database cannot be reached. */
  count(): Promise<number>;
  /** Records in `seq` order: those after `after` (default 0), at most `limit` (default 1000). */
  records(options?: { after?: number; limit?: number }): Promise<StoredRecord[]>;
  /** The record numbered `seq`, or `undefined`. */
  record(seq: number): Promise<StoredRecord | undefined>;
  /** The highest `seq` stored; `0` when nothing is. */
  lastSeq(): Promise<number>;
}

/** Stored records, and the database they are in. Open one with `openStore` (open.ts). */
export class RecordStore implements StoredRecords {
  /** The Kysely handle the read side queries through. */
  readonly db: Kysely<Database>;
  /** Where the two databases differ. */
  readonly dialect: Dialect;
  private queue: PendingAppend[] = [];
  private draining: Promise<void> | undefined;
  private readonly listeners = new Set<() => void>();
  private stopWatching: (() => void) | undefined;
  private closed = false;

  constructor(private readonly backend: Backend) {
    this.db = backend.db;
    this.dialect = backend.dialect;
  }

  /** `sqlite` or `postgres`. */
  get kind(): DialectName {
    return this.dialect.name;
  }

  /** The SQLite file (`:memory:` when in memory), or the PostgreSQL URL without its password. */
  get location(): string {
    return this.backend.location;
  }

  /**
   * Stores a record and resolves with it once it is committed. `bodyJson`, when given, must be
   * the body's JSON text (saves serialising it again). Rejects, with nothing stored, when the
   * database refuses it: a `StoreUnavailableError` when it cannot write now (unreachable, disk
   * full), the database's own error when it refused this record.
   */
  append(input: NewRecord, bodyJson?: string): Promise<StoredRecord> {
    if (this.closed) return Promise.reject(new StoreUnavailableError('The store is closed.'));
    const receivedAt = new Date().toISOString();
    const record: StoredRecord = { seq: 0, receivedAt, occurredAt: receivedAt, ...input };
    const json = bodyJson ?? JSON.stringify(input.body);
    return new Promise((resolve, reject) => {
      this.queue.push({ record, json, resolve, reject });
      this.draining ??= new Promise<void>((done) => setImmediate(done)).then(() => this.drain());
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          await this.write(batch);
        } catch (error) {
          if (batch.length === 1 || this.backend.isUnavailable(error)) {
            const failure = this.backend.isUnavailable(error) ? new StoreUnavailableError(`The database cannot store records now: ${(error as Error)?.message ?? error}`, { cause: error }) : error;
            for (const pending of batch) pending.reject(failure);
          } else {
            // One record the database refuses must not fail the batch: each on its own.
            for (const pending of batch) await this.write([pending]).catch((single) => pending.reject(single));
          }
        }
      }
    } finally {
      this.draining = undefined;
    }
  }

  /** Writes one batch in one transaction; resolves each append once it is committed. */
  private async write(batch: PendingAppend[]): Promise<void> {
    let stored: StoredRecord[] = [];
    await this.db.transaction().execute(async (trx) => {
      stored = await this.writeRecords(trx, batch);
      await this.backend.beforeCommit?.(trx, stored[stored.length - 1].seq);
    });
    batch.forEach((pending, i) => pending.resolve(stored[i]));
    this.notify();
  }

  /** Numbers the records, and writes them and what they add to the summary tables, in `trx`. Returns them as stored. */
  private writeRecords(trx: Transaction<Database>, batch: readonly { record: StoredRecord; json: string }[]): Promise<StoredRecord[]> {
    return writeBatch(trx, this.backend, batch);
  }

  /**
   * Imports records kept elsewhere (their `receivedAt` is kept; they are numbered anew) in ONE
   * transaction, together with the note that `source` was imported: an import is all or nothing,
   * and a source is never imported twice. Resolves with the number imported, or `undefined` when
   * `source` was imported before.
   */
  async importOnce(source: string, records: AsyncIterable<{ record: NewRecord & { receivedAt: string }; json: string }>): Promise<number | undefined> {
    let count: number | undefined;
    await this.db.transaction().execute(async (trx) => {
      const done = await trx.selectFrom('imports').select('records').where('source', '=', source).executeTakeFirst();
      if (done !== undefined) return;
      count = 0;
      let batch: { record: StoredRecord; json: string }[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        await this.writeRecords(trx, batch);
        count! += batch.length;
        batch = [];
      };
      for await (const { record, json } of records) {
        batch.push({ record: { seq: 0, occurredAt: record.receivedAt, ...record }, json });
        if (batch.length >= MAX_BATCH) await flush();
      }
      await flush();
      await trx.insertInto('imports').values({ source, records: count, imported_at: Date.now() }).execute();
      if (count > 0) await this.backend.beforeCommit?.(trx, await this.lastSeqIn(trx));
    });
    if (count) this.notify();
    return count;
  }

  private async lastSeqIn(trx: Transaction<Database>): Promise<number> {
    const row = await trx.selectFrom('records').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
    return Number(row?.seq ?? 0);
  }

  private notify(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  /**
   * Calls `listener` after records are committed: by this endpoint at once, by other endpoints
   * on the same PostgreSQL database as the notification arrives (and after a lost connection to
   * it comes back, since news may have been missed). Returns the function that stops it.
   */
  watch(listener: () => void): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1 && this.backend.watchOthers) this.stopWatching = this.backend.watchOthers(() => this.notify());
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) {
        this.stopWatching?.();
        this.stopWatching = undefined;
      }
    };
  }

  /** The record numbered `seq`, or `undefined`. */
  async record(seq: number): Promise<StoredRecord | undefined> {
    const row = await this.db.selectFrom('records').selectAll().where('seq', '=', seq).executeTakeFirst();
    return row === undefined ? undefined : recordOf(row, this.dialect);
  }

  /** Records in `seq` order: those after `after` (default 0), at most `limit` (default 1000). */
  async records(options: { after?: number; limit?: number } = {}): Promise<StoredRecord[]> {
    const rows = await this.db.selectFrom('records').selectAll().where('seq', '>', options.after ?? 0).orderBy('seq').limit(options.limit ?? 1000).execute();
    return rows.map((row) => recordOf(row, this.dialect));
  }

  /** How many records are stored. */
  async count(): Promise<number> {
    const row = await this.db.selectFrom('records').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The highest `seq` stored; `0` when nothing is. */
  async lastSeq(): Promise<number> {
    const row = await this.db.selectFrom('records').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
    return Number(row?.seq ?? 0);
  }

  /** Whether an error of the database means it cannot be reached or cannot write now (rather than a bug or a bad record). */
  isUnavailable(error: unknown): boolean {
    return error instanceof StoreUnavailableError || this.backend.isUnavailable(error);
  }

  /** Rejects when the database cannot be reached (for `/healthz`). */
  async ping(): Promise<void> {
    await this.db.selectFrom('records').select('seq').limit(1).execute();
  }

  /**
   * Deletes what happened before `cutoff` (ms): records, their entries, and the counts over them;
   * users and conversations not active since are forgotten, and the others' first activity and
   * counts are recomputed from what is left. One transaction. Resolves with the records deleted.
   */
  async deleteBefore(cutoff: number): Promise<number> {
    const HOUR = 3_600_000;
    const DAY = 86_400_000;
    return this.db.transaction().execute(async (trx) => {
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

  /** Waits for appends in progress, then closes the database. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.draining) await this.draining;
    this.stopWatching?.();
    this.listeners.clear();
    await this.backend.close();
  }
}
