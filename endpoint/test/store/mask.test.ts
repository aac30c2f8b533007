/**
 * What never reaches the database as sent (store/mask.ts): card numbers that pass the Luhn check
 * (fuzzed: valid and invalid, with separators, in nested JSON), secret-named fields, and, when
 * asked, email addresses and phone numbers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cardMask, EMAIL_MARKER, isCardNumber, luhnValid, maskCardNumbers, maskEmails, maskPhones, maskRecordBody, maskString,
  parseMaskKinds, PHONE_MARKER, SECRET_MARKER,
} from '../../src/store/mask.js';
import { ACCESS_TOKEN_MARKER } from '../../src/store/tokens.js';

/** The Luhn sum, written independently of the module's. */
function luhnSum(digits: string): number {
  return [...digits].reverse().reduce((sum, c, i) => {
    const d = Number(c) * (i % 2 === 1 ? 2 : 1);
    return sum + (d > 9 ? d - 9 : d);
  }, 0);
}
const checkDigit = (payload: string) => String((10 - (luhnSum(`${payload}0`) % 10)) % 10);

/** A card number: first digit 2-6, 13-19 digits, a valid (or, with `wrong`, an invalid) check digit. */
const cardDigits = (valid: boolean) =>
  fc.tuple(fc.integer({ min: 2, max: 6 }), fc.integer({ min: 13, max: 19 }).chain((n) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: n - 2, maxLength: n - 2 })), fc.integer({ min: 1, max: 9 }))
    .map(([first, middle, wrong]) => {
      const payload = `${first}${middle}`;
      const check = checkDigit(payload);
      return valid ? `${payload}${check}` : `${payload}${(Number(check) + wrong) % 10}`;
    });

/** The digits cut into groups (sizes 1-8) joined by spaces or dashes, or not cut. */
const written = (digits: string) =>
  fc.tuple(fc.array(fc.integer({ min: 1, max: 8 }), { maxLength: 6 }), fc.constantFrom(' ', '-')).map(([sizes, sep]) => {
    const groups: string[] = [];
    let at = 0;
    for (const size of sizes) {
      if (at >= digits.length) break;
      groups.push(digits.slice(at, at + size));
      at += size;
    }
    if (at < digits.length) groups.push(digits.slice(at));
    return groups.join(sep);
  });

/** Whether any span of whole groups of `text` is a card number (an "invalid" number must hold none). */
function holdsCard(text: string): boolean {
  const groups = text.split(/[ -]/);
  for (let i = 0; i < groups.length; i++) {
    for (let j = i, joined = ''; j < groups.length; j++) {
      joined += groups[j];
      if (/^[2-6]\d{12,18}$/.test(joined) && luhnSum(joined) % 10 === 0) return true;
    }
  }
  return false;
}

const item = fc.oneof(
  cardDigits(true).chain((d) => written(d).map((text) => ({ text, expected: cardMask(d) }))),
  cardDigits(false).chain(written).filter((text) => !holdsCard(text)).map((text) => ({ text, expected: text })),
);
const words = fc.constantFrom('my card is', 'order', 'and', 'pay with', 'ref:', '(', 'x', '—', 'card#');

