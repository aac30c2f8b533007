/**
 * The SQLite backend (better-sqlite3, WAL): the default, with nothing to set up. The endpoint
 * holds SQLite's exclusive lock on the file for as long as it runs, so a second endpoint on the
 * same file is refused at start; the lock is the operating system's, so it is released when the
 * process dies, even by kill -9, and a restart (a container's included, whatever its PID) starts
 * at once. A record is acknowledged once its transaction is committed to the write-ahead log:
 * it survives the process being killed; with `fsync` it survives a power cut too.
 */
import { chmod, mkdir, open, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { TrackingEndpointError } from '../errors.js';
import { sqliteDialect } from './dialect.js';
import { loadDriver } from './drivers.js';
import type { Database } from './schema.js';
import type { Backend } from './store.js';

/** How the SQLite backend is opened. */
export interface SqliteOptions {
  /** The database file, or `:memory:`. */
  file: string;
  /** Sync every commit to disk (`synchronous = FULL`). Default: `NORMAL` (a commit survives the process, not the machine). */
  fsync: boolean;
}

/** SQLite result codes that mean "cannot write now" rather than "this record is wrong". */
const UNAVAILABLE = /^SQLITE_(FULL|IOERR|BUSY|LOCKED|READONLY|CANTOPEN|NOTADB|CORRUPT|PROTOCOL)/;

/** The folder and file, created readable by this user only (the data holds conversations). */
async function prepareFile(file: string): Promise<void> {
  const folder = dirname(file);
  const existed = await stat(folder).then(() => true, () => false);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  // A folder the endpoint made for its data (or its default one) is kept 0700, also if made by an older version.
  if (!existed || basename(folder) === '.tracking-data') await chmod(folder, 0o700);
  const handle = await open(file, 'a', 0o600);
  await handle.close();
  await chmod(file, 0o600); // a file made by hand or by an older version (SQLite makes its -wal file with the same mode)
}

/** Opens (creating it if needed) the SQLite database. Rejects with a `TrackingEndpointError` saying what to do. */
export async function openSqlite(options: SqliteOptions): Promise<Backend> {
  const BetterSqlite3 = await loadDriver<typeof import('better-sqlite3')>('better-sqlite3', 'SQLite');
  const memory = options.file === ':memory:';
  let database: import('better-sqlite3').Database;
  try {
    if (!memory) await prepareFile(options.file);
    database = new BetterSqlite3(options.file, { timeout: 250 });
  } catch (error) {
    throw new TrackingEndpointError(`Cannot open the database file ${options.file}: ${(error as Error).message}. Check the path and its permissions, or choose another file (--data).`, { cause: error });
  }
  try {
    // Exclusive first: the WAL index is then kept in memory (no -shm file) and no other process can open the file.
    database.pragma('locking_mode = EXCLUSIVE');
    database.pragma('journal_mode = WAL');
    database.pragma(`synchronous = ${options.fsync ? 'FULL' : 'NORMAL'}`);
    // Take the write lock now, so that a second endpoint on this file is refused at start, not at its first record.
    database.exec('BEGIN IMMEDIATE; COMMIT');
  } catch (error) {
    database.close();
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
      throw new TrackingEndpointError(
        `The database file ${options.file} is in use by another tracking endpoint (or another program). Stop it, or give this endpoint its own file (--data). To run several endpoints on one database, use PostgreSQL (--database postgres://…).`,
        { cause: error },
      );
    }
    throw new TrackingEndpointError(`Cannot use the database file ${options.file}: ${(error as Error).message}. Is it a SQLite database? Choose another file with --data.`, { cause: error });
  }
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  // The query planner's statistics, as SQLite advises for a long-lived connection: at open (after a
  // large import, say) and then hourly. Cheap: it only analyses tables whose size changed a lot.
  const optimize = () => {
    try {
      database.pragma('optimize = 0x10002');
    } catch {
      // Statistics are an optimisation; a failure (the database is busy or closing) is harmless.
    }
  };
  optimize();
  const optimizer = setInterval(optimize, 3_600_000);
  optimizer.unref();
  return {
    dialect: sqliteDialect,
    db,
    location: options.file,
    async allocateSeqs(trx, count) {
      // One writer holds the file (the exclusive lock), so the next numbers follow the highest stored.
      const row = await trx.selectFrom('records').select(sql<number>`coalesce(max(seq), 0)`.as('last')).executeTakeFirstOrThrow();
      return Array.from({ length: count }, (_, i) => Number(row.last) + 1 + i);
    },
    isUnavailable: (error) => UNAVAILABLE.test((error as { code?: string })?.code ?? ''),
    close: async () => {
      clearInterval(optimizer);
      optimize();
      await db.destroy();
    },
  };
}
