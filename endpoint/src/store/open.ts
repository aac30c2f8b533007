/**
 * Opening the store: the database the options name (a PostgreSQL URL, a SQLite file, or SQLite in
 * memory), brought to the latest schema by the migrations, with any NDJSON data of earlier
 * versions imported once.
 */
import { Migrator } from 'kysely';
import { TrackingEndpointError } from '../errors.js';
import { migrationProvider } from './migrations/index.js';
import type { MaskOptions } from './mask.js';
import { importNdjsonOnce, type ImportReport } from './ndjson-import.js';
import { openPostgres, scrubDatabaseSecrets } from './postgres.js';
import { openSqlite } from './sqlite.js';
import type { Backend, DatabaseEvents } from './backend.js';
import { RecordStore } from './store.js';
import type { WaitBounds } from './catching-up.js';

/** Where and how to keep records. */
export interface StoreOptions {
  /**
   * A `postgres://` (or `postgresql://`) URL, a SQLite file path, or `false` for SQLite in memory
   * (records are lost when the endpoint stops).
   */
  database: string | false;
  /** SQLite: sync every commit to disk. */
  fsync?: boolean;
  /** An NDJSON data file of an earlier version to import once (left in place). */
  importFrom?: string;
  /** What is masked in the records imported from `importFrom` (as at ingestion). Default: card numbers and secret-named fields. */
  masking?: MaskOptions;
  /** Where to report what happened (an import, a lost connection). */
  log: (message: string) => void;
  /** PostgreSQL: how long to keep asking whether a commit whose answer was lost committed (ms). Default 4,000. */
  commitCheckMs?: number;
  /** How long a read and a write may wait for the views; default `DEFAULT_WAIT_BOUNDS`. */
  waits?: WaitBounds;
  /** Hears of lost database connections and their return (PostgreSQL). */
  events?: DatabaseEvents;
}

/** An open store, and what opening it did. */
export interface OpenedStore {
  store: RecordStore;
  /** The NDJSON import done at this start, if any. */
  imported?: ImportReport;
}

/** True for a PostgreSQL connection URL. */
export function isPostgresUrl(database: string): boolean {
  return /^postgres(ql)?:\/\//i.test(database);
}

/** A key for PostgreSQL's advisory lock that serialises migrations of endpoints starting together. */
const MIGRATION_LOCK = 72_837_201;

async function migrate(backend: Backend & { pool?: import('pg').Pool }): Promise<void> {
  // Unordered: versions made side by side (0002, 0003) run in name order whichever was applied first.
  const migrator = new Migrator({ db: backend.db, provider: migrationProvider(backend.dialect.name), allowUnorderedMigrations: true });
  const lock = backend.pool === undefined ? undefined : await backend.pool.connect();
  try {
    if (lock) await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const { error, results } = await migrator.migrateToLatest();
    if (error !== undefined) {
      const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'a migration';
      throw new TrackingEndpointError(`Could not bring the database ${backend.location} to the current schema (${failed} failed: ${(error as Error)?.message ?? error}). Nothing was changed by the failed step; check that the database user may create tables.`, { cause: error });
    }
  } finally {
    if (lock) {
      await lock.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
      lock.release();
    }
  }
}

/**
 * Opens the store and migrates it. Rejects with a `TrackingEndpointError` that says what to do
 * when the database cannot be reached or used, or a driver is not installed.
 */
export async function openStore(options: StoreOptions): Promise<OpenedStore> {
  // Stryker disable next-line ConditionalExpression,BooleanLiteral: only for the type: isPostgresUrl(false) tests the text "false", never a PostgreSQL URL
  const backend = options.database !== false && isPostgresUrl(options.database)
    ? await openPostgres({ url: options.database, log: options.log, commitCheckMs: options.commitCheckMs, events: options.events })
    : await openSqlite({ file: options.database === false ? ':memory:' : options.database, fsync: options.fsync ?? false });
  try {
    await migrate(backend);
    const store = new RecordStore(backend, options.log, undefined, options.waits);
    const imported = options.importFrom === undefined ? undefined : await importNdjsonOnce(store, options.importFrom, options.masking);
    return { store, imported };
  } catch (error) {
    await backend.close().catch(() => undefined);
    if (error instanceof TrackingEndpointError) throw error;
    const message = String((error as Error)?.message ?? error);
    const said = options.database === false ? message : scrubDatabaseSecrets(message, options.database);
    throw new TrackingEndpointError(`Could not open the database ${backend.location}: ${said}`, { cause: error });
  }
}
