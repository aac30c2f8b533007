/**
 * What a failed request means for the person reading the warning: which endpoint (its address
 * without the key), what went wrong in words, and what to check. Also which network failures a
 * retry cannot fix (TLS and HTTP protocol errors: the same request meets the same wall).
 */

/** The endpoint a tracking URL points at, without its query (where the key is): `https://host/track`. */
export function endpointOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return 'the tracking endpoint';
  }
}

/** Error codes of TLS and HTTP protocol failures: the endpoint speaks another protocol (http vs https), or a proxy or certificate is in the way. */
const PROTOCOL_ERROR = /^(EPROTO|ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET|VERIFY)_|HPE_)/;

/** The code of a network error (`ECONNREFUSED`, `EPROTO`, …), if it has one. */
export function errorCode(error: Error | undefined): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True for a network failure a retry would not fix: a TLS or HTTP protocol error. */
export function isPermanentNetworkError(error: Error | undefined): boolean {
  const code = errorCode(error);
  return code !== undefined && PROTOCOL_ERROR.test(code);
}

/** What to do about a failed attempt at `url`, in one sentence (never the key). */
export function hintFor(url: string, status: number | undefined, error: Error | undefined): string {
  const endpoint = endpointOf(url);
  if (status === 401 || status === 403) return `Check TRACKING_API_KEY (or the apiKey option): ${endpoint} does not accept it.`;
  if (status === 404) return `${endpoint} does not exist: check the path in TRACKING_BASE_URL.`;
  if (status === 429) return `${endpoint} is rate-limiting this bot.`;
  if (status !== undefined && status >= 500) return `${endpoint} is failing (HTTP ${status}); it is retried while it recovers.`;
  const code = errorCode(error);
  if (code === 'ECONNREFUSED') return `Nothing is listening at ${endpoint}: is the tracking endpoint running at that address (TRACKING_BASE_URL)?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    let host = endpoint;
    try {
      host = new URL(url).hostname;
    } catch {
      // keep the endpoint
    }
    return `The host name ${host} does not resolve: check TRACKING_BASE_URL.`;
  }
  if (code !== undefined && PROTOCOL_ERROR.test(code)) return `TLS or protocol error talking to ${endpoint} (${code}): check http:// vs https:// in TRACKING_BASE_URL, the certificate, and any proxy in between.`;
  if (code === 'ETIMEDOUT' || error?.name === 'TimeoutError' || /timed? ?out/i.test(error?.message ?? '')) return `${endpoint} did not answer in time (requestTimeoutMs).`;
  if (code === 'ECONNRESET' || code === 'EPIPE') return `${endpoint} closed the connection.`;
  return `The request to ${endpoint} failed.`;
}
