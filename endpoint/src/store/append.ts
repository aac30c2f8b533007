/**
 * Acknowledging records: appends that arrive together are committed together, each as its row in
 * `records` (everything needed to rebuild the rest: number, bot, times, body) and its mark in
 * `unprojected`, one transaction per batch; an append resolves once that transaction is committed.
 * Entries and summaries are built behind it (projection.ts). A batch that fails is retried record
 * by record, so that one record the database refuses never takes the others down with it.
 *
 * Idempotency keys: a record sent with a key that its bot's records already hold is not stored
 * again; its append resolves with the stored record's number. Two appends of one (bot, key) in one
 * batch commit one row, and both resolve with its number; the other records of the batch are
 * committed as usual.
 */
import type { Transaction } from 'kysely';
import { CommitOutcomeUnknownError, StoreUnavailableError, type Backend, type CommittedRows } from './backend.js';
import { recordRow, type RecordRow } from './record-row.js';
import type { Database } from './schema.js';
import type { StoredRecord } from '../types.js';

/** Most records in one transaction. */
const MAX_BATCH = 500;
/** Rows per INSERT statement: well under SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const ROWS_PER_INSERT = 400;

/** A row's bot and idempotency key, as one string (a bot's name holds no U+0000). */
const keyOf = (row: Pick<RecordRow, 'bot' | 'idempotency_key'>): string => `${row.bot}\u0000${row.idempotency_key}`;

/**
 * Numbers `rows` and inserts them, each marked unprojected, in `trx`; a row whose (bot,
 * idempotency key) is stored already (committed, or committed meanwhile by the transaction that
 * holds it) is not stored again, and takes that record's number. `rows` hold no two of one (bot,
 * key). Keyed rows go in in the order of their keys, so that two endpoints inserting the same
 * keys wait for each other in one order and never deadlock. The statement keeps the existing row
 * as it is (its key set to itself): only so that it names the row, whose number it returns.
 */
export async function insertRecords(trx: Transaction<Database>, backend: Backend, rows: readonly RecordRow[]): Promise<CommittedRows> {
  const seqs = await backend.allocateSeqs(trx, rows.length);
  const plain: number[] = [];
  const keyed: number[] = [];
  rows.forEach((row, i) => (row.idempotency_key == null ? plain : keyed).push(i));
  let duplicates: Set<number> | undefined;
  for (let i = 0; i < plain.length; i += ROWS_PER_INSERT) {
    const part = plain.slice(i, i + ROWS_PER_INSERT);
    await trx.insertInto('records').values(part.map((at) => ({ seq: seqs[at], ...rows[at] }))).execute();
    await trx.insertInto('unprojected').values(part.map((at) => ({ seq: seqs[at] }))).execute();
  }
  // Stryker disable next-line MethodExpression,ArrowFunction,ConditionalExpression,EqualityOperator,UnaryOperator: any order stores the same rows; one order for every endpoint only keeps two of them from deadlocking, which one endpoint alone cannot show
  keyed.sort((a, b) => (keyOf(rows[a]) < keyOf(rows[b]) ? -1 : 1));
  for (let i = 0; i < keyed.length; i += ROWS_PER_INSERT) {
    const part = keyed.slice(i, i + ROWS_PER_INSERT);
    const found = await trx.insertInto('records').values(part.map((at) => ({ seq: seqs[at], ...rows[at] })))
      .onConflict((oc) => oc.columns(['bot', 'idempotency_key']).where('idempotency_key', 'is not', null)
        .doUpdateSet((eb) => ({ idempotency_key: eb.ref('excluded.idempotency_key') })))
      .returning(['seq', 'bot', 'idempotency_key']).execute();
    const stored = new Map(found.map((row) => [keyOf(row), Number(row.seq)]));
    const fresh: number[] = [];
    for (const at of part) {
      const seq = stored.get(keyOf(rows[at]))!;
      if (seq === seqs[at]) fresh.push(seq);
      else {
        seqs[at] = seq;
        (duplicates ??= new Set()).add(at);
      }
    }
    if (fresh.length > 0) await trx.insertInto('unprojected').values(fresh.map((seq) => ({ seq }))).execute();
  }
  return { seqs, duplicates };
}

/** A record as its append resolves: numbered, and marked when it was stored before under its idempotency key. */
export interface AppendedRecord extends StoredRecord {
  /** True: a record of the bot with the same idempotency key was stored before; `seq` is that record's, and nothing was stored now. */
  duplicate?: true;
}

interface PendingAppend {
  record: StoredRecord;
  row: RecordRow;
  /** When it was queued (ms, `performance.now()`: the bound is one of real time). */
  queuedAt: number;
  resolve(record: AppendedRecord): void;
  reject(error: unknown): void;
}

/** What the queue tells and asks of the store around each commit. */
export interface AppendHooks {
  /** Resolves when acknowledging more may go on (the views are not too far behind). */
  room(): Promise<void>;
  /** The error appends that waited `waitedMs` for room, and were not committed, are refused with. */
  noRoom(waitedMs: number): Promise<unknown>;
  /** `count` records were committed (stored now: not those found stored before by their idempotency key). */
  committed(count: number): void;
}

/** The appends of one store, batched into transactions. */
export class AppendQueue {
  private queue: PendingAppend[] = [];
  private draining: Promise<void> | undefined;
  /** When the last append arrived (ms, on `now`). */
  lastAppendAt = 0;
  /** The first of the failures since the last success, when the last batch failed because the database cannot write. */
  unavailable: { at: number; reason: string } | undefined;

