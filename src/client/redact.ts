/**
 * Secret redaction: the API key and messenger access tokens never reach a log line or an error.
 *
 * Text that comes back from elsewhere (a response body, a network error) may carry a secret in any
 * encoding: raw, percent-encoded as `encodeURIComponent` or `URLSearchParams` does it (hex in
 * either case; a space as `%20` or `+`), or JSON-escaped (`\"`, `\/`, `\uXXXX`), and even a mix
 * of these within one secret. Each secret is therefore matched character by character, every
 * character in any of its encodings, rather than as a list of whole forms that would always miss
 * one. Secrets of any length are masked: a short key makes messages harder to read, never leaks.
 */
import { SECRET_PARAMETERS } from '../protocol/index.js';

const MASK = '***';
const SECRET_NAMES = SECRET_PARAMETERS.join('|');
const QUERY_SECRET = new RegExp(`([?&](?:${SECRET_NAMES})=)[^&#\\s"']*`, 'gi');
const JSON_SECRET = new RegExp(`("(?:${SECRET_NAMES})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'g');
const BEARER = /(Bearer\s+)[A-Za-z0-9._~+/=-]+/g;

/** Replaces secret query parameters (`apiKey`, `access_token`) in a URL or any text with `***`. */
export function redactUrl(text: string): string {
  return text.replace(QUERY_SECRET, `$1${MASK}`);
}

/** Replaces `"access_token": "…"` and `"apiKey": "…"` values in JSON text with `"***"`. */
export function redactJson(text: string): string {
  return text.replace(JSON_SECRET, `$1"${MASK}"`);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A hex number as a pattern that matches its digits in either case (`2f` and `2F`). */
function hexPattern(value: number, digits: number): string {
  return value
    .toString(16)
    .padStart(digits, '0')
    .replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`);
}

const JSON_SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '/': '\\/', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One character (a code point) of a secret, in every encoding text from elsewhere may use. */
function characterPattern(ch: string): string {
  const ways = [escapeRegExp(ch)];
  ways.push([...Buffer.from(ch)].map((byte) => `%${hexPattern(byte, 2)}`).join(''));
  let escaped = '';
  for (let i = 0; i < ch.length; i++) escaped += `\\\\u${hexPattern(ch.charCodeAt(i), 4)}`;
  ways.push(escaped);
  const short = JSON_SHORT_ESCAPES[ch];
  if (short !== undefined) ways.push(escapeRegExp(short));
  if (ch === ' ') ways.push('\\+');
  return `(?:${ways.join('|')})`;
}

/** A pattern that matches `secret` in any encoding, or a mix of them (see the file's header). */
function secretPattern(secret: string): string {
  let pattern = '';
  for (const ch of secret) pattern += characterPattern(ch);
  return pattern;
}

/**
 * The ways one character of a secret may be written in text from elsewhere, as `characterPattern`
 * matches them: as is, JSON's short escape, `+` for a space (compared exactly); percent-encoded
 * and `\u`-escaped, in lower case (compared in any case).
 */
interface CharacterForms {
  exact: string[];
  anyCase: string[];
}

