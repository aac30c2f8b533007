/** Column types that differ between the two databases, for the migrations. */
import type { DialectName } from '../dialect.js';

/** Column types that differ between the two databases. */
export function typesOf(dialect: DialectName) {
  return dialect === 'postgres'
    ? { id: 'bigint', millis: 'bigint', json: 'jsonb', real: 'double precision', int: 'integer' } as const
    : // On SQLite only a column declared exactly INTEGER PRIMARY KEY is the row id (fast, and never reused).
      { id: 'integer', millis: 'integer', json: 'text', real: 'double precision', int: 'integer' } as const;
}
