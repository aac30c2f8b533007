/** Version 7: records remember the idempotency key they were sent with (see `idempotency` below). */
import { sql, type Kysely, type Migration } from 'kysely';

/**
 * `records.idempotency_key`: the `Idempotency-Key` header the record was sent with (null when it
 * had none, as records stored before this version and imported ones), and `records_idempotency`,
 * a unique index on (bot, key) over the records that have one: a record sent again with its key
 * (a client's retry after a 504 or a lost connection) is found, and never stored twice, also when
 * two endpoints on one PostgreSQL database take it at once. A key is kept as long as its record
 * (retention and erasure remove both). Adding a nullable column is instant on both databases; the
 * index holds no row until keyed records come (no statistics to refresh).
 */
export function idempotency(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('records').addColumn('idempotency_key', 'text').execute();
      await db.schema.createIndex('records_idempotency').unique().on('records').columns(['bot', 'idempotency_key'])
        .where(sql.ref('idempotency_key'), 'is not', null).execute();
    },
  };
}