describe('card numbers in text', () => {
  it('fuzz: every valid one (any grouping, spaces or dashes) is masked to its last four; no invalid one changes', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(words, item), { minLength: 1, maxLength: 5 }), (parts) => {
        const text = parts.map(([w, i]) => `${w} ${i.text}`).join(' ');
        const expected = parts.map(([w, i]) => `${w} ${i.expected}`).join(' ');
        expect(maskCardNumbers(text)).toBe(expected);
      }),
      { seed: 27, numRuns: 2000 },
    );
  });

  it('fuzz: masked wherever it stands in a record — text, buttons, nested platformJson, arrays, JSON numbers', () => {
    fc.assert(
      fc.property(item, item, item, cardDigits(true).filter((d) => d.length <= 16), (a, b, c, n) => {
        const body = {
          text: `pay ${a.text}`,
          userId: 'u1',
          buttons: [{ label: b.text, value: `v:${c.text}` }],
          platformJson: { channelData: { notes: [a.text, { deep: { deeper: c.text } }] }, n: Number(n) },
          extraInfo: { k: b.text },
          metadata: [[c.text]],
        };
        const { value, changed } = maskRecordBody(body);
        expect(value).toEqual({
          text: `pay ${a.expected}`,
          userId: 'u1',
          buttons: [{ label: b.expected, value: `v:${c.expected}` }],
          platformJson: { channelData: { notes: [a.expected, { deep: { deeper: c.expected } }] }, n: cardMask(n) },
          extraInfo: { k: b.expected },
          metadata: [[c.expected]],
        });
        expect(changed).toBe(true);
      }),
      { seed: 28, numRuns: 500 },
    );
  });

  it('masks the examples, keeping what is around them', () => {
    expect(maskCardNumbers('my card is 4111 1111 1111 1111')).toBe('my card is •••• 1111');
    expect(maskCardNumbers('4111-1111-1111-1111, exp 12/29')).toBe('•••• 1111, exp 12/29');
    expect(maskCardNumbers('amex 378282246310005.')).toBe('amex •••• 0005.');
    expect(maskCardNumbers('card 4111 1111 1111 1111 1225')).toBe('card •••• 1111 1225');
    expect(maskCardNumbers('12 4111111111111111')).toBe('12 •••• 1111');
    expect(maskCardNumbers('4111111111111111 5555555555554444')).toBe('•••• 1111 •••• 4444');
    expect(maskCardNumbers('6011111111111117')).toBe('•••• 1117');
    expect(maskCardNumbers('4222222222222')).toBe('•••• 2222'); // 13 digits
    expect(maskCardNumbers('6304000000000000000')).toBe('•••• 0000'); // 19 digits
  });

  it('leaves alone what is not a card number: bad Luhn, timestamps, ids, decimals, phone-length and longer numbers', () => {
    for (const text of [
      '4111 1111 1111 1112',
      'at 1735812672000 (epoch ms) or 1735812672000000',
      'order 1000000000000007',
      'score 0.4111111111111111',
      'id tok_4111111111111111 and 4111111111111111abc',
      '41111111111111110 is 17 digits but fails Luhn',
      '+1 555 123 4567',
      '2025-01-02T10:11:12.345Z',
      '42222222222222222222 (20 digits, passes Luhn as a whole)',
      '411111111111',
      'x'.repeat(30),
      '•••• 1111',
    ]) expect(maskCardNumbers(text), text).toBe(text);
  });

  it('checks Luhn and the shape of a card number', () => {
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('79927398710')).toBe(false);
    expect(luhnValid('0')).toBe(true);
    expect(luhnValid('18')).toBe(true);
    expect(luhnValid('19')).toBe(false);
    expect(luhnValid('59')).toBe(true);
    expect(isCardNumber('4111111111111111')).toBe(true);
    expect(isCardNumber('1111111111111117')).toBe(false); // first digit 1
    expect(isCardNumber('7111111111111111')).toBe(false);
    expect(isCardNumber('411111111111')).toBe(false); // 12 digits
    expect(isCardNumber('42222222222222222222')).toBe(false); // 20 digits
    expect(isCardNumber('x4111111111111111')).toBe(false);
    expect(isCardNumber('4111111111111111\n')).toBe(false);
    expect(cardMask('4111111111111111')).toBe('•••• 1111');
  });

  it('keeps them with keepCardNumbers, and unsafe or short JSON numbers as they are', () => {
    const body = { text: '4111 1111 1111 1111', n: 4111111111111111 };
    expect(maskRecordBody(structuredClone(body), { keepCardNumbers: true })).toEqual({ value: body, changed: false });
    expect(maskString('4111 1111 1111 1111', { keepCardNumbers: true })).toBe('4111 1111 1111 1111');
    for (const n of [1735812672000, 4111111111111112, 41.5, 1e300, 2 ** 62]) {
      expect(maskRecordBody({ n })).toEqual({ value: { n }, changed: false });
    }
    expect(maskRecordBody(4111111111111111)).toEqual({ value: '•••• 1111', changed: true });
    expect(maskRecordBody('4111111111111111')).toEqual({ value: '•••• 1111', changed: true });
    expect(maskRecordBody(null)).toEqual({ value: null, changed: false });
    expect(maskRecordBody({ ok: true, none: null, list: [1, 'a'] })).toEqual({ value: { ok: true, none: null, list: [1, 'a'] }, changed: false });
  });
});

