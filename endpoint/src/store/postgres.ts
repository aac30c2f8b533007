/**
 * The PostgreSQL backend (pg): any number of endpoints on one database, each stateless. Records
 * are numbered by a sequence and bodies kept as jsonb. Whichever endpoint holds an advisory lock
 * builds the views (one at a time), and each batch it adds NOTIFYs every endpoint, so that each
 * live page updates from records any of them accepted (LISTEN on a connection of its own, which
 * comes back by itself after the database went away).
 */
import { PostgresDialect, sql } from 'kysely';
import type { ClientConfig, Pool } from 'pg';
import { TrackingEndpointError } from '../errors.js';
import { insertRecords } from './append.js';
import { CommitOutcomeUnknownError, type Backend, type CommittedRows, type DatabaseEvents } from './backend.js';
import { resolveCommitOutcome, COMMIT_CHECK_MS } from './commit-outcome.js';
import { postgresDialect } from './dialect.js';
import { loadDriver } from './drivers.js';
import { openHandles } from './handles.js';
import { listenForCommits, NOTIFY_CHANNEL } from './listen.js';
import type { RecordRow } from './record-row.js';

/** How the PostgreSQL backend is opened. */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` (any URL `pg` takes). */
  url: string;
  /** Where to report a lost connection and its return. */
  log: (message: string) => void;
  /** Most connections this endpoint opens for queries (one more listens). Default 10. */
  poolSize?: number;
  /** How long to keep asking whether a commit whose answer was lost committed (ms). Default 4,000 (commit-outcome.ts). */
  commitCheckMs?: number;
  /** Hears of lost connections and their return. */
  events?: DatabaseEvents;
}

/** The advisory lock whose holder builds the views (one endpoint at a time). */
export const PROJECTION_LOCK = 72_837_202;

/** Query parameters of a database URL whose values are secrets. */
const SECRET_URL_PARAMETER = /([?&](?:[^=&#]*(?:password|passwd|secret|token)[^=&#]*)=)[^&#]*/gi;

/**
 * The URL with its password masked, for messages, however the URL is written or misencoded:
 * the user part runs from `//` to the LAST `@` (a password may hold unencoded `/ ? # @ :`), and
 * everything in it after the first `:` is the password; a `password` (or `sslpassword`, any name
 * holding password, passwd, secret or token) query parameter is masked too. The URL is not parsed:
 * what a parser takes for the path or query may be the rest of a password.
 */
export function redactDatabaseUrl(url: string): string {
  const start = url.indexOf('//');
  const at = url.lastIndexOf('@');
  let shown = url;
  if (start !== -1 && at > start) {
    const user = url.slice(start + 2, at);
    const colon = user.indexOf(':');
    if (colon !== -1) shown = `${url.slice(0, start + 2)}${user.slice(0, colon)}:***${url.slice(at)}`;
  }
  return shown.replace(SECRET_URL_PARAMETER, '$1***');
}

/** The password in `url`'s user part (see `redactDatabaseUrl`), as written and percent-decoded; empty when it has none. */
function passwordsOf(url: string): string[] {
  const start = url.indexOf('//');
  const at = url.lastIndexOf('@');
  if (start === -1 || at <= start) return [];
  const user = url.slice(start + 2, at);
  const colon = user.indexOf(':');
  const password = colon === -1 ? '' : user.slice(colon + 1);
  if (password === '') return [];
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // A password that is not valid percent-encoding is only ever written as it is.
  }
  return [...new Set([password, decoded])];
}

/**
 * `text` (a driver's message, which may echo the connection string) with `url` shown redacted and
 * its password, as written or decoded, masked wherever else it appears.
 */
export function scrubDatabaseSecrets(text: string, url: string): string {
  let out = text.split(url).join(redactDatabaseUrl(url));
  for (const password of passwordsOf(url)) out = out.split(password).join('***');
  return out;
}

/**
 * Makes a driver's error safe to keep as a `cause` (which callers may print whole): its message and
 * stack scrubbed, and the URL Node's parser keeps in `input` redacted.
 */
