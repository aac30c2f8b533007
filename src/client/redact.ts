/**
 * Secret redaction: the API key and messenger access tokens never reach a log line or an error.
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

/**
 * The forms a secret takes in text that came back from elsewhere: as is, percent-encoded (upper
 * and lower case hex), form-encoded (spaces as `+`), and JSON-escaped.
 */
export function secretForms(secret: string): string[] {
  const percent = encodeURIComponent(secret);
  const forms = new Set([secret, percent, percent.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()), percent.replace(/%20/g, '+'), JSON.stringify(secret).slice(1, -1)]);
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * Removes every known secret from a piece of text: secret query parameters, JSON secret fields,
 * bearer tokens, and each value in `secrets` wherever it appears, in any of its forms
 * (`secretForms`: raw, percent-, form- or JSON-encoded).
 */
export function scrub(text: string, secrets: readonly string[] = []): string {
  let out = redactJson(redactUrl(text)).replace(BEARER, `$1${MASK}`);
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    for (const form of secretForms(secret)) if (out.includes(form)) out = out.split(form).join(MASK);
  }
  return out;
}

/**
 * A copy of an error that is safe to keep as a `cause`: name, message and code, scrubbed, and
 * nothing else (HTTP libraries' errors carry the request URL, headers and config).
 */
export function safeCause(error: unknown, secrets: readonly string[] = []): Error {
  const source = error as { name?: unknown; message?: unknown; code?: unknown } | null;
  const message = typeof source?.message === 'string' ? source.message : String(error);
  const safe = new Error(scrub(message, secrets));
  safe.name = typeof source?.name === 'string' ? source.name : 'Error';
  if (typeof source?.code === 'string') (safe as Error & { code?: string }).code = source.code;
  safe.stack = `${safe.name}: ${safe.message}`;
  return safe;
}
