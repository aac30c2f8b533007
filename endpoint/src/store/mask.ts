/**
 * What never reaches the database as sent (issue 27, points 5 and 6): payment card numbers (PCI
 * DSS forbids storing them), secrets a bot leaves in its own data under a secret's name, and, when
 * asked for, email addresses and phone numbers. Each is replaced in place by a fixed mask before a
 * record is committed, wherever it stands in the body (text, buttons, `platformJson`, `extraInfo`,
 * `metadata`, nested objects and arrays).
 */
import { isPlainObject, SECRET_KEY } from 'botbuilder-conversation-analytics/protocol';
import { ACCESS_TOKEN_MARKER } from './tokens.js';

/** What the endpoint stores instead of the value of a secret-named field (`password`, `token`, `authorization`, …). */
export const SECRET_MARKER = '[secret removed by the endpoint]';
/** What the endpoint stores instead of an email address (with `--mask email`). */
export const EMAIL_MARKER = '[email]';
/** What the endpoint stores instead of a phone number (with `--mask phone`). */
export const PHONE_MARKER = '[phone]';

/** What else to mask besides card numbers and secret-named fields. */
export type MaskKind = 'email' | 'phone';
/** The kinds `--mask` takes. */
export const MASK_KINDS: readonly MaskKind[] = ['email', 'phone'];

/** What to mask at ingestion. */
export interface MaskOptions {
  /** Keep payment card numbers as sent (a PCI DSS risk). Default `false`: they are masked. */
  keepCardNumbers?: boolean;
  /** Mask these too. Default none. */
  mask?: readonly MaskKind[];
}

/** The mask of a card number: its last four digits, after a fixed run of dots. */
export function cardMask(digits: string): string {
  return `•••• ${digits.slice(-4)}`;
}

/** Whether `digits` (digits only) passes the Luhn check. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * Whether `digits` looks like a payment card number: 13 to 19 digits, a first digit from 2 to 6
 * (the major industry identifiers of card issuers: Mastercard, Amex, Diners, JCB, Visa, Discover,
 * UnionPay, Maestro), and the Luhn check. The first digit keeps epoch timestamps (which begin
 * with 1 until 2033) and most order numbers out.
 */
export function isCardNumber(digits: string): boolean {
  return /^[2-6]\d{12,18}$/.test(digits) && luhnValid(digits);
}

/**
 * A run of digit groups, each group joined to the next by one space or dash, not touching a
 * letter, digit, underscore or a decimal point before it, nor a letter, digit or underscore after.
 */
const DIGIT_RUN = /(?<![\w.])\d+(?:[ -]\d+)*(?!\w)/g;

/**
 * Masks the card numbers in `text`. In a run of digit groups (`4111 1111 1111 1111`, `4111-1111-…`,
 * `4111111111111111`), consecutive groups of 13 to 19 digits in all that make a card number are
 * masked, keeping the last four; every other digit is left as it was.
 */
