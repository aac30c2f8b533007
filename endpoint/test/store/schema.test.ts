/**
 * The schema the migrations create (store/migrations/), as each database describes it: a
 * released migration is never changed, so what it creates is pinned here, table by table, with
 * its columns, types, NOT NULL and defaults, keys and indexes. A new version of the schema is a
 * new migration, and a new snapshot (`npx vitest run -u endpoint/test/store/schema.test.ts`).
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { databases, withStore } from './databases.js';
import { migrationsFor } from '../../src/store/migrations/index.js';

const [sqlite, postgres] = databases();

describe('the schema', () => {
  it('is on SQLite as released: every table and index as SQLite keeps it', async () => {
    await withStore(await sqlite.fresh(), async (store) => {
      const { rows } = await sql<{ type: string; name: string; sql: string | null }>`select type, name, sql from sqlite_master where name not like 'sqlite_%' and name not like 'kysely_%' order by type desc, name`.execute(store.db);
      expect(rows.map((row) => `${row.type} ${row.name}: ${row.sql}`).join('\n')).toMatchSnapshot();
    });
  });

  it('is on PostgreSQL as released: every column with its type, NOT NULL and default, each table\'s key, every index, the record numbers\' sequence', async () => {
    await withStore(await postgres.fresh(), async (store) => {
      const { rows: columns } = await sql<{ table_name: string; column_name: string; data_type: string; is_nullable: string; column_default: string | null }>`
        select table_name, column_name, data_type, is_nullable, column_default from information_schema.columns
        where table_schema = 'public' and table_name not like 'kysely_%' order by table_name, ordinal_position`.execute(store.db);
      const { rows: keys } = await sql<{ table_name: string; columns: string }>`
        select tc.table_name, string_agg(k.column_name, ', ' order by k.ordinal_position) as columns
        from information_schema.table_constraints tc join information_schema.key_column_usage k on k.constraint_name = tc.constraint_name and k.table_name = tc.table_name
        where tc.table_schema = 'public' and tc.constraint_type = 'PRIMARY KEY' and tc.table_name not like 'kysely_%' group by tc.table_name order by tc.table_name`.execute(store.db);
      const { rows: indexes } = await sql<{ indexdef: string }>`select indexdef from pg_indexes where schemaname = 'public' and tablename not like 'kysely_%' order by indexname`.execute(store.db);
      const { rows: sequences } = await sql<{ sequence_name: string }>`select sequence_name from information_schema.sequences where sequence_schema = 'public'`.execute(store.db);
      const tables = new Map<string, string[]>();
      for (const c of columns) {
        const list = tables.get(c.table_name) ?? [];
        list.push(`  ${c.column_name} ${c.data_type}${c.is_nullable === 'NO' ? ' not null' : ''}${c.column_default === null ? '' : ` default ${c.column_default}`}`);
        tables.set(c.table_name, list);
      }
      const described = [
        ...[...tables.entries()].map(([table, list]) => `table ${table} (key: ${keys.find((k) => k.table_name === table)?.columns ?? 'none'})\n${list.join('\n')}`),
        ...indexes.map((i) => i.indexdef),
        ...sequences.map((s) => `sequence ${s.sequence_name}`),
      ].join('\n');
      expect(described).toMatchSnapshot();
    });
  });

  it('has its versions named so that they sort in the order they run, the same on both databases', () => {
    const names = Object.keys(migrationsFor('sqlite'));
    expect(names).toEqual([...names].sort());
    expect(names.every((name) => /^\d{4}_[a-z_]+$/.test(name))).toBe(true);
    expect(names).toContain('0001_initial');
    expect(names).toContain('0003_projection');
    expect(names).toContain('0004_read_indexes');
    expect(Object.keys(migrationsFor('postgres'))).toEqual(names);
  });
});
