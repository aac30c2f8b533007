import { describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../src/cli/timestamp.js';

const NOW = Date.UTC(2026, 0, 1);
const iso = (value: unknown) => {
  const parsed = parseTimestamp(value, NOW);
  return parsed.ok ? new Date(parsed.ms).toISOString() : `refused: ${parsed.received}`;
};

describe('parseTimestamp', () => {
  it('reads ISO 8601 dates and date-times, with Z, an offset in any of its forms, or none (UTC)', () => {
    expect(iso('2024-03-05T10:00:00Z')).toBe('2024-03-05T10:00:00.000Z');
    expect(iso('2024-03-05t10:00:00z')).toBe('2024-03-05T10:00:00.000Z');
    expect(iso('2024-03-05 10:00')).toBe('2024-03-05T10:00:00.000Z');
    expect(iso('2024-03-05T10:00:00.25+01:00')).toBe('2024-03-05T09:00:00.250Z');
    expect(iso('2024-03-05T10:00:00,5-0230')).toBe('2024-03-05T12:30:00.500Z');
    expect(iso('2024-03-05T10:00:00+01')).toBe('2024-03-05T09:00:00.000Z');
    expect(iso(' 2024-03-05 ')).toBe('2024-03-05T00:00:00.000Z');
    expect(iso('2024-02-29')).toBe('2024-02-29T00:00:00.000Z');
  });

  it('reads epoch seconds below 10^11 and milliseconds from there, as digits or numbers', () => {
    expect(iso('1709856000')).toBe('2024-03-08T00:00:00.000Z');
    expect(iso(1709856000.5)).toBe('2024-03-08T00:00:00.500Z');
    expect(iso('1709942400123')).toBe('2024-03-09T00:00:00.123Z');
    expect(iso(1709942400123)).toBe('2024-03-09T00:00:00.123Z');
  });

  it('refuses days and hours that do not exist, locale formats, words and other types', () => {
    for (const value of ['2023-02-29', '2024-13-01', '2024-03-05T24:00', '2024-03-05T10:60', '2024-03-05T10:00+25:00', '03/05/2024', '5 March 2024', 'yesterday', '', '-1709856000', true, null, { at: 1 }, NaN]) {
      expect(parseTimestamp(value, NOW)).toMatchObject({ ok: false, expected: expect.stringContaining('ISO 8601') });
    }
  });

  it('refuses times before 2000 and more than a day ahead, showing the time it read', () => {
    expect(parseTimestamp('1999-12-31T23:59:59Z', NOW)).toEqual({ ok: false, expected: 'a time from 2000-01-01 up to now', received: '"1999-12-31T23:59:59Z" (1999-12-31T23:59:59.000Z)' });
    expect(parseTimestamp(NOW + 2 * 86_400_000, NOW)).toMatchObject({ ok: false, expected: 'a time from 2000-01-01 up to now' });
    expect(parseTimestamp('9999999999999999', NOW)).toMatchObject({ ok: false, received: '"9999999999999999"' });
    expect(parseTimestamp(NOW + 3_600_000, NOW)).toEqual({ ok: true, ms: NOW + 3_600_000 });
  });

  it('takes the last valid hour, minute, second, month and day, and refuses the next', () => {
    expect(iso('2024-12-31T23:59:59Z')).toBe('2024-12-31T23:59:59.000Z');
    expect(iso('2024-01-01T00:00:00Z')).toBe('2024-01-01T00:00:00.000Z');
    for (const value of ['2024-00-10', '2024-01-00', '2024-03-05T10:00:60', '2024-04-31', '2025-02-29']) expect(iso(value), value).toMatch(/^refused/);
  });

  it('reads a fraction of a second to the millisecond, cutting what is finer', () => {
    expect(iso('2024-03-05T10:00:00.5Z')).toBe('2024-03-05T10:00:00.500Z');
    expect(iso('2024-03-05T10:00:00.123456789Z')).toBe('2024-03-05T10:00:00.123Z');
    expect(iso('2024-03-05T10:00:00.9999Z')).toBe('2024-03-05T10:00:00.999Z');
    expect(iso('2024-03-05T10:00:00.1234567890Z')).toMatch(/^refused/);
  });

  it('reads offsets east and west, with or without a colon, in hours or hours and minutes, and a space before them', () => {
    expect(iso('2024-03-05T10:00:00-05:00')).toBe('2024-03-05T15:00:00.000Z');
    expect(iso('2024-03-05T10:00:00+0530')).toBe('2024-03-05T04:30:00.000Z');
    expect(iso('2024-03-05T10:00:00-0530')).toBe('2024-03-05T15:30:00.000Z');
    expect(iso('2024-03-05T10:00:00+05:30')).toBe('2024-03-05T04:30:00.000Z');
    expect(iso('2024-03-05T10:00:00-05')).toBe('2024-03-05T15:00:00.000Z');
    expect(iso('2024-03-05 10:00 +01:00')).toBe('2024-03-05T09:00:00.000Z');
    expect(iso('2024-03-05T10:00:00+23:59')).toBe('2024-03-04T10:01:00.000Z');
    for (const value of ['2024-03-05T10:00:00+24:00', '2024-03-05T10:00:00+01:60', '2024-03-05T10:00:00+1', '2024-03-05T10:00:00 +01:00:00', '2024-03-05T10']) expect(iso(value), value).toMatch(/^refused/);
  });

  it('refuses a date written otherwise than year-month-day with dashes, or with text around it', () => {
    for (const value of ['20240305', '2024/03/05', '24-03-05', '2024-3-5', 'x2024-03-05', '2024-03-05x', '2024-03-05T10:00:00Zx', '2024-03-05T1000']) expect(iso(value), value).toMatch(/^refused/);
  });

  it('reads epoch seconds with a fraction, and tells seconds from milliseconds at 10^11', () => {
    expect(iso('1709856000.25')).toBe('2024-03-08T00:00:00.250Z');
    expect(iso(' 1709856000 ')).toBe('2024-03-08T00:00:00.000Z');
    expect(iso(1709942400123.9)).toBe('2024-03-09T00:00:00.123Z');
    // Just under 10^11 are seconds (the year 5138), 10^11 itself milliseconds (1973): both refused, each saying when it read.
    expect(parseTimestamp(99_999_999_999, NOW)).toMatchObject({ ok: false, received: '99999999999 (5138-11-16T09:46:39.000Z)' });
    expect(parseTimestamp('100000000000', NOW)).toMatchObject({ ok: false, received: '"100000000000" (1973-03-03T09:46:40.000Z)' });
    expect(parseTimestamp(1e11, NOW)).toMatchObject({ ok: false, received: '100000000000 (1973-03-03T09:46:40.000Z)' });
    expect(parseTimestamp('99999999999', NOW)).toMatchObject({ ok: false, received: '"99999999999" (5138-11-16T09:46:39.000Z)' });
    for (const value of ['1709856000.', '.5', '1e12', '0x10', '17098560001234567']) expect(iso(value), value).toMatch(/^refused/);
  });

  it('refuses negative and infinite numbers as no time at all, and zero as before 2000', () => {
    for (const value of [-1, -0.5, Infinity, -Infinity]) expect(parseTimestamp(value, NOW)).toMatchObject({ ok: false, expected: expect.stringContaining('ISO 8601') });
    expect(parseTimestamp(0, NOW)).toEqual({ ok: false, expected: 'a time from 2000-01-01 up to now', received: '0 (1970-01-01T00:00:00.000Z)' });
  });

  it('takes 2000-01-01T00:00:00Z and a time exactly a day ahead, and refuses a millisecond more either way', () => {
    expect(parseTimestamp('2000-01-01T00:00:00Z', NOW)).toEqual({ ok: true, ms: Date.UTC(2000, 0, 1) });
    expect(parseTimestamp(Date.UTC(2000, 0, 1) - 1, NOW)).toMatchObject({ ok: false, expected: 'a time from 2000-01-01 up to now' });
    expect(parseTimestamp(NOW + 86_400_000, NOW)).toEqual({ ok: true, ms: NOW + 86_400_000 });
    expect(parseTimestamp(NOW + 86_400_001, NOW)).toMatchObject({ ok: false, expected: 'a time from 2000-01-01 up to now' });
  });

  it('shows what it refused: a long text cut at 40 characters, a number, null, or the type', () => {
    const long = `${'x'.repeat(40)}yz`;
    expect(parseTimestamp(long, NOW)).toMatchObject({ received: JSON.stringify(`${'x'.repeat(40)}…`) });
    expect(parseTimestamp('x'.repeat(40), NOW)).toMatchObject({ received: JSON.stringify('x'.repeat(40)) });
    expect(parseTimestamp(null, NOW)).toMatchObject({ received: 'null' });
    expect(parseTimestamp(true, NOW)).toMatchObject({ received: 'boolean' });
    expect(parseTimestamp({ at: 1 }, NOW)).toMatchObject({ received: 'object' });
    expect(parseTimestamp(undefined, NOW)).toMatchObject({ received: 'undefined' });
    expect(parseTimestamp(Number.NaN, NOW)).toMatchObject({ received: 'NaN' });
  });

  it('shows the time it read while it is one a date can show, up to 8.64e15 ms', () => {
    expect(parseTimestamp('8640000000000000', NOW)).toMatchObject({ ok: false, received: '"8640000000000000" (+275760-09-13T00:00:00.000Z)' });
    expect(parseTimestamp('8640000000000001', NOW)).toMatchObject({ ok: false, received: '"8640000000000001"' });
  });

  it('measures "a day ahead" from the time it is given, by default now', () => {
    expect(parseTimestamp(Date.now() + 3_600_000)).toMatchObject({ ok: true });
    expect(parseTimestamp(Date.now() + 3 * 86_400_000)).toMatchObject({ ok: false });
  });
});