function scrubError(error: unknown, url: string): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const e = error as { message?: unknown; stack?: unknown; input?: unknown; errors?: unknown };
  for (const field of ['message', 'stack', 'input'] as const) {
    if (typeof e[field] === 'string') e[field] = scrubDatabaseSecrets(e[field], url);
  }
  if (Array.isArray(e.errors)) for (const inner of e.errors) scrubError(inner, url);
  return error;
}

/** Network errors and SQLSTATE classes that mean "the database cannot be reached or cannot write now". */
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && (NETWORK.has(code) || /^(08|53|57P0|58)/.test(code) || code === '25006')) return true;
  // Stryker disable next-line StringLiteral: no other text without a message matches either
  return /Connection terminated|connection timeout|Client has encountered a connection error|Cannot use a pool after calling end/i.test((error as Error)?.message ?? '');
}

/** The reason a connection failed, in a few words. */
function rawReasonOf(error: unknown): string {
  const e = error as { code?: string; message?: string; errors?: { message?: string }[] };
  // Stryker disable next-line OptionalChaining: an AggregateError (a connection tried on several addresses) holds one error at least
  return e.errors?.[0]?.message ?? e.message ?? String(error);
}

/**
 * Whether every row of `rows`, numbered `seqs`, is in `records` as this endpoint wrote it: its
 * number, when it was received, its bot and its body. (A number alone is not proof: one handed
 * out to a transaction that never reached the disk may be handed out again after a crash.)
 */
async function rowsStored(pool: Pool, rows: readonly RecordRow[], seqs: readonly number[]): Promise<boolean> {
  const { rows: found } = await pool.query<{ n: number }>(
    `select count(*) as n from records as r
     join unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[]) as w(seq, received_at, bot, body)
       on r.seq = w.seq and r.received_at = w.received_at and r.bot = w.bot and r.body = w.body::jsonb`,
    [seqs, rows.map((row) => row.received_at), rows.map((row) => row.bot), rows.map((row) => row.body)],
  );
  return Number(found[0].n) === rows.length;
}

