/**
 * The two Kysely handles on one database: the store's own, and the one the read side is given.
 * Both share one driver (SQLite's one connection and its mutex, or PostgreSQL's pool), so a write
 * of the store and a read never run on the connection at once. The read handle waits, before each
 * query takes a connection, until the views (entries and summary tables, built behind the
 * acknowledgements by projection.ts) hold every record committed when the query was asked: a
 * read sees every record acknowledged before it.
 */
import { Kysely, type DatabaseConnection, type Dialect as KyselyDialect, type Driver, type QueryCompiler, type TransactionSettings } from 'kysely';
import type { Database } from './schema.js';

/** A driver that two Kysely instances share: initialised once, destroyed once. */
class SharedDriver implements Driver {
  private initialised: Promise<void> | undefined;
  private destroyed: Promise<void> | undefined;

  constructor(readonly inner: Driver) {}

  init(): Promise<void> {
    return (this.initialised ??= this.inner.init());
  }

  acquireConnection(): Promise<DatabaseConnection> {
    return this.inner.acquireConnection();
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    // Stryker disable next-line OptionalChaining: both drivers (Kysely's SQLite and PostgreSQL ones) have savepoints
    await this.inner.savepoint?.(connection, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    // Stryker disable next-line OptionalChaining: both drivers (Kysely's SQLite and PostgreSQL ones) have savepoints
    await this.inner.rollbackToSavepoint?.(connection, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    // Stryker disable next-line OptionalChaining: both drivers (Kysely's SQLite and PostgreSQL ones) have savepoints
    await this.inner.releaseSavepoint?.(connection, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    // Stryker disable next-line ArrowFunction: Kysely destroys a driver only once its init succeeded (RuntimeDriver), so the failed-init branch cannot run through Kysely; it is kept for a caller that does
    return (this.destroyed ??= this.init().then(() => this.inner.destroy(), () => this.inner.destroy()));
  }
}

/** The shared driver, with `acquireConnection` waiting for `gate` first; destroying it leaves the database open. */
class GatedDriver extends SharedDriver {
  constructor(private readonly shared: SharedDriver, private readonly gate: () => Promise<void>) {
    super(shared.inner);
  }

  override init(): Promise<void> {
    return this.shared.init();
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    await this.gate();
    return this.shared.acquireConnection();
  }

  // Stryker disable next-line BlockStatement: returning undefined instead of a resolved promise; Kysely awaits either (handles.test pins that the database stays open)
  override destroy(): Promise<void> {
    return Promise.resolve(); // the store's own handle closes the database
  }
}

function withDriver(dialect: KyselyDialect, driver: Driver): KyselyDialect {
  return {
    createDriver: () => driver,
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

/** The store's own handle on a database, and a way to make the read side's from it. */
export interface Handles {
  /** The store's own handle: never waits for the views. `destroy()` closes the database. */
  readonly db: Kysely<Database>;
  /** A handle on the same connection(s) whose every query first waits for `gate`. */
  gated(gate: () => Promise<void>): Kysely<Database>;
}

/** Opens the handles on `dialect` (Kysely's SqliteDialect or PostgresDialect). */
export function openHandles(dialect: KyselyDialect): Handles {
  const shared = new SharedDriver(dialect.createDriver());
  return {
    db: new Kysely<Database>({ dialect: withDriver(dialect, shared) }),
    gated: (gate) => new Kysely<Database>({ dialect: withDriver(dialect, new GatedDriver(shared, gate)) }),
  };
}
