/**
 * Importing records kept elsewhere (an earlier version's NDJSON file): all of them and the note
 * that their source was imported, in ONE transaction, each marked unprojected like any record
 * acknowledged; their views are built behind it (projection.ts).
 */
import { insertRecords } from './append.js';
import type { Backend } from './backend.js';
import { recordRow, type NewRecord, type RecordRow } from './record-row.js';
import type { StoredRecord } from '../types.js';

/** Records per INSERT batch of an import. */
const BATCH = 500;

/**
 * Imports `records` (their `receivedAt` is kept; they are numbered anew) unless `source` was
 * imported before. Resolves with the number imported, or `undefined` when it was.
 */
export async function importOnce(backend: Backend, source: string, records: AsyncIterable<{ record: NewRecord & { receivedAt: string }; json: string }>): Promise<number | undefined> {
  let count: number | undefined;
  await backend.db.transaction().execute(async (trx) => {
    const done = await trx.selectFrom('imports').select('records').where('source', '=', source).executeTakeFirst();
    if (done !== undefined) return;
    let imported = 0;
    let batch: RecordRow[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      await insertRecords(trx, backend, batch);
      imported += batch.length;
      batch = [];
    };
    for await (const { record, json } of records) {
      const stored: StoredRecord = { seq: 0, occurredAt: record.receivedAt, ...record };
      batch.push(recordRow(stored, json, backend.dialect));
      if (batch.length >= BATCH) await flush();
    }
    await flush();
    await trx.insertInto('imports').values({ source, records: imported, imported_at: Date.now() }).execute();
    count = imported;
  });
  return count;
}
