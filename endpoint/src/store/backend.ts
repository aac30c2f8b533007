/**
 * What each database does of its own for the store (sqlite.ts, postgres.ts): numbering and
 * committing records, who may build the views, telling other endpoints, and which failures mean
 * "cannot write now".
 */
import type { Kysely, Transaction } from 'kysely';
import type { RecordRow } from './record-row.js';
import type { Dialect } from './dialect.js';
import type { Database } from './schema.js';

/** The database-specific part of a store. */
export interface Backend {
  readonly dialect: Dialect;
  /** The store's own handle: its queries never wait for the views. */
  readonly db: Kysely<Database>;
  /** A handle on the same database whose every query first waits for `gate` (what the read side is given). */
  gatedDb(gate: () => Promise<void>): Kysely<Database>;
  /** What to show users: the SQLite file (or `:memory:`), or the PostgreSQL URL without its password. */
  readonly location: string;
  /** Numbers for `count` new records, in increasing order, inside `trx`. */
  allocateSeqs(trx: Transaction<Database>, count: number): Promise<number[]>;
  /**
   * Numbers `rows` and commits them, each marked unprojected, in one transaction; a row whose
   * (bot, idempotency key) is stored already is not stored again. Resolves once committed with
   * each row's number, in order (for such a row, the stored record's); rejects with nothing stored.
   * `rows` hold no two of one (bot, key).
   */
  commitRecords(rows: readonly RecordRow[]): Promise<CommittedRows>;
  /** The highest number marked unprojected (0 for none), as committed now. */
  highestUnprojected(): Promise<number>;
  /** The lowest number marked unprojected (0 for none), as committed now. */
  lowestUnprojected(): Promise<number>;
  /** How many records are marked unprojected, counted up to `atMost`. */
  countUnprojected(atMost: number): Promise<number>;
  /**
   * Takes the right to build the views in `trx`, until it ends: one endpoint at a time. Resolves
   * false when another endpoint holds it and `wait` is false.
   */
  lockProjection(trx: Transaction<Database>, wait: boolean): Promise<boolean>;
  /**
   * Where statements cost more to prepare than to run (SQLite): prepares `sql` once and returns a
   * function that runs it, synchronously, on the connection (inside the caller's transaction).
   */
  prepare?(sql: string): (parameters: readonly unknown[]) => void;
  /** Runs in a projection's transaction, last (PostgreSQL: NOTIFY every endpoint's live page). */
  afterProjecting?(trx: Transaction<Database>, lastSeq: number): Promise<void>;
  /**
   * Calls `listener` whenever the views may have changed in another process, or when news of
   * that may have been missed (a lost connection). Returns the function that stops it.
   */
  watchOthers?(listener: () => void): () => void;
  /**
   * Writes a consistent copy of the whole database to `file` while it goes on working (SQLite's
   * online backup; PostgreSQL has none here: pg_dump does it). Rejects with nothing kept at `file`
   * being usable.
   */
  backup?(file: string): Promise<void>;
  /** Whether a failure means the database cannot be reached or cannot write now (rather than a bad record). */
  isUnavailable(error: unknown): boolean;
  close(): Promise<void>;
}

/** What a commit of rows did with each. */
export interface CommittedRows {
  /** Each row's number, in order: its own, or, for a row in `duplicates`, the number of the record stored before with its (bot, key). */
  seqs: number[];
  /** The rows (by index) not stored because a record with their (bot, idempotency key) was; absent when none. */
  duplicates?: ReadonlySet<number>;
}

/** What the store tells of the database's failures and returns (for the endpoint's metrics). */
export interface DatabaseEvents {
  /** A connection to the database was lost: `pool`, one that runs queries; `listen`, the one that brings other endpoints' commits. */
  connectionLost(connection: 'pool' | 'listen'): void;
  /** The connection that brings other endpoints' commits is back after it was lost. */
  reconnected(): void;
}

/** The database could not store the record (unreachable, full, read-only): nothing was stored. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * The database's connection was lost after a transaction's COMMIT was sent and before its answer
 * came, and the database did not answer again in time to tell whether the records were stored:
 * they may have been. Retrying them may store them twice.
 */
export class CommitOutcomeUnknownError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CommitOutcomeUnknownError';
  }
}