export function maskCardNumbers(text: string): string {
  if (!/\d(?:[ -]?\d){12}/.test(text)) return text;
  return text.replace(DIGIT_RUN, (run) => {
    const groups = run.split(/[ -]/);
    const seps = run.match(/[ -]/g) ?? [];
    const out: string[] = [];
    let i = 0;
    while (i < groups.length) {
      let end = -1;
      let digits = '';
      // The longest span of groups from i that is a card number.
      for (let j = i, joined = ''; j < groups.length && joined.length < 19; j++) {
        joined += groups[j];
        if (isCardNumber(joined)) {
          end = j;
          digits = joined;
        }
      }
      if (end === -1) {
        out.push(groups[i], i < seps.length ? seps[i] : '');
        i++;
      } else {
        out.push(cardMask(digits), end < seps.length ? seps[end] : '');
        i = end + 1;
      }
    }
    return out.join('');
  });
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;

/** Replaces every email address (`name@domain.tld`) in `text` with `EMAIL_MARKER`. */
export function maskEmails(text: string): string {
  return text.includes('@') ? text.replace(EMAIL, EMAIL_MARKER) : text;
}

/**
 * A phone-shaped run: an optional `+` and country code, an optional area code in parentheses, then digit groups
 * joined by one space, dot or dash; not touching a letter, digit, underscore or `+` before it, nor a
 * letter, digit or underscore after.
 */
const PHONE_RUN = /(?<![\w+.])(\+\d{1,3}[ .-]?)?(\(\d{1,5}\)[ .-]?)?\d+(?:[ .-]\d+)*(?!\w)/g;
const DATE_SHAPE = /^(?:\d{4}([-./])\d{1,2}\1\d{1,2}|\d{1,2}([-./])\d{1,2}\2\d{2,4})(?!\d)/;
const IPV4_SHAPE = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * Whether a phone-shaped run is a phone number: with a leading `+`, 8 to 15 digits (E.164); without
 * one, 10 or 11 digits written in groups (an area code in parentheses or at least two separators,
 * as in `(555) 123-4567`, `555-123-4567`, `020 7946 0958`), that is not shaped like a date or an
 * IPv4 address. A bare run of digits without `+` is never taken for a phone number (it is more
 * often an id or a timestamp).
 */
function isPhone(run: string, plus: boolean, area: boolean): boolean {
  const digits = run.replace(/\D/g, '').length;
  if (plus) return digits >= 8 && digits <= 15;
  if (digits < 10 || digits > 11) return false;
  const separators = (run.match(/[ .-]/g) ?? []).length;
  if (!area && separators < 2) return false;
  return !DATE_SHAPE.test(run) && !IPV4_SHAPE.test(run);
}

/** Replaces every phone number in `text` (see `isPhone`) with `PHONE_MARKER`. */
export function maskPhones(text: string): string {
  return text.replace(PHONE_RUN, (run, plus: string | undefined, area: string | undefined) =>
    isPhone(run, plus !== undefined, area !== undefined) ? PHONE_MARKER : run,
  );
}

/** Masks one string as `options` say. */
export function maskString(text: string, options: MaskOptions = {}): string {
  let out = options.keepCardNumbers ? text : maskCardNumbers(text);
  if (options.mask?.includes('email')) out = maskEmails(out);
  if (options.mask?.includes('phone')) out = maskPhones(out);
  return out;
}

/** Whether a card number may stand in a JSON number: a safe integer of 13 to 16 digits. */
function numberIsCard(value: number): boolean {
  return Number.isSafeInteger(value) && isCardNumber(String(value));
}

/**
 * Masks `value` in place: card numbers (unless `keepCardNumbers`), email addresses and phone
 * numbers (when asked) in every string and object key's value, card numbers written as JSON
 * numbers, and the value of every field whose name says it holds a secret (`SECRET_KEY`: `token`,
 * `password`, `secret`, `authorization`, `apiKey`, …; numbers and booleans under such names, such as
 * a `maxTokens` count, are kept). Returns the value (a new one when `value` itself is a string or a
 * number that changed) and whether anything changed.
 */
export function maskRecordBody<T>(value: T, options: MaskOptions = {}): { value: T; changed: boolean } {
  let changed = false;
  const visit = (node: unknown, secret: boolean): unknown => {
    if (typeof node === 'string') {
      if (secret) {
        if (node === '' || node === SECRET_MARKER || node === ACCESS_TOKEN_MARKER) return node;
        changed = true;
        return SECRET_MARKER;
      }
      const masked = maskString(node, options);
      if (masked !== node) changed = true;
      return masked;
    }
    if (typeof node === 'number') {
      if (options.keepCardNumbers || !numberIsCard(node)) return node;
      changed = true;
      return cardMask(String(node));
    }
    if (Array.isArray(node)) {
      if (secret && node.length > 0) {
        changed = true;
        return SECRET_MARKER;
      }
      for (let i = 0; i < node.length; i++) node[i] = visit(node[i], false);
      return node;
    }
    if (isPlainObject(node)) {
      if (secret && Object.keys(node).length > 0) {
        changed = true;
        return SECRET_MARKER;
      }
      for (const key of Object.keys(node)) node[key] = visit(node[key], SECRET_KEY.test(key));
      return node;
    }
    return node;
  };
  const result = visit(value, false) as T;
  return { value: result, changed };
}

/**
 * Reads `--mask` values (`email,phone`, repeatable): the kinds named, or an error saying which
 * name is not one.
 */
export function parseMaskKinds(values: readonly string[]): MaskKind[] | { error: string } {
  const kinds = new Set<MaskKind>();
  for (const name of values.flatMap((v) => v.split(',')).map((v) => v.trim().toLowerCase()).filter(Boolean)) {
    if (!(MASK_KINDS as readonly string[]).includes(name)) return { error: `--mask takes email and phone (comma-separated); got "${name}".` };
    kinds.add(name as MaskKind);
  }
  return [...kinds];
}
