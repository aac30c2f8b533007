/**
 * Which names carry secrets: one list for the whole package, so the client's log redaction, the
 * middleware's copy of an activity and the endpoint's ingestion agree on what a secret is.
 */

/**
 * Query parameters and body fields of the tracking API that carry a secret: the bot's key
 * (`apiKey`, also met as `api_key`) and the messenger page access token (`access_token`).
 */
export const SECRET_PARAMETERS: readonly string[] = ['apiKey', 'api_key', 'access_token'];

/**
 * Object keys whose values are secrets wherever they appear in data (tokens, secrets, passwords,
 * API keys, credentials, signatures, cookies), matched case-insensitively anywhere in the key.
 */
export const SECRET_KEY = /token|secret|password|passwd|authorization|api[-_]?key|credential|signature|cookie/i;

/**
 * URL query parameters whose values are secrets: the API's own (`SECRET_PARAMETERS`) and those of
 * signed and OAuth URLs (SAS `sig`, `signature`, `code`, `key`, `token`, `secret`, `password`, `auth`),
 * and Direct Line's `t` (the conversation token on the attachment URLs Web Chat uploads produce).
 */
export const SECRET_URL_PARAMETER = new RegExp(
  `^(?:${['sig', 'signature', 'code', 'key', 'token', 'secret', 'password', 'auth', 't', ...SECRET_PARAMETERS].join('|')})$`,
  'i',
);
