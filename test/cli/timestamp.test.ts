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
});
