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
  // Stryker disable next-line ConditionalExpression: test(undefined) tests the text "undefined", which no protocol code pattern matches
  return code !== undefined && PROTOCOL_ERROR.test(code);
}

/** The host name of a URL, or `fallback` when it cannot be read. */
function hostOf(url: string, fallback: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return fallback;
  }
}

/**
 * What to do about a failed attempt at `url`, in one sentence or two (never the key). `proxyNote`
 * (see `proxyNote`) is added to network failures and to a proxy's 407.
 */
export function hintFor(url: string, status: number | undefined, error: Error | undefined, proxyNote?: string): string {
  const endpoint = endpointOf(url);
  const withProxyNote = (hint: string) => (proxyNote === undefined ? hint : `${hint} ${proxyNote}`);
  if (status === 401 || status === 403) return `Check TRACKING_API_KEY (or the apiKey option): ${endpoint} does not accept it.`;
  if (status === 404) return `${endpoint} does not exist: check the path in TRACKING_BASE_URL.`;
  if (status === 407) {
    return withProxyNote(
      `A proxy between this process and ${endpoint} asks for credentials (HTTP 407): pass a transport that authenticates with it, such as createAxiosTransport({ axios }) with an axios instance whose proxy option carries auth.`,
    );
  }
  if (status === 429) {
    return `${endpoint} is rate-limiting this bot (HTTP 429): the client waits as long as its Retry-After says (up to maxRetryAfterMs) and sends fewer requests at once. If it keeps happening, ask the endpoint's operator for a higher limit, or lower maxConcurrency.`;
  }
  if ((status ?? 0) >= 500) return `${endpoint} is failing (HTTP ${status}); it is retried while it recovers.`;
  const code = errorCode(error);
  if (code === 'ECONNREFUSED') return withProxyNote(`Nothing is listening at ${endpoint}: is the tracking endpoint running at that address (TRACKING_BASE_URL)?`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return withProxyNote(`The host name ${hostOf(url, endpoint)} does not resolve: check TRACKING_BASE_URL.`);
  if (isPermanentNetworkError(error)) return withProxyNote(`TLS or protocol error talking to ${endpoint} (${code}): check http:// vs https:// in TRACKING_BASE_URL, the certificate, and any proxy in between.`);
  if (code === 'ETIMEDOUT' || (error !== undefined && (error.name === 'TimeoutError' || /timed? ?out/i.test(error.message)))) return withProxyNote(`${endpoint} did not answer in time (requestTimeoutMs).`);
  if (code === 'ECONNRESET' || code === 'EPIPE') return withProxyNote(`${endpoint} closed the connection.`);
  return withProxyNote(`The request to ${endpoint} failed.`);
}

/** The port of a NO_PROXY entry (`host:port`). */
// Stryker disable next-line Regex: without the anchor, only an entry with a colon and digits inside a name would differ, and no host name has one
const NO_PROXY_PORT = /:\d+$/;

/** Whether `host` is listed in a NO_PROXY value (`host`, `.domain`, `*.domain` or `*`). */
function bypassesProxy(host: string, noProxy: string | undefined): boolean {
  if (noProxy === undefined) return false;
  return noProxy
    .split(/[\s,]/)
    .map((entry) => entry.toLowerCase().replace(NO_PROXY_PORT, ''))
    // An empty entry (a trailing comma) is none: it would match a host written with a final dot.
    .filter((entry) => entry.length > 0)
    .some((entry) => {
      if (entry === '*') return true;
      const domain = entry.replace(/^\*?\./, '');
      return host === domain || host.endsWith(`.${domain}`);
    });
}

/**
 * A note for failures when the environment names a proxy for the endpoint's scheme (`HTTPS_PROXY`,
 * `HTTP_PROXY`, either case) and the client uses its default transport: Node's `http`/`https`
 * modules do not read those variables, so requests go to the endpoint directly. `undefined` when
 * no proxy is set, the host is in `NO_PROXY`, or the user passed a transport of their own.
 */
export function proxyNote(baseUrl: string, env: NodeJS.ProcessEnv, defaultTransport: boolean): string | undefined {
  if (!defaultTransport) return undefined;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  const names = url.protocol === 'https:' ? ['HTTPS_PROXY', 'https_proxy'] : ['HTTP_PROXY', 'http_proxy'];
  const name = names.find((n) => (env[n] ?? '').trim() !== '');
  if (name === undefined) return undefined;
  const host = url.hostname.replace(/[[\]]/g, '').toLowerCase();
  if (bypassesProxy(host, env.NO_PROXY ?? env.no_proxy)) return undefined;
  return `Note: ${name} is set, but the default transport (node:http) does not use it and connects to ${host} directly. If this process can only reach ${host} through that proxy, pass a transport that uses it: createAxiosTransport() does (axios reads HTTP_PROXY, HTTPS_PROXY and NO_PROXY).`;
}
