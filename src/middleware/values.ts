/**
 * Small value helpers shared by the mappers: turning whatever a bot put in an activity into
 * the strings the spec wants. None of them throws.
 */

import { isPlainObject } from '../protocol/index.js';

/** True for a non-null object that is not an array (the protocol's check, typed loosely for reading activities). */
export const isObject = isPlainObject as (value: unknown) => value is Record<string, any>;

/**
 * A value as a string: strings as they are, numbers and booleans with `String`, objects and
 * arrays as JSON (keys named `$instance` left out), `null`/`undefined` as `''`.
 */
export function stringify(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  try {
    const json = JSON.stringify(value, (key, v: unknown) => (key === '$instance' || typeof v === 'bigint' ? undefined : v));
    return json ?? '';
  } catch {
    return '';
  }
}

/** Epoch milliseconds of an activity timestamp (a `Date` or an ISO string), or `fallback`. */
export function epochMs(value: unknown, fallback: number): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isFinite(ms) ? ms : fallback;
}

/**
 * An id as the spec wants it, a string: strings as they are, numbers (the Twitter adapter copies
 * Twitter's numeric ids) and bigints as their decimal digits; anything else `undefined`.
 */
export function idOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint') return String(value);
  return undefined;
}

/**
 * `read()`, or `fallback` when it throws: mapping reads what channels and bots put in an activity,
 * which may be anything (a getter that throws, a revoked proxy), and one field that cannot be read
 * must not cost the record its other fields.
 */
export function orElse<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/** A field of an object, or `undefined` when reading it throws (a getter of a hostile object, a revoked proxy). */
export function fieldOf(value: Record<string, any>, key: string): unknown {
  try {
    return value[key];
  } catch {
    return undefined;
  }
}
