/**
 * Days, weeks and months as the analytics views count them (UTC; weeks start on Mondays), in SQL
 * and in JavaScript alike, and the narrowing every view applies to the summary table it reads.
 */
import { sql, type Expression, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../store/schema.js';
import type { RecordStore } from '../store/store.js';
import { DAY, botsOf, storedPlatform, type ReadFilter } from './filter.js';
import type { ActivityInterval } from '../types.js';

export const WEEK = 7 * DAY;
/** 1970-01-05: weeks start on Mondays (UTC). */
const FIRST_MONDAY = 4 * DAY;

/** A time (ms) as the views write it. */
export const iso = (ms: number): string => new Date(ms).toISOString();

/** `value` rounded to `digits` decimals (shares, averages). */
export const round = (value: number, digits = 4): number => Math.round(value * 10 ** digits) / 10 ** digits;

/** The start of the day, week or month of a time column, as SQL (integer arithmetic; months through the dialect). */
export function bucketOf(store: RecordStore, column: Expression<number>, interval: ActivityInterval): RawBuilder<number> {
  if (interval === 'day') return sql<number>`((${column} / ${sql.lit(DAY)}) * ${sql.lit(DAY)})`;
  if (interval === 'week') return sql<number>`(((${column} - ${sql.lit(FIRST_MONDAY)}) / ${sql.lit(WEEK)}) * ${sql.lit(WEEK)} + ${sql.lit(FIRST_MONDAY)})`;
  return store.dialect.monthStart(column);
}

/** The same, in JavaScript. */
export function bucketStart(ms: number, interval: ActivityInterval): number {
  if (interval === 'day') return Math.floor(ms / DAY) * DAY;
  if (interval === 'week') return Math.floor((ms - FIRST_MONDAY) / WEEK) * WEEK + FIRST_MONDAY;
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

function nextBucket(start: number, interval: ActivityInterval): number {
  if (interval === 'day') return start + DAY;
  if (interval === 'week') return start + WEEK;
  const date = new Date(start);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/** Buckets from the first to the last start given (or the filter's range), oldest first, with none missing. */
export function buckets(starts: number[], filter: ReadFilter, interval: ActivityInterval): number[] {
  if (starts.length === 0 && (filter.from === undefined || filter.to === undefined)) return [];
  const first = bucketStart(filter.from ?? Math.min(...starts), interval);
  const last = bucketStart(filter.to !== undefined ? filter.to - 1 : Math.max(...starts), interval);
  const out: number[] = [];
  for (let at = first; at <= last && out.length < 5000; at = nextBucket(at, interval)) out.push(at);
  return out;
}

/** Narrows a query on a table with `bot`, `platform` and `channel` columns by the filter's bot, platform and channel. */
export function byDimensions<QB extends SelectQueryBuilder<Database, any, any>>(query: QB, filter: ReadFilter, table: string): QB {
  let q = query;
  if (botsOf(filter) !== undefined) q = q.where(`${table}.bot` as any, 'in', botsOf(filter)!) as QB;
  if (filter.platform !== undefined) q = q.where(`${table}.platform` as any, '=', storedPlatform(filter.platform)) as QB;
  if (filter.channel !== undefined) q = q.where(`${table}.channel` as any, '=', filter.channel) as QB;
  return q;
}

/** Narrows by the filter's range on a time column (`from` rounded down to `round`, e.g. a day for daily tables). */
export function byRange<QB extends SelectQueryBuilder<Database, any, any>>(query: QB, filter: ReadFilter, column: string, round = 1): QB {
  let q = query;
  if (filter.from !== undefined) q = q.where(column as any, '>=', Math.floor(filter.from / round) * round) as QB;
  if (filter.to !== undefined) q = q.where(column as any, '<', filter.to) as QB;
  return q;
}
