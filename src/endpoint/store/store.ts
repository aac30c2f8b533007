/**
 * The record store: assigns `seq` and `receivedAt`, appends to the data file, and keeps the
 * in-memory records and read indexes. A record becomes visible to reads only once it is written.
 */
import { Journal } from './journal.js';
import { ReadModel } from '../read/read-model.js';
import { formatRecordLine } from './record-line.js';
import type { StoredRecord } from '../types.js';

/** A record to store: everything but what the store assigns. */
export type NewRecord = Omit<StoredRecord, 'seq' | 'receivedAt'>;

/** Where the store keeps its records. */
export interface StoreOptions {
  /** Absolute path of the NDJSON data file, or `false` to keep records in memory only. */
  dataFile: string | false;
  /** Flush each write to disk (`fdatasync`) before acknowledging. Default `false`: the OS writes it back. */
  fsync?: boolean;
}

/** Stored records and the read side over them. */
export class RecordStore {
  /** Indexes for the read endpoints: users, conversations, transcripts, summary. */
  readonly read = new ReadModel();
  /** 1-based line numbers of data-file lines skipped on load (torn or unreadable). */
  readonly skippedLines: readonly number[];
  private readonly all: StoredRecord[] = [];
  private nextSeq = 1;

  private constructor(private readonly journal: Journal | undefined, loaded: StoredRecord[], skippedLines: number[]) {
    this.skippedLines = skippedLines;
    for (const record of loaded) this.index(record);
  }

  /**
   * Opens a store, reading back every record already in the data file.
   * Rejects with a `TrackingEndpointError` when the data file cannot be used.
   */
  static async open(options: StoreOptions): Promise<RecordStore> {
    if (options.dataFile === false) return new RecordStore(undefined, [], []);
    const { journal, contents } = await Journal.open(options.dataFile, { fsync: options.fsync ?? false });
    return new RecordStore(journal, contents.records, contents.skippedLines);
  }

  /** True when records are written to a data file, false when they are kept in memory only. */
  get persistent(): boolean {
    return this.journal !== undefined;
  }

  /** Number of records stored. */
  get size(): number {
    return this.all.length;
  }

  /** All records in `seq` order. Do not modify them. */
  records(): readonly StoredRecord[] {
    return this.all;
  }

  private index(record: StoredRecord): void {
    this.all.push(record);
    if (record.seq >= this.nextSeq) this.nextSeq = record.seq + 1;
    this.read.add(record);
  }

  /**
   * Stores a record and resolves with it once it is in the data file. `bodyJson`, when given,
   * is the body's JSON text on one line (saves serialising it again). Rejects with the file
   * system's error when the write fails; the record is then not stored.
   */
  async append(input: NewRecord, bodyJson?: string): Promise<StoredRecord> {
    const record: StoredRecord = {
      seq: this.nextSeq++,
      receivedAt: new Date().toISOString(),
      platform: input.platform,
      platformKind: input.platformKind,
      v: input.v,
      type: input.type,
      bot: input.bot,
      body: input.body,
    };
    if (this.journal) await this.journal.append(formatRecordLine(record, bodyJson));
    this.index(record);
    return record;
  }

  /** Waits for pending writes and closes the data file. Safe to call twice. */
  async close(): Promise<void> {
    await this.journal?.close();
  }
}
