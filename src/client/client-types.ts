/**
 * The shapes `TrackingClient` hands its callers: its platform trackers, `stats()`, `close()`'s
 * result and `logEvent`'s options.
 */
import type { Message, MessengerIncoming, MessengerOutgoing, MessengerRequestData, MessengerResponseBody, PlatformKind } from '../protocol/index.js';
import type { TrackResult } from './delivery-queue.js';

/**
 * What `stats()` reports. Each record the client took is counted in `logged` and, once settled, in
 * exactly one of `delivered`, `failed`, `dropped` and `persisted`; until then it is `queued` or
 * `inFlight`. So `delivered + failed + dropped + persisted + queued + inFlight === logged`, but
 * for two moments: while the middleware's deferred tasks wait to run (in `queued`, and in
 * `logged` once they have run), and right after `close()` gave up at its deadline, while requests
 * of given-up records are still on their way (in `failed` or `persisted`, and in `inFlight`).
 */
export interface TrackingStats {
  /**
   * Records the client took: validated and queued, held, or refused for want of room or because
   * the client was closed (records refused as invalid or skipped by a hook are not counted), and
   * records re-sent from `persistDir`.
   */
  logged: number;
  /** Records waiting: queued, backing off before a retry, or held behind their user's saved records (not in flight). */
  queued: number;
  /** Requests in flight now. */
  inFlight: number;
  /** Records the endpoint accepted. */
  delivered: number;
  /** Retries made (attempts after a record's first). */
  retried: number;
  /** Records given up and not saved: refused by the endpoint, unauthorized, out of retries or time, or at the close deadline. */
  failed: number;
  /** Records refused without being tried and not saved: queue full, or logged after `close()`. */
  dropped: number;
  /** Records saved to `persistDir` for a later client to send (instead of being given up or dropped). */
  persisted: number;
}

/** What `close()` reports. */
export interface CloseResult {
  /**
   * Records still pending at the deadline, given up then: with reason `close-deadline` (counted in
   * `stats.failed`), or saved to `persistDir` with reason `persisted` (counted in `stats.persisted`).
   */
  abandoned: number;
  /** Of `abandoned`, the records saved to `persistDir`. */
  abandonedSaved: number;
  /** The counts once closed (see `TrackingStats`; `failed` and `persisted` include the abandoned records). */
  stats: TrackingStats;
}

/** Options of `flush()`. */
export interface FlushOptions {
  /**
   * Longest wait, in ms. Default `Infinity`: as long as the retry caps allow (`maxRetryDurationMs`,
   * 90 s by default, when the endpoint is down). A host that bills by the second (a serverless
   * function) sets it: what is still pending then stays queued for the next call (and with
   * `persistDir`, whatever outlasts the retry budget or `close()` is saved to disk).
   */
  timeoutMs?: number;
}

/**
 * What `flush()` reports about the records pending when it was called: each is counted once, as
 * delivered, given up, saved to `persistDir`, or still pending when `timeoutMs` ran out.
 */
export interface FlushResult {
  /** Records the endpoint accepted. */
  delivered: number;
  /** Records given up (refused by the endpoint, or out of retries or time) and not saved. */
  givenUp: number;
  /** Records saved to `persistDir` for a later client to send. */
  saved: number;
  /** Records still pending at `timeoutMs`: they stay queued and go on being retried. */
  pending: number;
}

/** Log methods of the sms, universal and direct-message platforms (generic message shape). */
export interface GenericTracker {
  /** The platform value sent as `platform`. */
  readonly platform: string;
  /**
   * Logs a message from the user to the bot. Resolves when the endpoint accepted it; rejects at once
   * with `TrackingValidationError` when it breaks the spec (nothing is sent), or later with
   * `TrackingDeliveryError` when it is given up. An ignored promise never becomes an unhandled rejection.
   */
  logIncoming(message: Message): Promise<TrackResult>;
  /**
   * Logs a message from the bot to the user. Settles as `logIncoming` does. Dated with the time it
   * was logged, in `platformJson.timestamp` (where the endpoint reads a message's time), unless it has one there.
   */
  logOutgoing(message: Message): Promise<TrackResult>;
}

/** Log methods of the messenger platform. */
export interface MessengerTracker {
  readonly platform: string;
  /** Logs the webhook payload exactly as the messenger platform delivered it (with an optional intent on each message). Settles as `GenericTracker.logIncoming`. */
  logIncoming(payload: MessengerIncoming): Promise<TrackResult>;
  /**
   * Logs what the bot sent: the request data it posted to the platform (`uri`, `method`, `json`,
   * optionally `qs` and `intent`) and the platform's reply. Settles as `GenericTracker.logIncoming`.
   */
  logOutgoing(requestData: MessengerRequestData & { intent?: MessengerOutgoing['intent'] }, responseBody?: MessengerResponseBody): Promise<TrackResult>;
}

/** Options of `logEvent`. */
export interface LogEventOptions {
  /** The platform to send the event on. Default: messenger for a shareEvent, direct-message for every other type. */
  platform?: PlatformKind;
}
