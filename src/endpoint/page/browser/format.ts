/** Numbers, times and names as the page shows them (in the browser's locale and time zone). */
import type { TimeBucket } from '../../types.js';

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const minuteFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dayFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/** `10:11:12` */
export function clockTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : timeFormat.format(date);
}

/** `10:11` today, `Jan 2, 10:11` on another day. */
export function lastSeen(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toDateString() === new Date().toDateString() ? minuteFormat.format(date) : dateTimeFormat.format(date);
}

/** A bucket's start as an axis label: `10:11` for minutes and hours, `Jan 2` for days. */
export function bucketLabel(iso: string, bucket: TimeBucket): string {
  const date = new Date(iso);
  return bucket === 'day' ? dayFormat.format(date) : minuteFormat.format(date);
}

/** A count: `1,234`. */
export function count(value: number): string {
  return value.toLocaleString();
}

/** An amount of money (no currency is recorded): `9.50`, `0.125`. */
export function amount(value: number): string {
  return value.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 6 });
}

/** `1 message`, `2 messages`. */
export function plural(value: number, noun: string): string {
  return `${count(value)} ${noun}${value === 1 ? '' : 's'}`;
}

/** `30%`, or `2.5%` below 10%. */
export function percent(share: number): string {
  const value = share * 100;
  return `${value > 0 && value < 10 ? value.toFixed(1) : Math.round(value)}%`;
}
