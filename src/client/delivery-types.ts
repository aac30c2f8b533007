/**
 * The shapes the delivery queue takes and gives: a queued record, how a log call settles, and the
 * counters behind `stats()`.
 */
import type { PlatformKind, RecordType } from '../protocol/index.js';
import type { TrackingDeliveryError } from './errors.js';
import type { SavedAt } from './persistence.js';

/** A record was accepted by the endpoint. */
export interface DeliveredResult {
  status: 'delivered';
  /** The endpoint's HTTP status (2xx). */
  httpStatus: number;
  /** Requests made for this record, the successful one included. */
  attempts: number;
}

/** A hook (`ignoreUsers` or `beforeSend`) decided not to send the record, or tracking is off (`enabled: false`). */
export interface SkippedResult {
  status: 'skipped';
  reason: 'ignored-user' | 'dropped-by-before-send' | 'disabled';
}

/** How a log call settles when it does not reject. */
export type TrackResult = DeliveredResult | SkippedResult;

/** A record waiting for delivery. */
export interface QueuedRecord {
  url: string;
  body: string;
  /** Records with the same lane key are delivered in order, one at a time. */
  laneKey: string;
  /** Short description for reports, such as `facebook outgoing` (never content). */
  label: string;
  platform: PlatformKind;
  type: RecordType;
  /** When it was logged: its number in the order the client took records (saved with it, to keep each user's order across restarts). */
  seq: number;
  /** For a record re-sent from `persistDir`: its number in the replay, and when it was first logged. */
  origin?: { index: number; at: SavedAt };
  resolve(result: DeliveredResult): void;
  reject(error: TrackingDeliveryError): void;
}

/** Counters reported by `TrackingClient.stats()` (see `TrackingStats` for what each means). */
export interface DeliveryCounters {
  /** Records taken: each ends up in exactly one of delivered, failed, dropped, persisted, or is still pending. */
  logged: number;
  delivered: number;
  retried: number;
  failed: number;
  dropped: number;
  persisted: number;
}
