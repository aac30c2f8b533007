/**
 * The SQLite backend (better-sqlite3, WAL): the default, with nothing to set up. The endpoint
 * holds SQLite's exclusive lock on the file for as long as it runs, so a second endpoint on the
 * same file is refused at start; the lock is the operating system's, so it is released when the
 * process dies, even by kill -9, and a restart (a container's included, whatever its PID) starts
 * at once. A record is acknowledged once its transaction is committed to the write-ahead log:
 * it survives the process being killed; with `fsync` it survives a power cut too.
 *
 * One connection, shared by the store's writes and the read side through Kysely's mutex. Statements
 * are prepared once and kept (Kysely's driver would prepare each query again); the records'
 * commit, the hot path, runs as one synchronous better-sqlite3 transaction of statements compiled
 * by Kysely once.
 */
import { chmod, mkdir, open, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SqliteDialect, sql, type Kysely, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import { TrackingEndpointError } from '../errors.js';
import type { Backend, CommittedRows } from './backend.js';
import { sqliteDialect } from './dialect.js';
import { loadDriver } from './drivers.js';
import { openHandles } from './handles.js';
import type { RecordRow } from './record-row.js';
import type { Database } from './schema.js';

/** How the SQLite backend is opened. */
export interface SqliteOptions {
  /** The database file, or `:memory:`. */
  file: string;
  /** Sync every commit to disk (`synchronous = FULL`). Default: `NORMAL` (a commit survives the process, not the machine). */
  fsync: boolean;
}

/** SQLite result codes (and the system's own) that mean "cannot write now" rather than "this record is wrong". */
const UNAVAILABLE = /^(SQLITE_(FULL|IOERR|BUSY|LOCKED|READONLY|CANTOPEN|NOTADB|CORRUPT|PROTOCOL)|ENOSPC$|EDQUOT$|EROFS$|EIO$)/;

/** Statements kept prepared, at most; longer SQL (a many-row insert) is prepared each time. */
const CACHED_STATEMENTS = 128;
const CACHED_SQL_LENGTH = 8_000;

/**
 * The database as Kysely's driver uses it: prepared statements kept by their SQL (the 128 used
 * last, each under 8,000 characters), and a rollback that does nothing when SQLite has already
 * rolled the transaction back by itself (as it does on a full disk), so that the error that caused
 * it is the one reported.
 */
export function keptStatements(database: BetterSqlite3.Database): SqliteDatabase {
  const kept = new Map<string, SqliteStatement>();
  const rollback = database.prepare('rollback');
  const safeRollback: SqliteStatement = {
    reader: false,
    // Stryker disable next-line ArrayDeclaration,ArrowFunction: Kysely runs a statement that is no reader with run(), never all()
    all: () => [],
    run: () => (database.inTransaction ? rollback.run() : { changes: 0, lastInsertRowid: 0 }),
    // Stryker disable next-line ArrayDeclaration,ArrowFunction: nor iterate()
    iterate: () => [][Symbol.iterator](),
  };
  return {
    close: () => database.close(),
    prepare(text) {
      if (text === 'rollback') return safeRollback;
      let statement = kept.get(text);
      if (statement !== undefined) {
        kept.delete(text); // most recently used last
      } else {
        statement = database.prepare(text) as unknown as SqliteStatement;
        if (text.length > CACHED_SQL_LENGTH) return statement;
        if (kept.size >= CACHED_STATEMENTS) kept.delete(kept.keys().next().value!);
      }
      kept.set(text, statement);
      return statement;
    },
  };
}

/**
 * A `.gitignore` of `*` in a folder the endpoint keeps its data in, so that `git add .` in a bot's
 * project never commits transcripts. One already there (the user's own) is left as it is.
 */
async function ignoreInGit(folder: string): Promise<void> {
  // 'wx': only when there is none. A failure is not the data's: opening the database says what is wrong with the folder.
  await writeFile(join(folder, '.gitignore'), '# Made by the tracking endpoint: the data here holds conversations; keep it out of git.\n*\n', { flag: 'wx', mode: 0o600 }).catch(() => undefined);
}

/** The folder and file, created readable by this user only (the data holds conversations). */
async function prepareFile(file: string): Promise<void> {
  const folder = dirname(file);
  // The first folder made, if any (mkdir's mode is narrowed by the umask: chmod gives 0700 whatever it is).
  const made = await mkdir(folder, { recursive: true, mode: 0o700 });
  // A folder the endpoint made for its data (or its default one) is kept 0700, also if made by an older version.
  if (made !== undefined || basename(folder) === '.tracking-data') {
    await chmod(folder, 0o700);
    await ignoreInGit(folder);
  }
  const handle = await open(file, 'a', 0o600);
  await handle.close();
  await chmod(file, 0o600); // a file made by hand or by an older version (SQLite makes its -wal file with the same mode)
}

/** The hot path's statements: committing records, and finding what the views lack. */
function prepareHot(database: BetterSqlite3.Database, db: Kysely<Database>) {
  const columns = ['seq', 'received_at', 'occurred_at', 'platform', 'platform_kind', 'v', 'type', 'bot', 'body', 'idempotency_key'] as const;
  const insertRecord = database.prepare(db.insertInto('records').values(Object.fromEntries(columns.map((c) => [c, null])) as never).compile().sql);
  const insertMark = database.prepare(db.insertInto('unprojected').values({ seq: 0 }).compile().sql);
  // One writer holds the file (the exclusive lock), so the next numbers follow the highest used (a mark outlives a record deleted by retention).
  const lastSeq = database.prepare<[], number>(sql`select ${NEXT_AFTER}`.compile(db).sql).pluck();
  // The record of a bot stored with an idempotency key (records_idempotency, migration 0007).
  // Stryker disable next-line StringLiteral: placeholders: only the compiled SQL is kept, not these values
  const keyed = database.prepare<[string, string], number>(db.selectFrom('records').select('seq').where('bot', '=', '').where('idempotency_key', '=', '').compile().sql).pluck();
  return {
    // One writer, one transaction at a time: a key is looked up and its row inserted with nothing in between.
    // Numbers are taken only by rows stored, so the marks stay one run (see countUnprojected).
    commit: database.transaction((rows: readonly RecordRow[]): CommittedRows => {
      let next = lastSeq.get()! + 1;
      let duplicates: Set<number> | undefined;
      const seqs = rows.map((row, i) => {
        const key = row.idempotency_key ?? null;
        // Stryker disable next-line ConditionalExpression: a lookup of a null key finds nothing (NULL = NULL is not true in SQL); the test only spares it
        const stored = key === null ? undefined : keyed.get(row.bot, key);
        if (stored !== undefined) {
          (duplicates ??= new Set()).add(i);
          return stored;
        }
        insertRecord.run(next, row.received_at, row.occurred_at, row.platform ?? null, row.platform_kind ?? null, row.v ?? null, row.type, row.bot, row.body, key);
        insertMark.run(next);
        return next++;
      });
      return { seqs, duplicates };
    }),
    // Stryker disable next-line StringLiteral: the column's name is never read (pluck)
    highest: database.prepare<[], number | null>(db.selectFrom('unprojected').select((eb) => eb.fn.max('seq').as('seq')).compile().sql).pluck(),
    // Stryker disable next-line StringLiteral: likewise
    lowest: database.prepare<[], number | null>(db.selectFrom('unprojected').select((eb) => eb.fn.min('seq').as('seq')).compile().sql).pluck(),
  };
}

/** The highest number used: of a record, or of a mark (which outlives a record retention deleted). */
const NEXT_AFTER = sql<number>`max(coalesce((select max(seq) from records), 0), coalesce((select max(seq) from unprojected), 0))`;

/** Opens (creating it if needed) the SQLite database. Rejects with a `TrackingEndpointError` saying what to do. */
export async function openSqlite(options: SqliteOptions): Promise<Backend> {
  // Stryker disable next-line StringLiteral: the name is said only when the driver is missing (backends.test pins that message), and better-sqlite3 is installed here
  const Driver = await loadDriver<typeof import('better-sqlite3')>('better-sqlite3', 'SQLite');
  const memory = options.file === ':memory:';
  let database: BetterSqlite3.Database;
  try {
    if (!memory) await prepareFile(options.file);
    database = new Driver(options.file, { timeout: 250 });
  } catch (error) {
    throw new TrackingEndpointError(`Cannot open the database file ${options.file}: ${(error as Error).message}. Check the path and its permissions, or choose another file (--data).`, { cause: error });
  }
  try {
    // Exclusive first: the WAL index is then kept in memory (no -shm file) and no other process can open the file.
    database.pragma('locking_mode = EXCLUSIVE');
    database.pragma('journal_mode = WAL');
    database.pragma(`synchronous = ${options.fsync ? 'FULL' : 'NORMAL'}`);
    // Take the write lock now, so that a second endpoint on this file is refused at start, not at its first record.
    // (The switch to WAL in exclusive mode takes it already, on a new file and on one in WAL already: a second
    // open was refused without this line too. It stays, so as not to rely on that.)
    // Stryker disable next-line StringLiteral: see above
    database.exec('BEGIN IMMEDIATE; COMMIT');
  } catch (error) {
    database.close();
    // Stryker disable next-line StringLiteral: an error without a code is not "busy" either way
    const code = (error as { code?: string }).code ?? '';
    // Stryker disable next-line MethodExpression: also the extended codes (SQLITE_BUSY_RECOVERY…), which cannot be made on demand; a busy file gives SQLITE_BUSY
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
      throw new TrackingEndpointError(
        `The database file ${options.file} is in use by another tracking endpoint (or another program). Stop it, or give this endpoint its own file (--data). To run several endpoints on one database, use PostgreSQL (--database postgres://…).`,
        { cause: error },
      );
    }
    throw new TrackingEndpointError(`Cannot use the database file ${options.file}: ${(error as Error).message}. Is it a SQLite database? Choose another file with --data.`, { cause: error });
  }
  const handles = openHandles(new SqliteDialect({ database: keptStatements(database) }));
  const { db } = handles;
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
  // The hot path: statements compiled by Kysely once, prepared at first use (after the migrations), run in one synchronous transaction.
  let hot: ReturnType<typeof prepareHot> | undefined;
  const prepared = () => (hot ??= prepareHot(database, db));
  return {
    dialect: sqliteDialect,
    db,
    gatedDb: handles.gated,
    location: options.file,
    async allocateSeqs(trx, count) {
      const row = await trx.selectNoFrom(NEXT_AFTER.as('last')).executeTakeFirstOrThrow();
      return Array.from({ length: count }, (_, i) => Number(row.last) + 1 + i);
    },
    // Inside Kysely's mutex: never in the middle of another transaction on the connection.
    commitRecords: (rows) => db.connection().execute(async () => prepared().commit(rows)),
    highestUnprojected: async () => prepared().highest.get() ?? 0,
    lowestUnprojected: async () => prepared().lowest.get() ?? 0,
    // The marks are one run of numbers (taken in order, removed from the lowest), so no need to count them.
    async countUnprojected(atMost) {
      const lowest = prepared().lowest.get();
      return lowest == null ? 0 : Math.min(atMost, prepared().highest.get()! - lowest + 1);
    },
    prepare(text) {
      const statement = database.prepare(text);
      return (parameters) => void statement.run(parameters);
    },
    // The exclusive lock on the file makes this endpoint the only one; its transactions run one at a time.
    lockProjection: async () => true,
    // SQLite's online backup, a few pages at a time between the endpoint's own statements; a write on
    // this connection meanwhile is copied too. (No other process can read the file: it is locked.)
    backup: async (file) => {
      await database.backup(file);
    },
    // Stryker disable next-line StringLiteral: no other text without a code matches either
    isUnavailable: (error) => UNAVAILABLE.test((error as { code?: string })?.code ?? ''),
    close: async () => {
      clearInterval(optimizer);
      optimize();
      await db.destroy();
    },
  };
}
