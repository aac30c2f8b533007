/**
 * The shapes `TrackingClient` hands its callers: its platform trackers, `stats()`, `close()`'s
 * result and `logEvent`'s options.
 */
import type { Message, MessengerIncoming, MessengerOutgoing, MessengerRequestData, MessengerResponseBody, PlatformKind } from '../protocol/index.js';
import type { TrackResult } from './delivery-queue.js';

/** What `stats()` reports. */
export interface TrackingStats {
  /** Records waiting: queued or backing off before a retry (not in flight). */
  queued: number;
  /** Requests in flight now. */
  inFlight: number;
  /** Records the endpoint accepted. */
  delivered: number;
  /** Retries made (attempts after a record's first). */
  retried: number;
  /** Records given up after being tried (refused, unauthorized, out of retries or time, or at the close deadline). */
  failed: number;
  /** Records refused without being tried: queue full, or logged after `close()`. */
  dropped: number;
  /** Records saved to `persistDir` for a later client to send. */
  persisted: number;
}

/** What `close()` reports. */
export interface CloseResult {
  /** Records still pending at the deadline, now given up with reason `close-deadline`. */
  abandoned: number;
  stats: TrackingStats;
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
  /** Logs a message from the bot to the user. Settles as `logIncoming` does. */
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
