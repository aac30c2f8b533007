/** One stored record as one line of the NDJSON data file: writing it, and reading it back. */
import { isApiVersion, PLATFORM_KINDS } from '../../protocol/index.js';
import type { StoredRecord } from '../types.js';

const TYPES = new Set(['incoming', 'outgoing', 'event', 'generic']);

/**
 * The data-file line of a record, without the newline. When `bodyJson` is given it must be the
 * JSON text of `record.body` on one line; it is written as is, which saves serialising the body again.
 */
export function formatRecordLine(record: StoredRecord, bodyJson?: string): string {
  if (bodyJson === undefined) return JSON.stringify(record);
  const { body: _body, ...head } = record;
  return `${JSON.stringify(head).slice(0, -1)},"body":${bodyJson}}`;
}

function isNullableString(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}

/**
 * Reads one data-file line. Returns `undefined` when the line is not a complete record
 * (a torn last line after a crash, or a hand-edited line): the caller skips it.
 */
export function parseRecordLine(line: string): StoredRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const r = value as Record<string, unknown>;
  const valid =
    Number.isSafeInteger(r.seq) && (r.seq as number) > 0 &&
    typeof r.receivedAt === 'string' &&
    typeof r.type === 'string' && TYPES.has(r.type) &&
    isNullableString(r.platform) &&
    (r.platformKind === null || PLATFORM_KINDS.includes(r.platformKind as never)) &&
    (r.v === null || isApiVersion(r.v)) &&
    typeof r.bot === 'string' &&
    'body' in r;
  return valid ? (r as unknown as StoredRecord) : undefined;
}
