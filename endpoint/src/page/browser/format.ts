/**
 * Numbers, times and names as the page shows them. Buckets of the read API are UTC days, weeks
 * and months, so their labels are in UTC; the time of a message is in the browser's time zone.
 */
import type { ActivityInterval } from '../../types.js';

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const minuteFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
const fullDateTimeFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
const utcDay = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const utcMonth = new Intl.DateTimeFormat(undefined, { month: 'short', year: 'numeric', timeZone: 'UTC' });

function valid(iso: string): Date | undefined {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** `10:11:12` */
export function clockTime(iso: string): string {
  const date = valid(iso);
  return date ? timeFormat.format(date) : iso;
}

/** `10:11` today, `Jan 2, 10:11` on another day of this year, `Jan 2, 2025, 10:11` before. */
export function lastSeen(iso: string, now = new Date()): string {
  const date = valid(iso);
  if (!date) return iso;
  if (date.toDateString() === now.toDateString()) return minuteFormat.format(date);
  return date.getFullYear() === now.getFullYear() ? dateTimeFormat.format(date) : fullDateTimeFormat.format(date);
}

/** A bucket's start as a label: `Sep 7` for a day or a week (its Monday), `Sep 2026` for a month; in UTC like the buckets. */
export function bucketLabel(iso: string, interval: ActivityInterval = 'day'): string {
  const date = valid(iso);
  if (!date) return iso;
  return interval === 'month' ? utcMonth.format(date) : utcDay.format(date);
}

/** A bucket of `/api/timeseries` as a label in a table (under a `Week of` heading for weeks): `10:15` for a minute or an hour, `Sep 7` for a day or a week (its Monday), `Sep 2026` for a month. */
export function timeBucketLabel(iso: string, bucket: 'minute' | 'hour' | 'day' | 'week' | 'month'): string {
  const date = valid(iso);
  if (!date) return iso;
  if (bucket === 'month') return utcMonth.format(date);
  return bucket === 'day' || bucket === 'week' ? utcDay.format(date) : minuteFormat.format(date);
}

/**
 * A bucket as a chart names it (an axis label, a tooltip's title), where no heading says what it
 * is: a week is `Week of Sep 7` (the read API's weeks begin on Monday, so a week holding Sep 10 is
 * the week of Sep 7); a minute, an hour, a day or a month as `timeBucketLabel`.
 */
export function bucketTitle(iso: string, bucket: 'minute' | 'hour' | 'day' | 'week' | 'month'): string {
  const label = timeBucketLabel(iso, bucket);
  return bucket === 'week' && valid(iso) ? `Week of ${label}` : label;
}

/** A count: `1,234`. */
export function count(value: number): string {
  return value.toLocaleString();
}

/** An amount: `9.50`, `0.125`. */
export function amount(value: number): string {
  return value.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 6 });
}

/** Money with its currency code, `unknown` when the record named none: `EUR 70.00`. */
export function money(value: number, currency: string | null | undefined): string {
  return `${currency ?? 'unknown'} ${amount(value)}`;
}

/**
 * The noun for a count, as every count on the page is worded: `message` for 1, `messages` for
 * any other number (0 included). `nouns` is the plural when it is not the noun and an `s`.
 */
export function nounFor(value: number, noun: string, nouns = `${noun}s`): string {
  return value === 1 ? noun : nouns;
}

/** A count with its noun: `1 message`, `2 messages`, `1,234 messages`. */
export function plural(value: number, noun: string, nouns = `${noun}s`): string {
  return `${count(value)} ${nounFor(value, noun, nouns)}`;
}

/** `30%`, or `2.5%` below 10%. */
export function percent(share: number): string {
  const value = share * 100;
  return `${value > 0 && value < 10 ? value.toFixed(1) : Math.round(value)}%`;
}

/** A length of time: `45 s`, `3 min 55 s`, `2 h 5 min`. */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const minutes = Math.round((s % 3600) / 60);
  return `${Math.floor(s / 3600)} h${minutes ? ` ${minutes} min` : ''}`;
}

/** How a funnel or path step reads: an intent as is, `event:purchase` as `purchase (event)`. */
export function stepLabel(step: string): string {
  return step.startsWith('event:') ? `${step.slice(6)} (event)` : step;
}

/** The URL when it is `http:` or `https:` (safe to link to), else `undefined`. */
export function webUrl(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
