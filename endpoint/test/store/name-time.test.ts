/**
 * Migration 0009 (a user's name by when it was given): a database of version 6 keeps each user's
 * name, taken as given at the user's latest activity, so that a record that happened earlier does
 * not replace it and one that happened later does; on SQLite and on PostgreSQL.
 */
import { Migrator, sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrationProvider } from '../../src/store/migrations/index.js';
import { openPostgres } from '../../src/store/postgres.js';
import { openSqlite } from '../../src/store/sqlite.js';
import { BOT, appendEach, databases, msg, withStore } from './databases.js';

const DBS = databases();
const T = (hour: number) => Date.parse(`2026-03-02T${String(hour).padStart(2, '0')}:00:00Z`);

describe.each(DBS)('migration 0009 on $name', ({ name, fresh }) => {
  it('gives a stored name the time of the user\'s latest activity, and none to a user without a name; later records by time replace it, earlier ones do not', async () => {
    const database = await fresh();
    const backend = name === 'SQLite' ? await openSqlite({ file: database, fsync: false }) : await openPostgres({ url: database, log: () => undefined });
    try {
      const migrator = new Migrator({ db: backend.db, provider: migrationProvider(backend.dialect.name), allowUnorderedMigrations: true });
      const { error } = await migrator.migrateTo('0006_time_order');
      expect(error).toBeUndefined();
      const user = (id: string, userName: string | null) => ({ bot: BOT, user_id: id, name: userName, first_at: T(8), last_at: T(10), platform: 'universal', channel: '', channel_at: 0, messages: 1, events: 0 });
      // The table as version 6 has it (no name_at yet).
      await (backend.db as unknown as Kysely<any>).insertInto('users').values([user('ann', 'Ann'), user('bob', null), user('cat', 'Cat')]).execute();
    } finally {
      await backend.close();
    }
    await withStore(database, async (store) => {
      const stored = async () => (await sql<{ user_id: string; name: string | null; name_at: string | number }>`select user_id, name, name_at from users order by user_id`.execute(store.db)).rows.map((row) => [row.user_id, row.name, Number(row.name_at)]);
      expect(await stored()).toEqual([['ann', 'Ann', T(10)], ['bob', null, 0], ['cat', 'Cat', T(10)]]);
      await appendEach(store, [
        msg({ user: 'ann', at: '2026-03-02T09:00:00Z', name: 'Annie' }),
        msg({ user: 'bob', at: '2026-03-02T09:00:00Z', name: 'Bob' }),
        msg({ user: 'cat', at: '2026-03-02T11:00:00Z', name: 'Cathy' }),
      ]);
      expect(await stored()).toEqual([['ann', 'Ann', T(10)], ['bob', 'Bob', T(9)], ['cat', 'Cathy', T(11)]]);
    });
  });
});
