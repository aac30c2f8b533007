/**
 * Secret redaction: the API key and messenger access tokens never reach a log line or an error.
 */

const MASK = '***';
const QUERY_SECRET = /([?&](?:apiKey|api_key|access_token)=)[^&#\s"']*/gi;
const JSON_SECRET = /("(?:access_token|apiKey)"\s*:\s*)"(?:[^"\\]|\\.)*"/g;
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
 * Removes every known secret from a piece of text: secret query parameters, JSON secret fields,
 * bearer tokens, and each literal value in `secrets` wherever it appears.
 */
export function scrub(text: string, secrets: readonly string[] = []): string {
  let out = redactJson(redactUrl(text)).replace(BEARER, `$1${MASK}`);
  for (const secret of secrets) {
    if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join(MASK);
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
