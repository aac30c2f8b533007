/**
 * A JSON-safe, secret-free copy of an activity (or any value) for a record's `platformJson`.
 * The original is never touched.
 */
import { isPlainObject, SECRET_KEY, SECRET_URL_PARAMETER as SECRET_PARAM } from '../protocol/index.js';

const MAX_DEPTH = 24;
const MAX_STRING = 32 * 1024;

/**
 * Masks secrets in an http(s) URL: user name and password are removed, and query parameters
 * that carry secrets (`sig`, `code`, `key`, `token`, `access_token`, …) get the value `***`.
 * Any other string is returned as it is.
 */
export function redactUrlSecrets(value: string): string {
  if (!isHttpUrl(value)) return value;
  // Only an `@` can bring a user name or password, and only a `?` query parameters: a URL with
  // neither has nothing to mask, and is not parsed (most URLs in activities, the serviceUrl first).
  // Stryker disable next-line ConditionalExpression,StringLiteral,UnaryOperator: a fast path; parsed, such a URL comes out unchanged
  if (value.indexOf('@') === -1 && value.indexOf('?') === -1) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  let changed = false;
  if (url.username !== '' || url.password !== '') {
    url.username = '';
    url.password = '';
    changed = true;
  }
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(name) || SECRET_KEY.test(name)) {
      url.searchParams.set(name, '***');
      changed = true;
    }
  }
  return changed ? url.toString() : value;
}

const HTTP_URL = /^https?:\/\//i;

/** Starts with `http://` or `https://`, in any case (the first letter is checked before the pattern runs). */
function isHttpUrl(value: string): boolean {
  const first = value.charCodeAt(0);
  // Stryker disable next-line ConditionalExpression: a fast path; the pattern checks the first letter too
  return (first === 104 || first === 72) && HTTP_URL.test(value); // h, H
}

function safeString(value: string): string {
  const text = value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…[truncated ${value.length - MAX_STRING} chars]` : value;
  return redactUrlSecrets(text);
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * `date.toISOString()` of a valid date, computed in JavaScript for the years 1970 to 9999 (an
 * activity's timestamps), which is several times faster than the built-in; other years use the
 * built-in. The same text either way.
 */
export function isoString(date: Date): string {
  const ms = date.getTime();
  // Stryker disable next-line ConditionalExpression,EqualityOperator: the built-in writes the same text; this range is only where the fast path holds
  if (!(ms >= 0 && ms < 253402300800000)) return date.toISOString(); // 10000-01-01T00:00:00Z
  const days = Math.floor(ms / 86400000);
  let rest = ms - days * 86400000;
  const millis = rest % 1000;
  rest = (rest - millis) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  // The civil date of a day count (days since 1970-01-01), in the proleptic Gregorian calendar.
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${pad2(month)}-${pad2(day)}T${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${pad3(millis)}Z`;
}

/**
 * The name a field is known by in JSON. A class may keep a field private behind a getter (the
 * Agents SDK's `Activity` keeps `channelId` in `_channelId`): for an own key `_name` of a class
 * instance whose prototype has a getter `name`, that is `name`. Its value is the private field's,
 * not the getter's: the Agents SDK's getter answers `msteams:COPILOT` for a Teams activity with a
 * `ProductInfo` entity, while the field holds `msteams`, what the channel sent and what the SDK's
 * own JSON (`toJsonString`, its connector client) writes. Otherwise the key itself.
 */
function publicName(source: object, key: string): string {
  if (key.charCodeAt(0) !== 95) return key; // _
  const name = key.slice(1);
  // Called for class instances only (a plain object's keys are its JSON names).
  for (let p = Object.getPrototypeOf(source) as object | null; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p) as object | null) {
    const descriptor = Object.getOwnPropertyDescriptor(p, name);
    if (descriptor !== undefined) return typeof descriptor.get === 'function' && !Object.prototype.hasOwnProperty.call(source, name) ? name : key;
  }
  return key;
}

/**
 * The copy of one value. `ancestors` holds the objects being copied above it (a short stack:
 * nesting is cut at MAX_DEPTH), so a cycle is caught and an object shared by two branches is not.
 */