/** Opens a pool on the database and checks it answers. Rejects with a `TrackingEndpointError` saying what to check. */
export async function openPostgres(options: PostgresOptions): Promise<Backend & { pool: Pool }> {
  // Stryker disable next-line StringLiteral: the name is said only when the driver is missing (backends.test pins that message), and pg is installed here
  const pg = await loadDriver<typeof import('pg')>('pg', 'PostgreSQL');
  const shown = redactDatabaseUrl(options.url);
  // What the driver says may echo the connection string (Node's URL parser keeps it in `input`).
  const reasonOf = (error: unknown) => scrubDatabaseSecrets(rawReasonOf(error), options.url);
  // bigint (times, counts) and numeric come back as numbers: every value the store keeps is within 2^53.
  const parseNumber = (value: string) => Number(value);
  const types = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === 20 || oid === 1700 ? parseNumber : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
  };
  const config: ClientConfig = { connectionString: options.url, types, connectionTimeoutMillis: 5_000, application_name: 'tracking-endpoint' };
  const pool = new pg.Pool({ ...config, max: options.poolSize ?? 10 });
  // An idle connection the server closed: the pool replaces it; nothing to crash over.
  pool.on('error', (error) => {
    options.events?.connectionLost('pool');
    options.log(`tracking endpoint: a PostgreSQL connection was lost (${reasonOf(error)}); it will be reopened when needed.`);
  });
  // A connection lost while a query of ours holds it (between two statements of a transaction):
  // that query fails (the database is unavailable); the event itself must not end the process.
  pool.on('connect', (client) => client.on('error', () => undefined));
  try {
    // Stryker disable next-line StringLiteral: what is checked is that a connection can be made; an empty query needs one too
    await pool.query('select 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new TrackingEndpointError(
      `Cannot reach the PostgreSQL database at ${shown} (${reasonOf(error)}). Check that the server is running, that the URL's host, port, user, password and database are right, and that the server accepts connections from this machine (pg_hba.conf).`,
      { cause: scrubError(error, options.url) },
    );
  }
  const handles = openHandles(new PostgresDialect({ pool }));
  const { db } = handles;
  const unprojected = async (which: 'max' | 'min') => {
    const { rows } = await pool.query<{ seq: number | null }>(`select ${which}(seq) as seq from unprojected`);
    return Number(rows[0].seq ?? 0); // max() and min() give one row, null when there are no marks
  };
  const checkMs = options.commitCheckMs ?? COMMIT_CHECK_MS;
  /**
   * The COMMIT of `rows` (numbered `seqs`) was sent and failed with `error`, maybe after it took
   * effect (the connection was lost before its answer): resolves if the rows are
   * there, rejects with `error` if not, or with a `CommitOutcomeUnknownError` when the database
   * does not answer within `checkMs`.
   */
  const settleCommit = async (rows: readonly RecordRow[], seqs: number[], error: unknown): Promise<void> => {
    const outcome = await resolveCommitOutcome(() => rowsStored(pool, rows, seqs), checkMs);
    const lost = `tracking endpoint: the answer to a commit of ${rows.length} record(s) was lost (${reasonOf(error)})`;
    if (outcome === 'committed') {
      options.log(`${lost}; they are stored.`);
      return;
    }
    if (outcome === 'not committed') {
      options.log(`${lost}; they were not stored.`);
      throw error;
    }
    options.log(`${lost}; the database did not answer within ${checkMs} ms whether they are stored.`);
    throw new CommitOutcomeUnknownError(
      // Without the connection error's words: this error is not one of "the database cannot write now" (nothing stored).
      `The connection to the database was lost while the record was being committed, and the database did not answer within ${checkMs} ms whether it was stored: it may have been.`,
      { cause: scrubError(error, options.url) },
    );
  };
  const backend: Backend & { pool: Pool } = {
    pool,
    dialect: postgresDialect,
    db,
    gatedDb: handles.gated,
    location: shown,
    async allocateSeqs(trx, count) {
      const { rows } = await sql<{ seq: number }>`select nextval('record_seq') as seq from generate_series(1, ${count})`.execute(trx);
      // Stryker disable next-line MethodExpression,ArithmeticOperator,ArrowFunction: nextval over generate_series comes in order (backends.test pins it); the sort only guards against a plan that would not
      return rows.map((row) => Number(row.seq)).sort((a, b) => a - b);
    },
    async commitRecords(rows) {
      let committed: CommittedRows | undefined;
      try {
        return await db.transaction().execute(async (trx) => (committed = await insertRecords(trx, backend, rows)));
      } catch (error) {
        // Failed before its COMMIT was sent (rolled back), or the database answered the COMMIT with a refusal: nothing stored.
        if (committed === undefined || !isUnavailable(error)) throw error;
        // What the transaction wrote is what to look for: not the rows found stored before by their key (those stay stored either way).
        const { seqs, duplicates } = committed;
        const mine = duplicates === undefined ? [...rows.keys()] : [...rows.keys()].filter((i) => !duplicates.has(i));
        await settleCommit(mine.map((i) => rows[i]), mine.map((i) => seqs[i]), error);
        return committed;
      }
    },
    highestUnprojected: () => unprojected('max'),
    lowestUnprojected: () => unprojected('min'),
    async countUnprojected(atMost) {
      const { rows } = await pool.query<{ n: number }>('select count(*) as n from (select 1 from unprojected limit $1) as marks', [atMost]);
      return Number(rows[0].n);
    },
    async lockProjection(trx, wait) {
      if (wait) {
        await sql`select pg_advisory_xact_lock(${PROJECTION_LOCK})`.execute(trx);
        return true;
      }
      const { rows } = await sql<{ held: boolean }>`select pg_try_advisory_xact_lock(${PROJECTION_LOCK}) as held`.execute(trx);
      return rows[0].held;
    },
    async afterProjecting(trx, lastSeq) {
      // Delivered to every listener (this endpoint's included) when the transaction commits, never before.
      await sql`select pg_notify(${NOTIFY_CHANNEL}, ${String(lastSeq)})`.execute(trx);
    },
    watchOthers: (listener) => listenForCommits({ pg, config, listener, log: options.log, events: options.events }),
    isUnavailable,
    async close() {
      await db.destroy();
      // Kysely ends the pool only if it ever used it; the connection made at open must go too.
      if (!pool.ended) await pool.end();
    },
  };
  return backend;
}