  /**
   * `now`: the monotonic clock `lastAppendAt` is read on (the projection's). `maxWaitMs`: how long
   * an append may wait for room (`hooks.room`) before it is refused, uncommitted.
   */
  constructor(private readonly backend: Backend, private readonly hooks: AppendHooks, private readonly now: () => number = () => performance.now(), private maxWaitMs = Infinity) {}
  /** Ends the wait of `room()` for its next look, while it waits. */
  private wake: (() => void) | undefined;

  /**
   * Queues a record (already timestamped), sent with `idempotencyKey` if given; resolves with it,
   * numbered, once it is committed, or with the record of its bot stored before with that key.
   */
  append(record: StoredRecord, json: string, idempotencyKey?: string): Promise<AppendedRecord> {
    const row = recordRow(record, json, this.backend.dialect);
    row.idempotency_key = idempotencyKey ?? null;
    this.lastAppendAt = this.now();
    return new Promise((resolve, reject) => {
      this.queue.push({ record, row, queuedAt: performance.now(), resolve, reject });
      this.draining ??= new Promise<void>((done) => setImmediate(done)).then(() => this.drain());
    });
  }

  /** Appends queued or being committed. */
  get pending(): number {
    return this.queue.length;
  }

  /** Resolves once every append queued so far is settled. */
  async settled(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        await this.room();
        // Every append queued was refused while waiting for room.
        if (this.queue.length === 0) break;
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          await this.commit(batch);
        } catch (error) {
          // A batch that may have been stored (its commit's answer was lost) is never committed again.
          if (batch.length === 1 || error instanceof CommitOutcomeUnknownError || this.backend.isUnavailable(error)) {
            const failure = this.failure(error);
            for (const pending of batch) pending.reject(failure);
          } else {
            // One record the database refuses must not fail the batch: each on its own.
            for (const pending of batch) await this.commit([pending]).catch((single) => pending.reject(this.failure(single)));
          }
        }
      }
    } finally {
      this.draining = undefined;
    }
  }

  /**
   * Resolves when there is room to commit more, or when no append is left waiting. While there
   * is no room, refuses (uncommitted, so not stored) the queued appends that have waited
   * `maxWaitMs`, oldest first, as each reaches it.
   */
  private async room(): Promise<void> {
    if (this.maxWaitMs === Infinity) return this.hooks.room();
    let open = false;
    const room = this.hooks.room().then(() => {
      open = true;
    });
    // Room that is there already (the usual case) is taken before any bound is looked at: a write
    // is refused only for want of room, also once the endpoint is closing (maxWaitMs 0).
    await Promise.race([room, new Promise<void>((resolve) => setImmediate(resolve))]);
    while (!open && this.queue.length > 0) {
      const wait = this.queue[0].queuedAt + this.maxWaitMs - performance.now();
      if (wait > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([room, new Promise<void>((resolve) => {
          // Unref'd: the requests waiting hold the process, not this timer.
          timer = setTimeout(resolve, wait).unref();
          this.wake = resolve;
        })]);
        clearTimeout(timer);
        continue;
      }
      const refusal = await this.hooks.noRoom(Math.round(performance.now() - this.queue[0].queuedAt));
      const due = performance.now() - this.maxWaitMs;
      let late = 0;
      while (late < this.queue.length && this.queue[late].queuedAt <= due) late++;
      for (const pending of this.queue.splice(0, late)) pending.reject(refusal);
    }
  }

  /**
   * From now on refuses at once, uncommitted, the appends that wait for room (the endpoint is
   * closing: it answers them 503 rather than have their connections cut and commit them after).
   */
  refuseWaiting(): void {
    this.maxWaitMs = 0;
    this.wake?.();
  }

  /**
   * The error an append rejects with: a `StoreUnavailableError` when the database cannot write now
   * (nothing stored), a `CommitOutcomeUnknownError` when it may have been stored, else its own.
   */
  private failure(error: unknown): unknown {
    const unknown = error instanceof CommitOutcomeUnknownError;
    if (!unknown && !this.backend.isUnavailable(error)) return error;
    const reason = (error as Error)?.message ?? String(error);
    this.unavailable ??= { at: Date.now(), reason };
    return unknown || error instanceof StoreUnavailableError ? error : new StoreUnavailableError(`The database cannot store records now: ${reason}`, { cause: error });
  }

  private async commit(batch: PendingAppend[]): Promise<void> {
    // One row per (bot, key): a later append of a key in the batch takes the answer of the first (`same`).
    const rows: RecordRow[] = [];
    let same: number[] | undefined;
    let firsts: Map<string, number> | undefined;
    batch.forEach((pending, i) => {
      const { row } = pending;
      if (row.idempotency_key == null) {
        rows.push(row);
        return;
      }
      firsts ??= new Map();
      const first = firsts.get(keyOf(row));
      if (first === undefined) {
        firsts.set(keyOf(row), rows.length);
        rows.push(row);
      } else {
        same ??= [];
        same[i] = first;
      }
    });
    const { seqs, duplicates } = await this.backend.commitRecords(rows);
    this.unavailable = undefined;
    // Stryker disable next-line ArithmeticOperator,LogicalOperator,ConditionalExpression,EqualityOperator: the count only paces the projection's next run (projection.wake); what the views hold is read from the marks, whatever it says
    const stored = rows.length - (duplicates?.size ?? 0);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: see above
    if (stored > 0) this.hooks.committed(stored);
    let row = 0;
    batch.forEach((pending, i) => {
      const first = same?.[i];
      const at = first ?? row++;
      const record: AppendedRecord = { ...pending.record, seq: seqs[at], occurredAt: new Date(pending.row.occurred_at).toISOString() };
      if (first !== undefined || duplicates?.has(at) === true) record.duplicate = true;
      pending.resolve(record);
    });
  }
}