function copy(value: unknown, ancestors: object[], depth: number): unknown {
  switch (typeof value) {
    case 'string':
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a fast path; safeString leaves a short string that is not a URL as it is
      return value.length > MAX_STRING || isHttpUrl(value) ? safeString(value) : value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      return value;
    case 'bigint':
      return value.toString();
    case 'object':
      break;
    default:
      return undefined; // functions, symbols, undefined
  }
  if (value === null) return null;
  const proto: unknown = Object.getPrototypeOf(value);
  // A plain object (most of an activity) is none of the special kinds below, and its keys are its
  // JSON names: a fast path, the checks it skips all fail for a plain object.
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a fast path (above)
  const plain = proto === Object.prototype || proto === null;
  // Stryker disable next-line ConditionalExpression: a fast path (above)
  if (!plain) {
    // Stryker disable next-line ConditionalExpression: a fast path; a Date's own toJSON, used below, writes the same text (null when invalid)
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : isoString(value);
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `[binary ${value.byteLength} bytes]`;
  }
  if (ancestors.includes(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Truncated]';
  ancestors.push(value);
  try {
    if (!plain && (Array.isArray(value) || value instanceof Set)) {
      return Array.from(value as Iterable<unknown>, (item) => copy(item, ancestors, depth + 1) ?? null);
    }
    const source = plain ? value : value instanceof Map ? Object.fromEntries(value) : value instanceof Error ? { name: value.name, message: value.message } : value;
    const toJSON = (source as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return copy(toJSON.call(source), ancestors, depth + 1);
    const out: Record<string, unknown> = {};
    for (const own of Object.keys(source)) {
      const key = plain ? own : publicName(source, own);
      if (key === '__proto__' || SECRET_KEY.test(key)) continue;
      let item: unknown; // left undefined, so out of the copy, by a getter that throws
      try {
        item = (source as Record<string, unknown>)[own];
      } catch { /* left out */ }
      const safe = copy(item, ancestors, depth + 1);
      if (safe !== undefined) out[key] = safe;
    }
    return out;
  } finally {
    ancestors.pop();
  }
}

/**
 * A copy of `value` that `JSON.stringify` always accepts and that holds no secret: functions,
 * symbols and `undefined` are left out; cycles become `"[Circular]"`; `Date`s become ISO strings;
 * binary data a short marker; strings over 32 KiB are cut; keys that name a secret (`token`,
 * `secret`, `password`, `authorization`, `apiKey`, `credential`, `signature`, `cookie`, in any
 * case or inside a longer name) are dropped; and secret parameters in URLs are masked. Never throws.
 */
export function jsonSafe(value: unknown): unknown {
  try {
    // Stryker disable next-line ArrayDeclaration: only objects are looked up among the ancestors
    return copy(value, [], 0);
  } catch {
    // A value that cannot be read at all (a revoked Proxy) has no copy.
  }
  return undefined;
}

/** `jsonSafe` for an object: the copy when it is an object, otherwise `undefined`. */
export function jsonSafeObject(value: unknown): Record<string, unknown> | undefined {
  const safe = jsonSafe(value);
  return isPlainObject(safe) ? safe : undefined;
}

/**
 * An activity as the channel sent it (or as the bot sent it to the channel), JSON-safe and without
 * secrets (see `jsonSafe`), for a record's `platformJson`. Undoes what the Agents SDK changes in
 * memory: `channelId` is the sent value (never its composite `channel:subChannel` getter), and
 * `relatesTo.agent` is `relatesTo.bot` again, the name on the wire. `undefined` when the activity
 * is not an object. Never throws.
 */
export function activityJson(activity: unknown): Record<string, unknown> | undefined {
  const json = jsonSafeObject(activity);
  const relatesTo = json?.relatesTo;
  if (isPlainObject(relatesTo) && relatesTo.agent !== undefined && relatesTo.bot === undefined) {
    const { agent, ...rest } = relatesTo;
    json!.relatesTo = { ...rest, bot: agent };
  }
  return json;
}
