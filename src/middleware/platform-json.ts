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
  if (!/^https?:\/\//i.test(value)) return value;
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

function safeString(value: string): string {
  const text = value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…[truncated ${value.length - MAX_STRING} chars]` : value;
  return redactUrlSecrets(text);
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
  if (key.length < 2 || key[0] !== '_') return key;
  const proto: unknown = Object.getPrototypeOf(source);
  if (proto === Object.prototype || proto === null) return key;
  const name = key.slice(1);
  for (let p = proto as object | null; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p) as object | null) {
    const descriptor = Object.getOwnPropertyDescriptor(p, name);
    if (descriptor !== undefined) return typeof descriptor.get === 'function' && !Object.prototype.hasOwnProperty.call(source, name) ? name : key;
  }
  return key;
}

function copy(value: unknown, ancestors: Set<object>, depth: number): unknown {
  switch (typeof value) {
    case 'string':
      return safeString(value);
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
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `[binary ${value.byteLength} bytes]`;
  if (ancestors.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Truncated]';
  ancestors.add(value);
  try {
    if (Array.isArray(value) || value instanceof Set) {
      return Array.from(value as Iterable<unknown>, (item) => copy(item, ancestors, depth + 1) ?? null);
    }
    const source = value instanceof Map ? Object.fromEntries(value) : value instanceof Error ? { name: value.name, message: value.message } : value;
    const toJSON = (source as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return copy(toJSON.call(source), ancestors, depth + 1);
    const out: Record<string, unknown> = {};
    for (const own of Object.keys(source)) {
      const key = publicName(source, own);
      if (key === '__proto__' || SECRET_KEY.test(key)) continue;
      let item: unknown;
      try {
        item = (source as Record<string, unknown>)[own];
      } catch {
        continue; // a getter that throws
      }
      const safe = copy(item, ancestors, depth + 1);
      if (safe !== undefined) out[key] = safe;
    }
    return out;
  } finally {
    ancestors.delete(value);
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
    return copy(value, new Set(), 0);
  } catch {
    return undefined;
  }
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
