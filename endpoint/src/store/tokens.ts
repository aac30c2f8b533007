/**
 * Messenger page access tokens (`qs.access_token` of an outgoing record, and in its `uri`): the
 * endpoint has no use for them and keeping them would be a liability, so they are replaced by a
 * fixed marker before a record is stored, and before an older version's data is imported.
 */
import { isPlainObject } from 'botbuilder-conversation-analytics/protocol';

/** What the endpoint stores instead of a messenger page access token: it has no use for the token, and keeping it would be a liability. */
export const ACCESS_TOKEN_MARKER = '[access token removed by the endpoint]';

/**
 * Replaces a messenger outgoing record's page access token (`qs.access_token`, and an
 * `access_token` in its `uri`'s query) with `ACCESS_TOKEN_MARKER`, in place. Returns whether it changed anything.
 */
export function stripAccessTokens(body: unknown): boolean {
  if (!isPlainObject(body)) return false;
  let changed = false;
  const qs = body.qs;
  if (isPlainObject(qs) && typeof qs.access_token === 'string' && qs.access_token !== ACCESS_TOKEN_MARKER) {
    qs.access_token = ACCESS_TOKEN_MARKER;
    changed = true;
  }
  if (typeof body.uri === 'string' && /[?&]access_token=/i.test(body.uri)) {
    body.uri = body.uri.replace(/([?&]access_token=)[^&#]*/gi, `$1${encodeURIComponent(ACCESS_TOKEN_MARKER)}`);
    changed = true;
  }
  return changed;
}
