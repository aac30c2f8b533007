/** A record and its row in `records`, both ways: what `append` writes, and what reads give back. */
import type { Insertable, Selectable } from 'kysely';
import type { Dialect } from './dialect.js';
import { transcriptEntries } from './entries.js';
import type { Database, RecordsTable } from './schema.js';
import type { StoredRecord } from '../types.js';

/** A record as it is appended: what the endpoint knows of it before the store numbers and dates it. */
export type NewRecord = Omit<StoredRecord, 'seq' | 'receivedAt' | 'occurredAt'>;

/** A row of `records` before it is numbered. */
export type RecordRow = Omit<Insertable<RecordsTable>, 'seq'> & { occurred_at: number };

/** The row of `records` for `record` (not numbered yet), whose body's JSON text is `json`. */
export function recordRow(record: StoredRecord, json: string, dialect: Dialect): RecordRow {
  const receivedAt = Date.parse(record.receivedAt);
  const first = transcriptEntries(record)[0];
  return {
    received_at: receivedAt,
    // When its first entry happened (what retention goes by), else when it was received.
    occurred_at: first === undefined ? receivedAt : Date.parse(first.time),
    platform: record.platform === null ? null : dialect.text(record.platform),
    platform_kind: record.platformKind,
    v: record.v,
    type: record.type,
    bot: record.bot,
    body: dialect.bodyValue(json),
  };
}

/** The row of the records table as a `StoredRecord`. */
export function recordOf(row: Selectable<Database['records']>, dialect: Dialect): StoredRecord {
  return {
    seq: Number(row.seq),
    receivedAt: new Date(Number(row.received_at)).toISOString(),
    occurredAt: new Date(Number(row.occurred_at)).toISOString(),
    platform: row.platform,
    platformKind: row.platform_kind as StoredRecord['platformKind'],
    v: row.v as StoredRecord['v'],
    type: row.type as StoredRecord['type'],
    bot: row.bot,
    body: dialect.bodyOf(row.body),
  };
}
