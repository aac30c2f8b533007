/**
 * The two Kysely handles on one database (store/handles.ts): the store's own and the read side's
 * share one driver; savepoints work through both, destroying the read side's leaves the database
 * open, and the store's destroys the shared driver once.
 */
import { SqliteDialect, type DatabaseConnection, type Dialect, type Driver, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openHandles } from '../../src/store/handles.js';
import type { Database } from '../../src/store/schema.js';
import { databases, withStore } from './databases.js';

const sources = async (db: Kysely<Database>) => (await db.selectFrom('imports').select('source').orderBy('source').execute()).map((row) => row.source);
const note = (source: string) => ({ source, records: 1, imported_at: 1 });

describe.each(databases())('the handles on $name', ({ fresh }) => {
  it("destroying the read side's handle leaves the database open for the store's", async () => {
    await withStore(await fresh(), async (store) => {
      await store.db.selectFrom('imports').selectAll().execute();
      await store.db.destroy();
      expect(await store.count()).toBe(0);
    });
  });

  it.each(['store', 'read'] as const)("savepoints work through the %s side's handle: rolled back to, and released", async (side) => {
    await withStore(await fresh(), async (store) => {
      const db = side === 'store' ? (store as unknown as { backend: { db: Kysely<Database> } }).backend.db : store.db;
      const trx = await db.startTransaction().execute();
      await trx.insertInto('imports').values(note('kept')).execute();
      const first = await trx.savepoint('first').execute();
      await first.insertInto('imports').values(note('rolled back')).execute();
      const back = await first.rollbackToSavepoint('first').execute();
      const second = await back.savepoint('second').execute();
      await second.insertInto('imports').values(note('released')).execute();
      const released = await second.releaseSavepoint('second').execute();
      // Released: it is gone, so it cannot be rolled back to.
      await expect((released as unknown as typeof second).rollbackToSavepoint('second').execute()).rejects.toThrow(/second/i);
      await released.rollback().execute();
      const again = await db.startTransaction().execute();
      await again.insertInto('imports').values(note('kept')).execute();
      const third = await again.savepoint('third').execute();
      await third.insertInto('imports').values(note('released')).execute();
      await (await third.releaseSavepoint('third').execute()).commit().execute();
      expect(await sources(db)).toEqual(['kept', 'released']);
    });
  });
});

describe('the shared driver', () => {
  it("is destroyed by the store's handle, once, and not by the read side's", async () => {
    let destroyed = 0;
    const driver: Driver = {
      init: async () => undefined,
      acquireConnection: () => Promise.reject(new Error('no connection')) as Promise<DatabaseConnection>,
      beginTransaction: async () => undefined,
      commitTransaction: async () => undefined,
      rollbackTransaction: async () => undefined,
      releaseConnection: async () => undefined,
      destroy: async () => void destroyed++,
    };
    const sqlite = new SqliteDialect({ database: {} as never });
    const dialect: Dialect = {
      createDriver: () => driver,
      createQueryCompiler: () => sqlite.createQueryCompiler(),
      createAdapter: () => sqlite.createAdapter(),
      createIntrospector: (db) => sqlite.createIntrospector(db),
    };
    const handles = openHandles(dialect);
    const gated = handles.gated(async () => undefined);
    await expect(handles.db.selectFrom('imports').selectAll().execute()).rejects.toThrow('no connection');
    await expect(gated.selectFrom('imports').selectAll().execute()).rejects.toThrow('no connection');
    await gated.destroy();
    expect(destroyed).toBe(0);
    await handles.db.destroy();
    await handles.db.destroy();
    expect(destroyed).toBe(1);
  });
});