function formsOf(ch: string): CharacterForms {
  const exact = [ch];
  const short = JSON_SHORT_ESCAPES[ch];
  if (short !== undefined) exact.push(short);
  if (ch === ' ') exact.push('+');
  const percent = [...Buffer.from(ch)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
  let unicode = '';
  for (let i = 0; i < ch.length; i++) unicode += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return { exact, anyCase: [percent, unicode] };
}

/** A secret as the forms of each of its characters, and the longest it can be written. */
interface SecretForms {
  chars: CharacterForms[];
  longest: number;
}

function secretFormsOf(secret: string): SecretForms {
  const chars = [...secret].map(formsOf);
  let longest = 0;
  for (const forms of chars) longest += Math.max(...forms.exact.map((f) => f.length), ...forms.anyCase.map((f) => f.length));
  return { chars, longest };
}

/**
 * Whether the text from `at` to its end is the start of a secret from its `i`-th character on:
 * whole characters in any of their forms, and then possibly part of one (`%2`, `\u00`, half a
 * surrogate pair). The text is cut there, so nothing may follow.
 */
function endsInSecret(text: string, at: number, secret: SecretForms, i: number): boolean {
  if (at === text.length) return true;
  if (i === secret.chars.length) return false;
  const rest = text.length - at;
  const { exact, anyCase } = secret.chars[i];
  for (const form of exact) {
    if (form.length > rest) {
      if (form.startsWith(text.slice(at))) return true;
    } else if (text.startsWith(form, at) && endsInSecret(text, at + form.length, secret, i + 1)) return true;
  }
  for (const form of anyCase) {
    const piece = text.slice(at, at + form.length).toLowerCase();
    if (form.length > rest) {
      if (form.startsWith(piece)) return true;
    } else if (piece === form && endsInSecret(text, at + form.length, secret, i + 1)) return true;
  }
  return false;
}

/** Where the start of one of `secrets`, cut off by the end of `text`, begins (the earliest such place), or -1. */
function secretTailAt(text: string, secrets: readonly SecretForms[]): number {
  let longest = 0;
  for (const secret of secrets) longest = Math.max(longest, secret.longest);
  for (let at = Math.max(0, text.length - longest); at < text.length; at++) {
    for (const secret of secrets) if (endsInSecret(text, at, secret, 0)) return at;
  }
  return -1;
}

/** One pattern for a list of secrets, or `undefined` when it has none. */
function matcherOf(secrets: readonly string[]): RegExp | undefined {
  // Longest first: a secret that contains another is masked whole.
  const patterns = [...new Set(secrets.filter((s) => s.length > 0))].sort((a, b) => b.length - a.length).map(secretPattern);
  return patterns.length === 0 ? undefined : new RegExp(patterns.join('|'), 'g');
}


/**
 * The secrets one client knows: its API key, and every access token it has seen, in new records
 * and in records re-sent from `persistDir`. No cap: a token echoed back long after must never
 * appear raw. Their pattern is built once, and again only when a secret is added.
 */
export class KnownSecrets {
  /** The key first, then the tokens in the order they were seen. */
  readonly list: string[];
  private readonly seen = new Set<string>();
  private pattern: RegExp | undefined;
  private patternFor = -1;
  private readonly forms: SecretForms[] = [];

  constructor(apiKey: string) {
    this.list = [apiKey];
  }

  add(secret: string): void {
    if (this.seen.has(secret)) return;
    this.seen.add(secret);
    this.list.push(secret);
  }

  /** The pattern of every secret known now. */
  matcher(): RegExp | undefined {
    // Stryker disable next-line ConditionalExpression: a cache only; building the pattern again on every call gives the same pattern
    if (this.patternFor !== this.list.length) {
      this.pattern = matcherOf(this.list);
      this.patternFor = this.list.length;
    }
    return this.pattern;
  }

  /** Every secret known now, as the forms of its characters (see `excerpt`); made once per secret. */
  characterForms(): readonly SecretForms[] {
    for (let i = this.forms.length; i < this.list.length; i++) this.forms.push(secretFormsOf(this.list[i]));
    return this.forms;
  }
}

/**
 * Removes every known secret from a piece of text: secret query parameters, JSON secret fields,
 * bearer tokens, and each of `secrets` wherever it appears, in any encoding (raw, percent- or
 * form-encoded, JSON-escaped, or a mix), whatever its length.
 */
// Stryker disable next-line ArrayDeclaration: the mutant's default secret is the text "Stryker was here", which no scrubbed text holds; no default secret is pinned by the tests that pass none
export function scrub(text: string, secrets: readonly string[] | KnownSecrets = []): string {
  const out = redactJson(redactUrl(text)).replace(BEARER, `$1${MASK}`);
  const matcher = secrets instanceof KnownSecrets ? secrets.matcher() : matcherOf(secrets);
  return matcher === undefined ? out : out.replace(matcher, MASK);
}

/** A secret JSON field whose value the text's end cut off (`"access_token":"EAAB…`). */
const JSON_SECRET_CUT = new RegExp(`("(?:${SECRET_NAMES})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*\\\\?$`);

/**
 * At most `maxChars` characters of text from elsewhere (an answer the endpoint echoed), safe to
 * show: every secret is masked in the whole text first (as `scrub` does), then the text is cut,
 * then whatever its end may hold of a secret cut in two is dropped: the start of any of `secrets`
 * in any encoding (down to a lone `%` or `\`), or an unfinished secret JSON field. A secret is
 * thus never shown in part, whether the cut is made here or the transport already cut the body it
 * kept. `…` marks text left out.
 */
// Stryker disable next-line ArrayDeclaration: as for scrub, the mutant only masks the text "Stryker was here"
export function excerpt(text: string, maxChars: number, secrets: readonly string[] | KnownSecrets = []): string {
  const masked = scrub(text, secrets);
  let shown = masked.length > maxChars ? masked.slice(0, maxChars) : masked;
  const forms = secrets instanceof KnownSecrets ? secrets.characterForms() : secrets.filter((s) => s.length > 0).map(secretFormsOf);
  const at = secretTailAt(shown, forms);
  if (at >= 0) shown = shown.slice(0, at);
  const cut = shown.length < masked.length;
  shown = shown.replace(JSON_SECRET_CUT, `$1"${MASK}`);
  return cut ? `${shown}…` : shown;
}

/**
 * A copy of an error that is safe to keep as a `cause`: name, message and code, scrubbed, and
 * nothing else (HTTP libraries' errors carry the request URL, headers and config).
 */
// Stryker disable next-line ArrayDeclaration: as for scrub, the mutant only masks the text "Stryker was here"
export function safeCause(error: unknown, secrets: readonly string[] | KnownSecrets = []): Error {
  const source = error as { name?: unknown; message?: unknown; code?: unknown } | null;
  const message = typeof source?.message === 'string' ? source.message : String(error);
  const safe = new Error(scrub(message, secrets));
  safe.name = typeof source?.name === 'string' ? source.name : 'Error';
  if (typeof source?.code === 'string') (safe as Error & { code?: string }).code = source.code;
  safe.stack = `${safe.name}: ${safe.message}`;
  return safe;
}
