/**
 * The shapes the delivery queue takes and gives: a queued record, how a log call settles, and the
 * counters behind `stats()`.
 */
import { randomUUID } from 'node:crypto';
import type { PlatformKind, RecordType } from '../protocol/index.js';
import type { TrackingDeliveryError } from './errors.js';
import { bodyText, type BodyHolder } from './bodies.js';
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

/** Where a kind of record goes and what reports call it: one object per platform kind and record type, shared by every record of that kind. */
export interface RecordTarget {
  /** The full tracking URL, key included: never log it unredacted. */
  url: string;
  /** Short description for reports, such as `facebook outgoing` (never content). */
  label: string;
  platform: PlatformKind;
  type: RecordType;
}

/** How a caller hears how its record ended (`track`); records logged with `trackAndForget` have none. */
export interface RecordWaiter {
  resolve(result: DeliveredResult): void;
  reject(error: TrackingDeliveryError): void;
}

/**
 * A record's idempotency key: the one it was saved with, when it is re-sent from `persistDir`,
 * else a new random UUID (made once, when the record is logged).
 */
export function recordKey(origin: { readonly key: string } | undefined): string {
  return origin?.key ?? randomUUID();
}

/**
 * A record waiting for delivery, held compactly: its serialized body, its user's lane, a few
 * numbers, and references to what it shares with every record of its kind (`target`). Nothing of
 * the turn or the logged object is kept. One object per record: it is also its entry in the
 * delivery queue. Once queued for a transport that sends bytes (the default one), its body is
 * held as UTF-8 outside the JavaScript heap, known by its place in a shared slab (bodies.ts).
 */
export class QueuedRecord implements BodyHolder {
  /** Order of arrival in the delivery queue (`flush` waits for the records before its call). */
  queueSeq = 0;
  attempts = 0;
  /** When the first and the current attempt were sent (`performance.now()`), 0 before. */
  firstAttemptAt = 0;
  sentAt = 0;
  lastStatus: number | undefined = undefined;
  /** Delivered or given up (its promise, if any, is settled). */
  settled = false;
  /** Whether the window was full or records were waiting when the current attempt was sent. */
  sentSaturated = false;
  /** Where the body's bytes are, once queued for a transport that sends bytes (bodies.ts). */
  slab: BodyHolder['slab'] = undefined;
  offset = 0;
  length = 0;

  constructor(
    readonly target: RecordTarget,
    /** The JSON body: its text; once queued for a transport that sends bytes, its bytes are in `slab` (or in a buffer of its own, here). */
    public body: string | Buffer | undefined,
    /** Records with the same lane key are delivered in order, one at a time. */
    readonly laneKey: string,
    /** When it was logged: its number in the order the client took records (saved with it, to keep each user's order across restarts). */
    readonly seq: number,
    /** For a record re-sent from `persistDir`: its number in the replay, when it was first logged, and its idempotency key. */
    readonly origin: { index: number; at: SavedAt; key: string } | undefined,
    /** The caller's promise, when it asked for one. */
    readonly waiter: RecordWaiter | undefined,
    /**
     * Its idempotency key, sent as the `Idempotency-Key` header of every attempt and saved with it
     * to `persistDir`, so that the endpoint stores it once however often it is sent: a new random
     * UUID when it is logged, the saved one when it is re-sent from `persistDir`.
     */
    readonly key: string = recordKey(origin),
  ) {}

  /** The JSON body as text. */
  get text(): string {
    return bodyText(this);
  }

  get url(): string {
    return this.target.url;
  }

  get label(): string {
    return this.target.label;
  }

  get platform(): PlatformKind {
    return this.target.platform;
  }

  get type(): RecordType {
    return this.target.type;
  }

  /** Settles the caller's promise, if any, as delivered (the result is only made when someone waits for it). */
  delivered(httpStatus: number): void {
    this.waiter?.resolve({ status: 'delivered', httpStatus, attempts: this.attempts });
  }

  /** Rejects the caller's promise, if any. */
  reject(error: TrackingDeliveryError): void {
    this.waiter?.reject(error);
  }
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
