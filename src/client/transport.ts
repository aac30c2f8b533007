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
  /**
   * Headers to send; always includes `content-type: application/json`, and from the client,
   * `idempotency-key`: the record's key, the same on every attempt of the record (and after a
   * restart, for a record re-sent from `persistDir`), so that the endpoint stores it once.
   */
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

/**
 * The key of a transport's way to send without a promise per request, whose body may be bytes:
 * `done` is called once, on a later tick than the call (after any socket of the answered request
 * is free again), with the response or the error; a failure to start may throw. The default transport has it, and
 * the delivery queue uses it when present (any other transport is sent to through `send`).
 * Internal: not part of the public API.
 */
// Stryker disable next-line StringLiteral: a symbol's description is never read (it is only looked up by identity)
export const SEND_DIRECT: unique symbol = Symbol('send without a promise');

/**
 * A request sent through `SEND_DIRECT`: its body may also be the JSON's UTF-8 bytes, and its
 * idempotency key comes apart from `headers` (which are then the same object for every request),
 * sent as an `Idempotency-Key` header after them (internal).
 */
export interface DirectRequest extends Omit<TransportRequest, 'body'> {
  body: string | Buffer;
  idempotencyKey?: string;
}

/** A transport with `SEND_DIRECT` (internal). */
export interface DirectTransport extends Transport {
  [SEND_DIRECT](request: DirectRequest, done: (error: Error | undefined, response: TransportResponse | undefined) => void): void;
}

/**
 * The key of a transport's way to keep the process alive for the requests in flight now (internal):
 * the default transport's sockets do not keep it alive on their own, so that a process with
 * nothing else to do than wait for them reaches `beforeExit`, where the client's exit guard
 * decides how long to wait (see exit-guard.ts). Those sockets let go again once their requests
 * are answered.
 */
// Stryker disable next-line StringLiteral: a symbol's description is never read (it is only looked up by identity)
export const HOLD_IN_FLIGHT: unique symbol = Symbol('keep the process alive for requests in flight');

/** A transport with `HOLD_IN_FLIGHT` (internal). */
export interface HoldingTransport extends Transport {
  [HOLD_IN_FLIGHT](): void;
}
