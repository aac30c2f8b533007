/**
 * The transport interface: one POST in, a status and a body out. Implement it to send records
 * with any HTTP client.
 */

/** One tracking request. */
export interface TransportRequest {
  /** The full tracking URL, including the API key. Never log it unredacted. */
  url: string;
  /** The JSON body, already serialized. */
  body: string;
  /** Headers to send; always includes `content-type: application/json`. */
  headers: Record<string, string>;
  /** Abort the request after this many milliseconds, rejecting with an error whose `code` is `ETIMEDOUT`. */
  timeoutMs: number;
}

/** The endpoint's answer. */
export interface TransportResponse {
  status: number;
  /** The `Retry-After` header, if any, as sent. */
  retryAfter?: string;
  /** The start of the response body (transports may truncate it); used in error reports only. */
  body?: string;
}

/**
 * Sends tracking requests. `send` resolves with any HTTP status (4xx and 5xx included) and
 * rejects only when no response came back (network error, timeout); the client decides what
 * to retry. `close` frees sockets; it is called once, by `TrackingClient.close()`.
 */
export interface Transport {
  send(request: TransportRequest): Promise<TransportResponse>;
  close?(): void | Promise<void>;
}

/** How much of a response body a transport keeps for error reports. */
export const MAX_RESPONSE_BODY_CHARS = 2048;
