/**
 * The SQLite backend's statement cache and rollback (keptStatements in store/sqlite.ts), on a
 * real in-memory database: which statements are kept, which are prepared again, and a rollback
 * that is harmless once SQLite has rolled back by itself.
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { keptStatements } from '../../src/store/sqlite.js';

const opened: Database.Database[] = [];
afterEach(() => {
  for (const database of opened.splice(0)) if (database.open) database.close();
});
function open() {
  const database = new Database(':memory:');
  opened.push(database);
  return { database, kept: keptStatements(database) };
}
const select = (i: number) => `select ${i} as n`;

describe('the statements the SQLite backend keeps', () => {
  it('prepares a statement once and gives it back for the same SQL', () => {
    const { kept } = open();
    const first = kept.prepare(select(1));
    expect(kept.prepare(select(1))).toBe(first);
    expect(kept.prepare(select(2))).not.toBe(first);
    expect(first.all([])).toEqual([{ n: 1 }]);
  });

  it('keeps the 128 used last: the one unused longest is prepared again, one used meanwhile is kept', () => {
    const { kept } = open();
    const first = Array.from({ length: 128 }, (_, i) => kept.prepare(select(i)));
    // All 128 are kept.
    for (let i = 0; i < 128; i++) expect(kept.prepare(select(i)), String(i)).toBe(first[i]);
    // Statement 0 is used again (now the last used); a 129th makes room by dropping statement 1.
    expect(kept.prepare(select(0))).toBe(first[0]);
    kept.prepare(select(1000));
    expect(kept.prepare(select(0))).toBe(first[0]);
    expect(kept.prepare(select(2))).toBe(first[2]);
    expect(kept.prepare(select(1))).not.toBe(first[1]);
  });

  it('prepares SQL longer than 8,000 characters each time, without dropping a kept statement', () => {
    const { kept } = open();
    const short = Array.from({ length: 128 }, (_, i) => kept.prepare(select(i)));
    const long = `select 1 as n ${' '.repeat(8_000)}`;
    const atLimit = `select 2 as n${' '.repeat(8_000 - 'select 2 as n'.length)}`;
    expect(atLimit).toHaveLength(8_000);
    const once = kept.prepare(long);
    expect(kept.prepare(long)).not.toBe(once);
    expect(once.all([])).toEqual([{ n: 1 }]);
    // Every short one is still kept.
    for (let i = 0; i < 128; i++) expect(kept.prepare(select(i)), String(i)).toBe(short[i]);
    // 8,000 characters exactly is kept (and makes room for itself).
    const kept8000 = kept.prepare(atLimit);
    expect(kept.prepare(atLimit)).toBe(kept8000);
  });

  it('rolls back a transaction, and does nothing (and throws nothing) when there is none left', () => {
    const { database, kept } = open();
    database.exec('create table t (x)');
    kept.prepare('begin').run([]);
    kept.prepare('insert into t values (1)').run([]);
    expect(database.inTransaction).toBe(true);
    const rollback = kept.prepare('rollback');
    expect(rollback.reader).toBe(false);
    rollback.run([]);
    expect(database.inTransaction).toBe(false);
    expect(database.prepare('select count(*) as n from t').get()).toEqual({ n: 0 });
    // SQLite rolled back by itself (as on a full disk): the driver's rollback must not fail in its turn.
    expect(rollback.run([])).toEqual({ changes: 0, lastInsertRowid: 0 });
  });

  it('closes the database', () => {
    const { database, kept } = open();
    kept.close();
    expect(database.open).toBe(false);
  });
});
