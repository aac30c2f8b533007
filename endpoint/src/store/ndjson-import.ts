/**
 * Earlier versions kept records in an NDJSON file (one `{ seq, receivedAt, platform, …, body }`
 * per line). On the first start with a database, that file is imported, all or nothing, and left
 * in place; the database notes the import so it never happens twice. Lines that are not complete
 * records (a torn last line after a crash, a hand edit) are skipped and counted.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { isApiVersion, PLATFORM_KINDS } from 'botbuilder-conversation-analytics/protocol';
import { isClientVersion } from './client-version.js';
import type { NewRecord, RecordStore } from './store.js';
import { maskRecordBody, type MaskOptions } from './mask.js';
import { stripAccessTokens } from './tokens.js';
import type { StoredRecord } from '../types.js';

const TYPES = new Set(['incoming', 'outgoing', 'event', 'generic']);

function isNullableString(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}

/**
 * Reads one line of an earlier version's data file. Returns `undefined` when the line is not a
 * complete record: the caller skips it.
 */
export function parseRecordLine(line: string): StoredRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
    // Stryker disable next-line BlockStatement: an empty catch also ends the function with undefined
  } catch {
    return undefined;
  }
  // Stryker disable next-line ConditionalExpression: a number, string or boolean has no seq, so the check below refuses it too; this says what a line must be
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const r = value as Record<string, unknown>;
  const valid =
    Number.isSafeInteger(r.seq) && (r.seq as number) > 0 &&
    typeof r.receivedAt === 'string' && !Number.isNaN(Date.parse(r.receivedAt)) &&
    TYPES.has(r.type as string) &&
    isNullableString(r.platform) &&
    (r.platformKind === null || PLATFORM_KINDS.includes(r.platformKind as never)) &&
    (r.v === null || (typeof r.v === 'string' && (isApiVersion(r.v) || isClientVersion(r.v)))) &&
    typeof r.bot === 'string' &&
    'body' in r;
  return valid ? (r as unknown as StoredRecord) : undefined;
}

/** What an import did. */
export interface ImportReport {
  /** The file imported (absolute). */
  file: string;
  /** Records imported. */
  records: number;
  /** Lines skipped because they were not complete records. */
  skipped: number;
}

/**
 * Imports `file` into `store` unless it was imported before or does not exist. Resolves with
 * what it did, or `undefined` when there was nothing to do. Records are masked as at ingestion
 * (`masking`; default: card numbers and secret-named fields).
 */
export async function importNdjsonOnce(store: RecordStore, file: string, masking: MaskOptions = {}): Promise<ImportReport | undefined> {
  const path = resolve(file);
  // Stryker disable next-line ArrowFunction: undefined, like false, is "no file"
  const exists = await stat(path).then((s) => s.isFile(), () => false);
  if (!exists) return undefined;
  let skipped = 0;
  async function* records() {
    // Stryker disable next-line StringLiteral: readline decodes a byte stream as UTF-8 too (characters split across chunks included)
    const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
    for await (const line of lines) {
      if (line.trim() === '') continue;
      const old = parseRecordLine(line);
      if (old === undefined) {
        skipped++;
        continue;
      }
      const { seq: _seq, occurredAt: _occurred, ...rest } = old as StoredRecord & { occurredAt?: string };
      // Stored by a version that kept page access tokens: they go now.
      stripAccessTokens(rest.body);
      // And card numbers and secrets it kept as sent.
      rest.body = maskRecordBody(rest.body, masking).value;
      const record: NewRecord & { receivedAt: string } = rest;
      yield { record, json: JSON.stringify(rest.body) };
    }
  }
  const count = await store.importOnce(`ndjson:${path}`, records());
  return count === undefined ? undefined : { file: path, records: count, skipped };
}