describe('secret-named fields', () => {
  it('have their value replaced wherever they stand, whatever the case of the name', () => {
    const body = {
      text: 'hi',
      platformJson: {
        channelData: { access_token: 'EAA-1', clientActivityID: 'keep' },
        Authorization: 'Bearer abc',
        list: [{ password: 'hunter2' }, { apiKey: 'sk_1' }],
        credentials: { user: 'u', pass: 'p' },
        secrets: ['a', 'b'],
        refresh_token: 'r',
        note: 'password is not a key here',
      },
    };
    const { value, changed } = maskRecordBody(body);
    expect(changed).toBe(true);
    expect(value).toEqual({
      text: 'hi',
      platformJson: {
        channelData: { access_token: SECRET_MARKER, clientActivityID: 'keep' },
        Authorization: SECRET_MARKER,
        list: [{ password: SECRET_MARKER }, { apiKey: SECRET_MARKER }],
        credentials: SECRET_MARKER,
        secrets: SECRET_MARKER,
        refresh_token: SECRET_MARKER,
        note: 'password is not a key here',
      },
    });
  });

  it('keeps counts, flags, empty values and the markers already there, and says nothing changed', () => {
    const body = { maxTokens: 100, tokenized: true, token: '', secret: null, credentials: {}, secrets: [], qs: { access_token: ACCESS_TOKEN_MARKER }, password: SECRET_MARKER };
    expect(maskRecordBody(structuredClone(body))).toEqual({ value: body, changed: false });
  });

  it('are masked even with keepCardNumbers', () => {
    expect(maskRecordBody({ token: 't' }, { keepCardNumbers: true }).value).toEqual({ token: SECRET_MARKER });
  });
});

describe('emails and phone numbers, when asked', () => {
  it('are masked by maskString only when named, after card numbers', () => {
    const text = 'mail a.b+c@mail.example.co.uk or call +44 20 7946 0958, card 4111111111111111';
    expect(maskString(text)).toBe('mail a.b+c@mail.example.co.uk or call +44 20 7946 0958, card •••• 1111');
    expect(maskString(text, { mask: ['email'] })).toBe(`mail ${EMAIL_MARKER} or call +44 20 7946 0958, card •••• 1111`);
    expect(maskString(text, { mask: ['phone'] })).toBe(`mail a.b+c@mail.example.co.uk or call ${PHONE_MARKER}, card •••• 1111`);
    expect(maskString(text, { mask: ['email', 'phone'], keepCardNumbers: true })).toBe(`mail ${EMAIL_MARKER} or call ${PHONE_MARKER}, card 4111111111111111`);
    expect(maskRecordBody({ a: ['x@y.io'] }, { mask: ['email'] })).toEqual({ value: { a: [EMAIL_MARKER] }, changed: true });
  });

  it('emails: name@domain.tld', () => {
    expect(maskEmails('to jo@example.com and JO_2@sub.example.org.')).toBe(`to ${EMAIL_MARKER} and ${EMAIL_MARKER}.`);
    for (const text of ['@handle', 'a@b', 'a@b.c', 'no at sign', 'user@localhost']) expect(maskEmails(text), text).toBe(text);
  });

  it('phones: + and 8-15 digits, or 10-11 digits in phone groups', () => {
    for (const [text, expected] of [
      ['+1 (555) 123-4567', PHONE_MARKER],
      ['+33 1 23 45 67 89', PHONE_MARKER],
      ['+4915123456789', PHONE_MARKER],
      ['+12345678', PHONE_MARKER], // 8 digits, the fewest
      ['+123456789012345', PHONE_MARKER], // 15 digits, the most
      ['(555) 123-4567', PHONE_MARKER],
      ['(555)123-4567', PHONE_MARKER],
      ['555-123-4567', PHONE_MARKER],
      ['555.123.4567', PHONE_MARKER],
      ['020 7946 0958', PHONE_MARKER],
      ['01 23 45 67 89', PHONE_MARKER],
      ['call 555-123-4567 now', `call ${PHONE_MARKER} now`],
    ]) expect(maskPhones(text), text).toBe(expected);
    for (const text of [
      '5551234567', // a bare run: an id or a timestamp as often as a phone
      '555-1234567', // one separator
      '+1234567', // 7 digits
      '+1234567890123456', // 16 digits
      '123-456-78', // 8 digits
      '123-456-789-0123', // 13 digits
      '2025-01-02 10', // a date
      '2025-01-02T10:11:12Z',
      '02/01/2025 1030',
      '192.168.100.2',
      'v1.2.3',
      'id abc555-123-4567',
      '555-123-4567x',
      '1735812672000',
    ]) expect(maskPhones(text), text).toBe(text);
  });
});

describe('--mask values', () => {
  it('take email and phone, comma-separated or repeated, in any case, once each', () => {
    expect(parseMaskKinds([])).toEqual([]);
    expect(parseMaskKinds(['email,phone'])).toEqual(['email', 'phone']);
    expect(parseMaskKinds(['Phone', ' email ', 'phone,'])).toEqual(['phone', 'email']);
    expect(parseMaskKinds(['email,card'])).toEqual({ error: '--mask takes email and phone (comma-separated); got "card".' });
  });
});
