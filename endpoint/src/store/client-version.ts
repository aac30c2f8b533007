/** Which versions of the tracking API's clients the endpoint recognises besides the spec's own. */
import { isApiVersion } from 'botbuilder-conversation-analytics/protocol';

/**
 * A version as real clients of this API write it, `MAJOR.MINOR.PATCH-SOURCE`: dashbot's npm client
 * sends its package version and `npm` (`12.1.0-npm`), its other SDKs `-python`, `-rest`… The spec
 * lists only `11.1.0-rest` and `10.1.1-rest`.
 */
const CLIENT_VERSION = /^\d{1,6}\.\d{1,6}\.\d{1,6}-[A-Za-z][A-Za-z0-9]{0,19}$/;

/** `v` is in the form of a client's version (`12.1.0-npm`) and is not one of the spec's own. */
export function isClientVersion(v: string): boolean {
  return !isApiVersion(v) && CLIENT_VERSION.test(v);
}
