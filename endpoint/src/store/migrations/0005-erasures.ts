/** Version 5: the audit of erasures (see `erasures` below). */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { typesOf } from './column-types.js';

/**
 * `erasures`: one row per erasure of a user's data (store/forget.ts): when, who asked, which bot,
 * a hash of the user id (never the id), and how many records and entries went.
 */
export function erasures(dialect: DialectName): Migration {
  const t = typesOf(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema.createTable('erasures')
        .addColumn('at', t.millis, (c) => c.notNull())
        .addColumn('by', 'text')
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('user_hash', 'text', (c) => c.notNull())
        .addColumn('records', t.millis, (c) => c.notNull())
        .addColumn('entries', t.millis, (c) => c.notNull())
        .execute();
    },
  };
}
