/**
 * The time of an imported row: an ISO 8601 date or date-time, or epoch seconds or milliseconds,
 * read strictly (no locale formats such as 01/02/2025, which are ambiguous).
 */

/** What a timestamp may look like, as the refusal of a bad one says it. */
export const TIMESTAMP_FORMS =
  'an ISO 8601 date-time (2025-01-02T10:11:12Z, 2025-01-02 10:11:12.5+01:00, 2025-01-02) or epoch seconds (1735812672) or milliseconds (1735812672000)';

/** The earliest time taken: 2000-01-01T00:00:00Z. Earlier ones are taken for mistakes (a wrong column, a wrong unit). */
export const EARLIEST_TIMESTAMP_MS = Date.UTC(2000, 0, 1);
/** How far past now a time may be (a day: a clock or a time zone off). */
const MAX_AHEAD_MS = 86_400_000;
/** Epoch values below this are seconds, from here on milliseconds (10^11 seconds is the year 5138; 10^11 ms is 1973). */
const SECONDS_BELOW = 1e11;

/** Date; then time, fraction, and a zone: Z, or an offset (its sign, hours and minutes). */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s?(?:[Zz]|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;
const EPOCH = /^\d{1,16}(?:\.\d{1,9})?$/;

/** The outcome of `parseTimestamp`: epoch milliseconds, or what was expected and what was there. */
export type ParsedTimestamp = { ok: true; ms: number } | { ok: false; expected: string; received: string };

function received(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return value === null ? 'null' : typeof value === 'number' ? String(value) : typeof value;
}

/** An ISO 8601 string as epoch ms, or `undefined` when it is not one (or names a day or hour that does not exist). */
function isoMs(text: string): number | undefined {
  const m = ISO.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, fraction = '', sign, offsetH, offsetM] = m;
  // A time left out (a date alone, or no seconds) is 0.
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map((part) => Number(part ?? 0));
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second) + Math.floor(Number(`0.${fraction}`) * 1000);
  // A day the month does not have (2025-02-30, or 00): Date.UTC would roll it over.
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return undefined;
  if (sign === undefined) return utc; // Z, or no zone: UTC
  const [offsetHours, offsetMinutes] = [Number(offsetH), Number(offsetM ?? 0)];
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  return utc - (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
}

/**
 * Reads a row's time: an ISO 8601 date (midnight UTC) or date-time (`T` or a space between date
 * and time; seconds and a fraction optional; `Z` or an offset such as `+01:00`, `+0100` or `+01`;
 * without one the time is taken as UTC), or a number of seconds (below 10^11) or milliseconds
 * since 1970-01-01 UTC, as a number or as digits. The time must be from 2000-01-01 on, and not
 * more than a day ahead of `now`. Never throws.
 */
export function parseTimestamp(value: unknown, now: number = Date.now()): ParsedTimestamp {
  let ms: number | undefined;
  if (typeof value === 'number') ms = Number.isFinite(value) && value >= 0 ? (value < SECONDS_BELOW ? value * 1000 : value) : undefined;
  else if (typeof value === 'string') {
    const text = value.trim();
    if (EPOCH.test(text)) {
      const n = Number(text);
      ms = n < SECONDS_BELOW ? n * 1000 : n;
    } else ms = isoMs(text);
  }
  if (ms === undefined) return { ok: false, expected: TIMESTAMP_FORMS, received: received(value) };
  ms = Math.floor(ms);
  if (ms < EARLIEST_TIMESTAMP_MS || ms > now + MAX_AHEAD_MS) {
    const when = Math.abs(ms) <= 8.64e15 ? ` (${new Date(ms).toISOString()})` : '';
    return { ok: false, expected: 'a time from 2000-01-01 up to now', received: `${received(value)}${when}` };
  }
  return { ok: true, ms };
}
