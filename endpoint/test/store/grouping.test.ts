/**
 * How the store groups what it counts: messages by their text, activity by the week, sessions by
 * their length and their steps. Pure functions of store/rows.ts and store/sessions.ts.
 */
import { describe, expect, it } from 'vitest';
import { textKey, weekStart } from '../../src/store/rows.js';
import { lengthBucket, stepOf } from '../../src/store/sessions.js';

describe('messages counted as one in the top-messages view', () => {
  it('are the same text whatever the case, punctuation, symbols and spaces', () => {
    expect(textKey('Hi!!  there?')).toBe('hi there');
    expect(textKey('  HI there ')).toBe('hi there');
    expect(textKey('hi,there')).toBe('hi there');
    expect(textKey('price: 5€ + tax\t\nnow')).toBe('price 5 tax now');
    expect(textKey('Café crème')).toBe('café crème');
    // Each punctuation mark or symbol, and each run of spaces, is one space; none is kept at either end.
    expect(textKey('a.b')).toBe('a b');
    expect(textKey('a+b')).toBe('a b');
    expect(textKey('a€b')).toBe('a b');
    expect(textKey('a  \t\n b')).toBe('a b');
    expect(textKey('  Hello')).toBe('hello');
    expect(textKey('Hello  ')).toBe('hello');
    // A control character is neither: it stays.
    expect(textKey('a\u0000b')).toBe('a\u0000b');
  });

  it('have no key when there is no text, or only punctuation', () => {
    expect(textKey(undefined)).toBeNull();
    expect(textKey('')).toBeNull();
    expect(textKey(' ?! ... ')).toBeNull();
    expect(textKey('!!!')).toBeNull();
  });

  it('are told apart by their first 200 characters only', () => {
    const long = 'a'.repeat(250);
    expect(textKey(long)).toBe('a'.repeat(200));
    expect(textKey('x'.repeat(200))).toBe('x'.repeat(200));
    expect(textKey('X'.repeat(201))).toBe('x'.repeat(200));
    expect(textKey(`${'b'.repeat(199)}!c`)).toBe(`${'b'.repeat(199)} `.slice(0, 200));
  });
});

describe('weeks', () => {
  const DAY = 86_400_000;
  it('start on Monday 00:00 UTC', () => {
    const monday = Date.parse('2026-09-07T00:00:00Z');
    expect(weekStart(monday)).toBe(monday);
    expect(weekStart(monday - 1)).toBe(monday - 7 * DAY);
    expect(weekStart(monday + 7 * DAY - 1)).toBe(monday);
    expect(weekStart(Date.parse('2026-09-10T15:30:00Z'))).toBe(monday);
    expect(weekStart(Date.parse('2026-09-13T23:59:59Z'))).toBe(monday);
    expect(weekStart(Date.parse('1970-01-05T00:00:00Z'))).toBe(4 * DAY);
  });

  it('start on Monday 00:00 UTC also before 1970-01-05, the first Monday after the epoch', () => {
    expect(weekStart(0)).toBe(-3 * DAY);
    expect(weekStart(4 * DAY - 1)).toBe(-3 * DAY);
    expect(weekStart(11 * DAY)).toBe(11 * DAY);
  });
});

describe('the length of a session, as the sessions view buckets it', () => {
  it('is to 10 seconds under 10 minutes', () => {
    expect(lengthBucket(0)).toBe(0);
    expect(lengthBucket(9_999)).toBe(0);
    expect(lengthBucket(10_000)).toBe(10);
    expect(lengthBucket(125_500)).toBe(120);
    expect(lengthBucket(599_999)).toBe(590);
  });

  it('is to the minute from 10 minutes to an hour', () => {
    expect(lengthBucket(600_000)).toBe(600);
    expect(lengthBucket(659_000)).toBe(600);
    expect(lengthBucket(660_000)).toBe(660);
    expect(lengthBucket(3_599_999)).toBe(3540);
  });

  it('is to 10 minutes from an hour to 4 hours, then one bucket', () => {
    expect(lengthBucket(3_600_000)).toBe(3600);
    expect(lengthBucket(4_199_000)).toBe(3600);
    expect(lengthBucket(4_200_000)).toBe(4200);
    expect(lengthBucket(14_399_999)).toBe(13_800);
    expect(lengthBucket(14_400_000)).toBe(14_400);
    expect(lengthBucket(100 * 3_600_000)).toBe(14_400);
  });

  it('is never negative', () => {
    expect(lengthBucket(-5_000)).toBe(0);
  });
});

describe('the steps of a session\'s path', () => {
  it('are what the user said, by intent, and the events by name; not what the bot said, nor ratings', () => {
    expect(stepOf({ direction: 'incoming', intent: 'Order', event_name: null })).toBe('Order');
    expect(stepOf({ direction: 'incoming', intent: null, event_name: null })).toBeUndefined();
    expect(stepOf({ direction: 'outgoing', intent: 'Order', event_name: null })).toBeUndefined();
    expect(stepOf({ direction: 'event', intent: null, event_name: 'purchase' })).toBe('event:purchase');
    expect(stepOf({ direction: 'event', intent: null, event_name: 'feedback' })).toBeUndefined();
    expect(stepOf({ direction: 'event', intent: null, event_name: '' })).toBeUndefined();
    expect(stepOf({ direction: 'event', intent: null, event_name: null })).toBeUndefined();
  });
});
