/**
 * The value helpers behind every record field the middleware writes from an activity: how a
 * bot's or channel's value becomes the string, id or time a record carries.
 */
import { describe, expect, it } from 'vitest';
import { epochMs, fieldOf, idOf, isObject, orElse, stringify } from '../../src/middleware/values.js';

describe('stringify: what an entity value, a button value or an input becomes in a record', () => {
  it('keeps strings, writes numbers, booleans and bigints as their text, and null or undefined as an empty string', () => {
    expect(stringify('New York')).toBe('New York');
    expect(stringify('')).toBe('');
    expect(stringify(0)).toBe('0');
    expect(stringify(2.5)).toBe('2.5');
    expect(stringify(false)).toBe('false');
    expect(stringify(true)).toBe('true');
    expect(stringify(12345678901234567890n)).toBe('12345678901234567890');
    expect(stringify(null)).toBe('');
    expect(stringify(undefined)).toBe('');
  });

  it('writes objects and arrays as JSON, leaving out `$instance` at any depth and bigints inside them', () => {
    expect(stringify({ value: 'large', $instance: { a: 1 } })).toBe('{"value":"large"}');
    expect(stringify([{ city: 'Paris', $instance: {} }, 2])).toBe('[{"city":"Paris"},2]');
    expect(stringify({ nested: { $instance: 1, keep: true } })).toBe('{"nested":{"keep":true}}');
    expect(stringify({ big: 1n, n: 1 })).toBe('{"n":1}');
  });

  it('gives an empty string, never an exception, for what JSON cannot write: a cycle, a function, a symbol', () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(stringify(cycle)).toBe('');
    expect(stringify(() => 1)).toBe('');
    expect(stringify(Symbol('s'))).toBe('');
    const hostile = { toJSON: () => { throw new Error('boom'); } };
    expect(stringify(hostile)).toBe('');
  });
});

describe('idOf: user, conversation and page ids as strings', () => {
  it('keeps string ids, writes finite numbers and bigints as their digits, and gives undefined for anything else', () => {
    expect(idOf('user-1')).toBe('user-1');
    expect(idOf('')).toBe('');
    expect(idOf(1234567890)).toBe('1234567890');
    expect(idOf(0)).toBe('0');
    expect(idOf(9007199254740993n)).toBe('9007199254740993');
    expect(idOf(Number.NaN)).toBeUndefined();
    expect(idOf(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(idOf(null)).toBeUndefined();
    expect(idOf(undefined)).toBeUndefined();
    expect(idOf({ id: 'x' })).toBeUndefined();
    expect(idOf(true)).toBeUndefined();
  });
});

describe('epochMs: the time of a messenger event', () => {
  it('reads a Date or an ISO string, and uses the fallback for a missing, invalid or other value', () => {
    expect(epochMs(new Date('2024-05-01T10:00:00.000Z'), 7)).toBe(Date.parse('2024-05-01T10:00:00.000Z'));
    expect(epochMs('2024-05-01T10:00:00.000Z', 7)).toBe(Date.parse('2024-05-01T10:00:00.000Z'));
    expect(epochMs(new Date('not a date'), 7)).toBe(7);
    expect(epochMs('yesterday-ish', 7)).toBe(7);
    expect(epochMs(1714557600000, 7)).toBe(7);
    expect(epochMs(undefined, 7)).toBe(7);
  });
});

describe('reading fields that may throw', () => {
  const hostile = Object.defineProperty({ ok: 'fine' }, 'boom', {
    enumerable: true,
    get: () => {
      throw new Error('getter exploded');
    },
  }) as Record<string, unknown>;

  it('fieldOf gives a field, or undefined when its getter throws', () => {
    expect(fieldOf(hostile, 'ok')).toBe('fine');
    expect(fieldOf(hostile, 'boom')).toBeUndefined();
    expect(fieldOf(hostile, 'missing')).toBeUndefined();
  });

  it('orElse gives what the read returns, or the fallback when it throws', () => {
    expect(orElse(() => hostile.ok, 'fallback')).toBe('fine');
    expect(orElse(() => hostile.boom, 'fallback')).toBe('fallback');
    expect(orElse(() => undefined, 'fallback')).toBeUndefined();
  });

  it('isObject is true only for non-null objects that are not arrays', () => {
    expect(isObject({})).toBe(true);
    expect(isObject(Object.create(null))).toBe(true);
    expect(isObject([])).toBe(false);
    expect(isObject(null)).toBe(false);
    expect(isObject('x')).toBe(false);
  });
});
