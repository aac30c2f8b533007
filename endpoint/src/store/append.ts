/**
 * Acknowledging records: appends that arrive together are committed together, each as its row in
 * `records` (everything needed to rebuild the rest: number, bot, times, body) and its mark in
 * `unprojected`, one transaction per batch; an append resolves once that transaction is committed.
 * Entries and summaries are built behind it (projection.ts). A batch that fails is retried record
 * by record, so that one record the database refuses never takes the others down with it.
 */
import type { Transaction } from 'kysely';
import { CommitOutcomeUnknownError, StoreUnavailableError, type Backend } from './backend.js';
import { recordRow, type RecordRow } from './record-row.js';
import type { Database } from './schema.js';
import type { StoredRecord } from '../types.js';

/** Most records in one transaction. */
const MAX_BATCH = 500;
/** Rows per INSERT statement: well under SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const ROWS_PER_INSERT = 400;

/** Numbers `rows` and inserts them, each marked unprojected, in `trx`. Resolves with their numbers, in order. */
export async function insertRecords(trx: Transaction<Database>, backend: Backend, rows: readonly RecordRow[]): Promise<number[]> {
  const seqs = await backend.allocateSeqs(trx, rows.length);
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const part = seqs.slice(i, i + ROWS_PER_INSERT);
    await trx.insertInto('records').values(part.map((seq, j) => ({ seq, ...rows[i + j] }))).execute();
    await trx.insertInto('unprojected').values(part.map((seq) => ({ seq }))).execute();
  }
  return seqs;
}

interface PendingAppend {
  record: StoredRecord;
  row: RecordRow;
  /** When it was queued (ms, `performance.now()`: the bound is one of real time). */
  queuedAt: number;
  resolve(record: StoredRecord): void;
  reject(error: unknown): void;
}

/** What the queue tells and asks of the store around each commit. */
export interface AppendHooks {
  /** Resolves when acknowledging more may go on (the views are not too far behind). */
  room(): Promise<void>;
  /** The error appends that waited `waitedMs` for room, and were not committed, are refused with. */
  noRoom(waitedMs: number): Promise<unknown>;
  /** Records up to `lastSeq` were committed (`count` of them). */
  committed(count: number, lastSeq: number): void;
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

  /** Queues a record (already timestamped); resolves with it, numbered, once it is committed. */
  append(record: StoredRecord, json: string): Promise<StoredRecord> {
    const row = recordRow(record, json, this.backend.dialect);
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
    const seqs = await this.backend.commitRecords(batch.map((pending) => pending.row));
    this.unavailable = undefined;
    this.hooks.committed(batch.length, seqs[seqs.length - 1]);
    batch.forEach((pending, i) => pending.resolve({ ...pending.record, seq: seqs[i], occurredAt: new Date(pending.row.occurred_at).toISOString() }));
  }
}
