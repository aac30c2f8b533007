/**
 * The record store: one interface, two databases behind it (SQLite by default, PostgreSQL to run
 * several endpoints on one database). It numbers and timestamps each accepted record and resolves
 * an append once the record's row is committed (append.ts: appends that arrive together share a
 * transaction). What the read side queries (entries and summary tables, "the views") is built
 * behind the acknowledgements from what was committed (projection.ts), and every read waits until
 * it holds every record acknowledged before the read.
 *
 * Nothing above store/ knows which database it talks to: the read side receives a Kysely handle
 * and the dialect helpers with the store.
 */
import type { Kysely } from 'kysely';
import { AppendQueue, type AppendedRecord } from './append.js';
import { DEFAULT_WAIT_BOUNDS, type Lag, type WaitBounds } from './catching-up.js';
import { StoreUnavailableError, type Backend } from './backend.js';
import type { Dialect, DialectName } from './dialect.js';
import { importOnce } from './import.js';
import { Projection, processPacer, type Pacer } from './projection.js';
import { recordOf, type NewRecord } from './record-row.js';
import { deleteBefore } from './retention.js';
import { erasureLine, forgetUser, type Erasure, type ForgetRequest } from './forget.js';
import type { Database } from './schema.js';
import type { StoredRecord } from '../types.js';

export { CommitOutcomeUnknownError, StoreUnavailableError, type Backend } from './backend.js';
export type { AppendedRecord } from './append.js';
export { CatchingUpError, DEFAULT_WAIT_BOUNDS, type Lag, type WaitBounds } from './catching-up.js';
export { recordOf } from './record-row.js';
export { userHash, type Erasure, type ForgetRequest } from './forget.js';

/** Records of one user read per query by `exportUser`. */
export const EXPORT_PAGE = 500;

/** A record to store: everything but what the store assigns. */
export type { NewRecord } from './record-row.js';

