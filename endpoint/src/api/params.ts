/**
 * The read API's query parameters: `limit`, and the filter every view takes (`bot`, `platform`,
 * `channel`, `intent`, `from`, `to`). A bad value is a 400 that names the parameter and what it
 * takes.
 */
import type { ServerResponse } from 'node:http';
import type { ValidationIssue } from 'botbuilder-conversation-analytics/protocol';
import type { KeyPolicy, ReadAccess } from '../http/auth.js';
import { sendError } from '../http/respond.js';
import type { ReadFilter } from '../read/filter.js';

/** `limit` query value: a whole number from 1 to `max`, `fallback` when absent; `undefined` when it is not one. */
export function limitParam(query: URLSearchParams, fallback: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = query.get('limit');
  if (raw === null) return fallback;
  const value = Number(raw);
  return Number.isSafeInteger(value) && value > 0 && value <= max ? value : undefined;
}

/** Answers 400 for a `limit` that is not a whole number from 1 to `max`, saying what `query` gave (its first 20 characters). */
export function badLimit(res: ServerResponse, query: URLSearchParams, max?: number): void {
  const range = max === undefined ? 'greater than 0' : `from 1 to ${max}`;
  sendError(res, 400, `limit must be a whole number ${range}.`, [{ path: 'limit', expected: `a whole number ${range}`, received: JSON.stringify((query.get('limit') ?? '').slice(0, 20)) }]);
}

/** A time given as an ISO 8601 date or date-time (`2026-11-01`, `2026-11-01T12:00:00Z`) or as epoch milliseconds. */
function timeParam(raw: string): number | undefined {
  if (/^\d{1,15}$/.test(raw)) return Number(raw);
  if (!/^\d{4}-\d\d-\d\d([T ][\d:.]+(Z|[+-]\d\d:?\d\d)?)?$/.test(raw)) return undefined;
  // A date alone is midnight UTC, as Date.parse takes it.
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The filter in the query string, or the problems with it. `bot` takes a bot's name (given with
 * its key, `NAME=KEY`) or its fingerprint; `from` and `to` (exclusive) take dates, date-times or
 * epoch milliseconds. A reader with a scope reads only its bots (`bots`): a `bot` outside it
 * reaches nothing, as a bot without data would.
 */
export function filterParams(query: URLSearchParams, keys: KeyPolicy, access: ReadAccess): { ok: true; filter: ReadFilter } | { ok: false; problems: ValidationIssue[] } {
  const filter: ReadFilter = access.bots === null ? {} : { bots: [...access.bots] };
  const problems: ValidationIssue[] = [];
  for (const name of ['bot', 'platform', 'channel', 'intent'] as const) {
    const value = query.get(name);
    if (value) filter[name] = name === 'bot' ? keys.botFor(value) : value;
  }
  for (const name of ['from', 'to'] as const) {
    const raw = query.get(name);
    if (!raw) continue;
    const ms = timeParam(raw);
    if (ms === undefined) problems.push({ path: name, expected: 'a date (2026-11-01), a date-time (2026-11-01T09:30:00Z) or epoch milliseconds', received: JSON.stringify(raw.slice(0, 40)) });
    else filter[name] = ms;
  }
  // Stryker disable next-line ConditionalExpression: a comparison with undefined is false, so the undefined tests only narrow the types for it
  if (filter.from !== undefined && filter.to !== undefined && filter.to <= filter.from) {
    problems.push({ path: 'to', expected: 'a time after from', received: 'a time at or before from' });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, filter };
}

/** Answers 400 listing the problems with the filter. */
export function badFilter(res: ServerResponse, problems: ValidationIssue[]): void {
  sendError(res, 400, `The ${problems.map((p) => p.path).join(' and ')} parameter${problems.length === 1 ? ' is' : 's are'} not valid; see problems.`, problems);
}

/** The bots a reader may see, as a filter's `bots`: `undefined` for every bot. */
export function scopeOf(access: ReadAccess): string[] | undefined {
  return access.bots === null ? undefined : [...access.bots];
}
