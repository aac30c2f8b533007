/** Version 3: the views built behind the acknowledgements (see `projection` below). */
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { typesOf } from './column-types.js';

/**
 * Views built behind the acknowledgements (store/projection.ts). `unprojected` holds the records
 * acknowledged but not yet in the views: a record's number is added in the transaction that
 * commits the record, and removed in the one that adds it to the views. An explicit mark rather
 * than a high-water mark, because on PostgreSQL numbers from a sequence can commit out of order.
 * What a database held before this version was written with its views, so it starts empty.
 * Records now reach the views in batches, so a user's and a conversation's channel keep when the
 * entry that gave it happened (`channel_at`): the latest entry that has a channel wins, whether
 * the entries came in one batch or several (before, the latest entry's time stood for it).
 */
export function projection(dialect: DialectName): Migration {
  const t = typesOf(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema.createTable('unprojected').addColumn('seq', t.id, (c) => c.primaryKey()).execute();
      for (const table of ['users', 'conversations']) {
        await db.schema.alterTable(table).addColumn('channel_at', t.millis, (c) => c.notNull().defaultTo(0)).execute();
        await db.updateTable(table).set({ channel_at: sql.ref('last_at') }).where('channel', '<>', '').execute();
      }
    },
  };
}
