/**
 * Where SQLite and PostgreSQL differ, one small helper each, so that every query is written once
 * (store/writer.ts, read/). Nothing above store/ picks a dialect: it receives one with the store.
 */
import { sql, type Expression, type RawBuilder } from 'kysely';

/** The databases the endpoint stores records in. */
export type DialectName = 'sqlite' | 'postgres';

/** The differences between the two databases that queries need. */
export interface Dialect {
  readonly name: DialectName;
  /** The smaller of two numbers (SQLite's two-argument `min`, PostgreSQL's `least`). */
  least(a: Expression<number>, b: Expression<number>): RawBuilder<number>;
  /** The larger of two numbers. */
  greatest(a: Expression<number>, b: Expression<number>): RawBuilder<number>;
  /** The start (ms, UTC) of the calendar month of a time in ms. */
  monthStart(ms: Expression<number>): RawBuilder<number>;
  /** A case-insensitive "contains" test of a text column (`needle` is matched literally). */
  contains(column: Expression<string | null>, needle: string): RawBuilder<boolean>;
  /** The body column's value as stored, from the body's JSON text. */
  bodyValue(json: string): string;
  /** The body as read back: parsed JSON. */
  bodyOf(stored: unknown): unknown;
  /** A text value as the database can store it (PostgreSQL refuses NUL characters and lone surrogates). */
  text(value: string): string;
}

/** `%`, `_` and `\` escaped for a LIKE pattern with `escape '\'`. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  least: (a, b) => sql<number>`min(${a}, ${b})`,
  greatest: (a, b) => sql<number>`max(${a}, ${b})`,
  monthStart: (ms) => sql<number>`(cast(strftime('%s', ${ms} / 1000, 'unixepoch', 'start of month') as integer) * 1000)`,
  // SQLite's LIKE ignores case for ASCII letters.
  contains: (column, needle) => sql<boolean>`${column} like ${`%${likeLiteral(needle)}%`} escape '\\'`,
  bodyValue: (json) => json,
  // The body column is TEXT on SQLite: always read back as a string.
  bodyOf: (stored) => JSON.parse(stored as string),
  text: (value) => value,
};

/** JSON text that PostgreSQL's jsonb would refuse: a `\u0000` escape or an escaped lone surrogate. */
const JSONB_REFUSES = /\\u(0000|d[89a-f][0-9a-f]{2})/i;

/** NUL characters and lone surrogates replaced by U+FFFD (what jsonb and text can hold). */
function wellFormed(value: string): string {
  return (value.replaceAll('\u0000', '\ufffd') as string & { toWellFormed(): string }).toWellFormed();
}

function cleanJson(value: unknown): unknown {
  if (typeof value === 'string') return wellFormed(value);
  if (Array.isArray(value)) return value.map(cleanJson);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = Object.create(null); // a key such as __proto__ stays a key
    for (const [key, item] of Object.entries(value)) out[wellFormed(key)] = cleanJson(item);
    return out;
  }
  return value;
}

export const postgresDialect: Dialect = {
  name: 'postgres',
  least: (a, b) => sql<number>`least(${a}, ${b})`,
  greatest: (a, b) => sql<number>`greatest(${a}, ${b})`,
  monthStart: (ms) => sql<number>`(extract(epoch from date_trunc('month', to_timestamp(${ms} / 1000.0) at time zone 'UTC')) * 1000)::bigint`,
  contains: (column, needle) => sql<boolean>`${column} ilike ${`%${likeLiteral(needle)}%`} escape '\\'`,
  // jsonb refuses what JSON allows in two places; those characters become U+FFFD (README, "PostgreSQL").
  bodyValue: (json) => (JSONB_REFUSES.test(json) ? JSON.stringify(cleanJson(JSON.parse(json))) : json),
  bodyOf: (stored) => stored,
  text: wellFormed,
};
