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
  resolve(record: StoredRecord): void;
  reject(error: unknown): void;
}

/** What the queue tells and asks of the store around each commit. */
export interface AppendHooks {
  /** Resolves when acknowledging more may go on (the views are not too far behind). */
  room(): Promise<void>;
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

  /** `now`: the monotonic clock `lastAppendAt` is read on (the projection's). */
  constructor(private readonly backend: Backend, private readonly hooks: AppendHooks, private readonly now: () => number = () => performance.now()) {}

  /** Queues a record (already timestamped); resolves with it, numbered, once it is committed. */
  append(record: StoredRecord, json: string): Promise<StoredRecord> {
    const row = recordRow(record, json, this.backend.dialect);
    this.lastAppendAt = this.now();
    return new Promise((resolve, reject) => {
      this.queue.push({ record, row, resolve, reject });
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
        await this.hooks.room();
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
