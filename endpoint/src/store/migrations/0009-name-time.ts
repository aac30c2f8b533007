/** Version 7: a user's name is the one the latest record by time gave (see `nameTime` below). */
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { typesOf } from './column-types.js';

/**
 * A user's name is the one given by the record that happened last (issue 28: records arrive in
 * any order), so `users` keeps when the entry that gave it happened (`name_at`), as it keeps
 * `channel_at` for the channel. A name stored before this version came from the latest record to
 * arrive; it is taken as given at the user's latest activity, so only a record that happened
 * later changes it.
 */
export function nameTime(dialect: DialectName): Migration {
  const t = typesOf(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('users').addColumn('name_at', t.millis, (c) => c.notNull().defaultTo(0)).execute();
      await db.updateTable('users').set({ name_at: sql.ref('last_at') }).where('name', 'is not', null).execute();
    },
  };
}