/** How long a failed append counts against `/healthz` when no append has succeeded since (ms). */
const UNHEALTHY_FOR_MS = 60_000;

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
  /**
   * The Kysely handle the read side queries through: each query waits until the views hold every
   * record committed before it, for the store's read bound at most: then it rejects with a `CatchingUpError`.
   */
  readonly db: Kysely<Database>;
  /** Where the two databases differ. */
  readonly dialect: Dialect;
  private readonly appends: AppendQueue;
  private readonly projection: Projection;
  private readonly listeners = new Set<() => void>();
  private stopWatching: (() => void) | undefined;
  private closed = false;
  private readonly log: (message: string) => void;

  /**
   * `pacer`: the clock and timers the views are built by (tests that pin the pace give their own).
   * `waits`: how long a read and a write may wait for the views (catching-up.ts).
   */
  constructor(private readonly backend: Backend, log: (message: string) => void = () => undefined, pacer: Pacer = processPacer, waits: WaitBounds = DEFAULT_WAIT_BOUNDS) {
    this.dialect = backend.dialect;
    this.log = log;
    this.projection = new Projection(backend, {
      log,
      projected: () => this.notify(),
      appends: () => ({ lastAt: this.appends.lastAppendAt, pending: this.appends.pending }),
      pacer,
    });
    this.appends = new AppendQueue(backend, {
      room: () => this.projection.room(),
      noRoom: (waitedMs) => this.projection.noRoom(waitedMs),
      committed: (count) => this.projection.wake(count),
    }, () => pacer.now(), waits.writeMs);
    this.db = backend.gatedDb(() => this.projection.caughtUpWithin(waits.readMs));
    // What an earlier run acknowledged and did not add to the views (a crash), or another endpoint did.
    this.projection.wake();
  }

  /** How far behind the views are now: the records not in them, and how long ago the oldest was received. */
  lag(): Promise<Lag> {
    return this.projection.lag();
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
   * full), a `CatchingUpError` when it waited for the views past the store's write bound, the
   * database's own error when it refused this record. When the connection to the database is lost
   * during the commit, it first asks the database whether the record is stored (and resolves if it
   * is); a `CommitOutcomeUnknownError` when it could not find out in time: the record may be stored.
   * `idempotencyKey`: the key the client sent the record with (printable ASCII, checked by the
   * caller): when a record of the same bot was stored with it, resolves with that record's number
   * and `duplicate: true`, and stores nothing (also when both come at once, on any endpoint).
   */
  append(input: NewRecord, bodyJson?: string, idempotencyKey?: string): Promise<AppendedRecord> {
    if (this.closed) return Promise.reject(new StoreUnavailableError('The store is closed.'));
    const receivedAt = new Date().toISOString();
    const record: StoredRecord = { seq: 0, receivedAt, occurredAt: receivedAt, ...input };
    return this.appends.append(record, bodyJson ?? JSON.stringify(input.body), idempotencyKey);
  }

  /**
   * Imports records kept elsewhere (their `receivedAt` is kept; they are numbered anew) in ONE
   * transaction, together with the note that `source` was imported: an import is all or nothing,
   * and a source is never imported twice. Resolves with the number imported, or `undefined` when
   * `source` was imported before. Their views are built behind it, as for appends.
   */
  async importOnce(source: string, records: AsyncIterable<{ record: NewRecord & { receivedAt: string }; json: string }>): Promise<number | undefined> {
    const count = await importOnce(this.backend, source, records);
    if (count) this.projection.wake(count);
    return count;
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
   * Calls `listener` after records are added to the views: by this endpoint at once, by other
   * endpoints on the same PostgreSQL database as the notification arrives (and after a lost
   * connection to it comes back, since news may have been missed). Returns the function that stops it.
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
    const row = await this.backend.db.selectFrom('records').selectAll().where('seq', '=', seq).executeTakeFirst();
    return row === undefined ? undefined : recordOf(row, this.dialect);
  }

  /** Records in `seq` order: those after `after` (default 0), at most `limit` (default 1000). */
  async records(options: { after?: number; limit?: number } = {}): Promise<StoredRecord[]> {
    const rows = await this.backend.db.selectFrom('records').selectAll().where('seq', '>', options.after ?? 0).orderBy('seq').limit(options.limit ?? 1000).execute();
    return rows.map((row) => recordOf(row, this.dialect));
  }

  /** How many records are stored. */
  async count(): Promise<number> {
    const row = await this.backend.db.selectFrom('records').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The highest `seq` stored; `0` when nothing is. */
  async lastSeq(): Promise<number> {
    const row = await this.backend.db.selectFrom('records').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
    return Number(row?.seq ?? 0);
  }

  /** Whether an error of the database means it cannot be reached or cannot write now (rather than a bug or a bad record). */
  isUnavailable(error: unknown): boolean {
    return error instanceof StoreUnavailableError || this.backend.isUnavailable(error);
  }

  /** Whether `backup()` can copy this database (SQLite); PostgreSQL is backed up with pg_dump. */
  get canBackup(): boolean {
    return this.backend.backup !== undefined;
  }

  /** Writes a consistent copy of the whole database to `file`, while it goes on working (SQLite only: see `canBackup`). */
  async backup(file: string): Promise<void> {
    if (this.backend.backup === undefined) throw new Error('This database has no online backup here; use pg_dump.');
    await this.backend.backup(file);
  }

  /** Rejects when the database cannot be reached (for `/healthz`). */
  async ping(): Promise<void> {
    await this.backend.db.selectFrom('records').select('seq').limit(1).execute();
  }

  /**
   * Whether the store can take records now (for `/healthz`): the database answers, the last
   * append did not fail for want of a database that can write (within the last minute, with none
   * stored since), and the views can be written. Rejects when the database cannot be reached.
   */
  async health(): Promise<{ ok: true } | { ok: false; reason: string }> {
    await this.ping();
    const failed = this.appends.unavailable;
    if (failed !== undefined && Date.now() - failed.at < UNHEALTHY_FOR_MS) {
      return { ok: false, reason: `The database cannot store records: none has been stored since ${new Date(failed.at).toISOString()} (${failed.reason}).` };
    }
    // The views could not be written at the last try: try again now, rather than at the next retry.
    if (this.projection.failure !== undefined) await this.projection.caughtUp();
    const views = this.projection.failure;
    if (views !== undefined) return { ok: false, reason: `The database cannot write: records stored since ${new Date(views.at).toISOString()} are not in the views yet (${views.reason}).` };
    return { ok: true };
  }

  /**
   * Deletes what happened before `cutoff` (ms): records, their entries, and the counts over them
   * (retention.ts). One transaction, after the views hold every record committed before the call.
   * Resolves with the records deleted.
   */
  async deleteBefore(cutoff: number): Promise<number> {
    await this.projection.caughtUp();
    return deleteBefore(this.backend, cutoff);
  }

  /**
   * Erases one user of one bot (GDPR art. 17; forget.ts): deletes every record that names them and
   * builds the bot's views again from the others, in ONE transaction, after the views hold every
   * record committed before the call. Logs and keeps the audit line (a hash of the user id, never
   * the id) and resolves with it; a user with no records gives 0 records (erasing twice is harmless).
   * `progress` is told how many of the bot's records were read so far, after each page.
   */
  async forgetUser(request: ForgetRequest, progress?: (read: number) => void): Promise<Erasure> {
    if (this.closed) throw new StoreUnavailableError('The store is closed.');
    await this.projection.caughtUp();
    const erasure = await forgetUser(this.backend, request, progress);
    this.log(erasureLine(erasure));
    this.notify();
    return erasure;
  }

  /**
   * Every record of one user of one bot (GDPR art. 15), as received, in `seq` order: a record is
   * theirs when one of its transcript entries names them. Reads `pageSize` records at a time (by
   * `seq`, after the last one given), each page when the one before has been consumed: a user with
   * 100,000 records is never held in memory. Like every read, waits for the views to hold what was
   * acknowledged before each page. Records the views left out (a record the database refused to
   * index) are not found.
   */
  async *exportUser(request: { bot: string; userId: string }, pageSize = EXPORT_PAGE): AsyncGenerator<StoredRecord> {
    const user = this.dialect.text(request.userId);
    let after = 0;
    for (;;) {
      const marks = await this.db.selectFrom('entries').select('seq').distinct()
        .where('user_id', '=', user).where('bot', '=', request.bot).where('seq', '>', after)
        .orderBy('seq').limit(pageSize).execute();
      if (marks.length === 0) return;
      const seqs = marks.map((mark) => Number(mark.seq));
      after = seqs[seqs.length - 1];
      const rows = await this.backend.db.selectFrom('records').selectAll().where('seq', 'in', seqs).orderBy('seq').execute();
      for (const row of rows) yield recordOf(row, this.dialect);
      if (marks.length < pageSize) return;
    }
  }

  /**
   * Refuses at once, uncommitted, the appends waiting for the views to make room, and any that
   * come to wait (a `CatchingUpError`): the endpoint is closing, and answers them rather than
   * have their connections cut and commit them after.
   */
  stopWaiting(): void {
    this.appends.refuseWaiting();
  }

  /** Waits for appends in progress, adds what they stored to the views, then closes the database. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.appends.settled();
    await this.projection.close();
    this.stopWatching?.();
    this.listeners.clear();
    await this.backend.close();
  }
}
