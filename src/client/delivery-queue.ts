/**
 * The delivery queue: bounded, one lane per user so each user's records go out in the order
 * they were logged (lanes.ts), lanes served round-robin within a window of requests in flight that
 * follows the endpoint (concurrency.ts) up to a cap; here, each attempt's outcome: delivered,
 * retried with backoff, or given up (and offered to disk first).
 *
 * Process lifetime: an idle queue holds no timer and no socket. Requests in flight keep the
 * process alive (their sockets); backoff timers do not: when a process has nothing else to do
 * while records wait to be retried, the client closes itself within `closeTimeoutMs` (see
 * exit-guard.ts), so an awaited log call still settles and a short script still exits.
 */
import { TrackingDeliveryError, type DeliveryFailureReason } from './errors.js';
import { ConcurrencyWindow } from './concurrency.js';
import { endpointOf, errorCode, hintFor, isPermanentNetworkError } from './diagnose.js';
import { Lanes, type Entry, type Lane } from './lanes.js';
import { classifyStatus, nextDelay, type RetrySettings } from './retry.js';
import type { DeliveryCounters, QueuedRecord } from './delivery-types.js';
import type { Transport, TransportResponse } from './transport.js';

export type { DeliveredResult, DeliveryCounters, QueuedRecord, SkippedResult, TrackResult } from './delivery-types.js';

export interface DeliverySettings extends RetrySettings {
  maxQueueSize: number;
  /** The most requests in flight; the window adapts below it. */
  maxConcurrency: number;
  requestTimeoutMs: number;
}

export interface DeliveryHooks {
  /** Removes secrets from text that came from outside (response bodies, network error messages). */
  scrub(text: string): string;
  /** Makes an error safe to keep as a cause (no URL, config or secrets). */
  safeCause(error: Error): Error;
  /** Called for each record given up, after its promise is rejected. */
  onGiveUp(error: TrackingDeliveryError, record: QueuedRecord): void;
  /**
   * Offered each record about to be given up for a reason that a later process could overcome
   * (an outage, the close deadline). Returns true when it saved the record to disk.
   */
  persist?(record: QueuedRecord): boolean;
  /** Called after each attempt, for debug logging. */
  onAttempt?(record: QueuedRecord, outcome: { status?: number; error?: Error; attempt: number; delayMs?: number }): void;
  /** Added to the hint of a network failure: a proxy the transport does not use (see `proxyNote`). */
  proxyNote?: string;
}

/** What `abandon` did: records given up, and of them, those saved to disk. */
export interface Abandoned {
  abandoned: number;
  saved: number;
}

interface FlushWaiter {
  seq: number;
  remaining: number;
  resolve(): void;
}

const HEADERS = Object.freeze({ 'content-type': 'application/json' });
const PERSISTABLE: ReadonlySet<DeliveryFailureReason> = new Set(['retries-exhausted', 'retry-budget-exceeded', 'close-deadline']);

export class DeliveryQueue {
  private readonly lanes = new Lanes();
  private readonly timers = new Set<NodeJS.Timeout>();
  private flushWaiters: FlushWaiter[] = [];
  private pending = 0;
  private inFlight = 0;
  private seq = 0;
  private pumpScheduled = false;
  private readonly window: ConcurrencyWindow;
  /** The most requests in flight at once so far. */
  peakInFlight = 0;
  readonly counters: DeliveryCounters = { logged: 0, delivered: 0, retried: 0, failed: 0, dropped: 0, persisted: 0 };

  constructor(
    private readonly transport: Transport,
    private readonly settings: DeliverySettings,
    private readonly hooks: DeliveryHooks,
  ) {
    this.window = new ConcurrencyWindow(settings.maxConcurrency);
  }

  /** Requests the window lets be in flight now. */
  get concurrencyLimit(): number {
    return this.window.limit;
  }

  /** Records accepted and not yet settled, in flight and backing off included. */
  get size(): number {
    return this.pending;
  }

  get inFlightCount(): number {
    return this.inFlight;
  }

  /** True when `enqueue` would refuse a record: `maxQueueSize` records are pending. */
  get isFull(): boolean {
    return this.pending >= this.settings.maxQueueSize;
  }

  /**
   * Takes a record. Returns false (and the caller rejects it) when the queue is full.
   * Sending starts on the next turn of the event loop, never inside the caller's call.
   */
  enqueue(record: QueuedRecord): boolean {
    if (this.isFull) return false;
    this.pending++;
    const entry: Entry = { record, seq: ++this.seq, attempts: 0, firstAttemptAt: 0, sentAt: 0, sentSaturated: false, settled: false, counted: false };
    if (this.lanes.add(record.laneKey, entry)) this.schedulePump();
    return true;
  }

  /** Resolves once every record accepted before this call is delivered or given up. */
  flush(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.flushWaiters.push({ seq: this.seq, remaining: this.pending, resolve });
    });
  }

  /**
   * Gives up every unsettled record with `reason` (used by `close()` at its deadline), each with
   * the message `messageFor` makes for it, and cancels backoff timers. Results that arrive later
   * for in-flight records are ignored.
   */
  abandon(reason: DeliveryFailureReason, messageFor: (record: QueuedRecord, attempts: number, lastStatus: number | undefined) => string): Abandoned {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const persistedBefore = this.counters.persisted;
    let abandoned = 0;
    for (const entry of this.lanes.drain()) {
      if (entry.settled) continue;
      abandoned++;
      this.giveUp(entry, reason, messageFor(entry.record, entry.attempts, entry.lastStatus));
    }
    return { abandoned, saved: this.counters.persisted - persistedBefore };
  }

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    const limit = this.window.limit;
    while (this.inFlight < limit) {
      const lane = this.lanes.takeReady();
      if (lane === undefined) break;
      this.attempt(lane, lane.entries[lane.head], this.inFlight + 1 >= limit || this.lanes.hasReady());
    }
  }

  private attempt(lane: Lane, entry: Entry, saturated: boolean): void {
    this.inFlight++;
    if (this.inFlight > this.peakInFlight) this.peakInFlight = this.inFlight;
    entry.attempts++;
    entry.sentAt = performance.now();
    entry.sentSaturated = saturated;
    if (entry.attempts === 1) entry.firstAttemptAt = entry.sentAt;
    const { record } = entry;
    let sent: Promise<TransportResponse>;
    try {
      sent = this.transport.send({ url: record.url, body: record.body, headers: HEADERS, timeoutMs: this.settings.requestTimeoutMs });
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.then(
      (response) => this.settle(lane, entry, response, undefined),
      (error: unknown) => this.settle(lane, entry, undefined, error instanceof Error ? error : new Error(String(error))),
    );
  }

  private settle(lane: Lane, entry: Entry, response: TransportResponse | undefined, error: Error | undefined): void {
    this.inFlight--;
    if (entry.settled) {
      this.pump();
      return;
    }
    const verdict = response === undefined ? 'retry' : classifyStatus(response.status);
    if (response !== undefined) entry.lastStatus = response.status;
    const now = performance.now();
    if (verdict === 'retry') this.window.onFailure(entry.sentAt, now);
    else if (verdict === 'delivered') this.window.onSuccess(entry.sentAt, now, entry.sentSaturated);
    const { record } = entry;
    if (verdict === 'delivered') {
      this.hooks.onAttempt?.(record, { status: response?.status, attempt: entry.attempts });
      entry.settled = true;
      this.counters.delivered++;
      record.resolve({ status: 'delivered', httpStatus: response?.status ?? 200, attempts: entry.attempts });
      this.settled(entry);
      this.lanes.advance(lane);
    } else if (verdict === 'retry') {
      this.retryOrGiveUp(lane, entry, response, error);
    } else {
      this.hooks.onAttempt?.(record, { status: response?.status, attempt: entry.attempts });
      const status = response?.status;
      const detail = response?.body ? `: ${this.hooks.scrub(response.body.slice(0, 300))}` : '';
      if (verdict === 'unauthorized') {
        this.giveUp(entry, 'unauthorized', `The tracking endpoint refused the API key (HTTP ${status}). ${hintFor(record.url, status, undefined)}`);
      } else {
        const hint = status === 404 || status === 407 ? ` ${hintFor(record.url, status, undefined, this.hooks.proxyNote)}` : '';
        this.giveUp(entry, 'rejected', `The tracking endpoint ${endpointOf(record.url)} refused the ${record.label} record (HTTP ${status}); it is not retried${detail}.${hint}`);
      }
      this.lanes.advance(lane);
    }
    this.pump();
  }

  private retryOrGiveUp(lane: Lane, entry: Entry, response: TransportResponse | undefined, error: Error | undefined): void {
    const { record } = entry;
    const what = response ? `HTTP ${response.status}` : `${errorCode(error) ?? error?.name ?? 'network error'}`;
    const hint = hintFor(record.url, response?.status, error, this.hooks.proxyNote);
    if (response === undefined && isPermanentNetworkError(error)) {
      // A TLS or protocol mismatch meets the same wall on every retry.
      this.hooks.onAttempt?.(record, { error, attempt: entry.attempts });
      this.giveUp(entry, 'rejected', `Gave up the ${record.label} record without retrying: ${hint}`, error);
      this.lanes.advance(lane);
      return;
    }
    if (entry.attempts >= this.settings.maxAttempts) {
      this.hooks.onAttempt?.(record, { status: response?.status, error, attempt: entry.attempts });
      this.giveUp(entry, 'retries-exhausted', `Gave up the ${record.label} record after ${entry.attempts} attempts; the last failed with ${what}. ${hint}`, error);
      this.lanes.advance(lane);
      return;
    }
    const delay = nextDelay(entry.attempts, response?.retryAfter, this.settings);
    const elapsed = performance.now() - entry.firstAttemptAt;
    if (elapsed + delay > this.settings.maxRetryDurationMs) {
      this.hooks.onAttempt?.(record, { status: response?.status, error, attempt: entry.attempts });
      this.giveUp(entry, 'retry-budget-exceeded', `Gave up the ${record.label} record: another retry would pass maxRetryDurationMs (${this.settings.maxRetryDurationMs} ms); the last attempt failed with ${what}. ${hint}`, error);
      this.lanes.advance(lane);
      return;
    }
    this.hooks.onAttempt?.(record, { status: response?.status, error, attempt: entry.attempts, delayMs: delay });
    this.counters.retried++;
    // Unref'd: a retry alone does not keep the process alive. When nothing else does, the client
    // closes itself (bounded by closeTimeoutMs; see exit-guard.ts), and the retry runs within that.
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!entry.settled) {
        this.lanes.makeReady(lane);
        this.schedulePump();
      }
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }

  private giveUp(entry: Entry, reason: DeliveryFailureReason, message: string, cause?: Error): void {
    entry.settled = true;
    if (PERSISTABLE.has(reason) && this.hooks.persist?.(entry.record)) {
      reason = 'persisted';
      message = `${/[.?!]\s*$/.test(message) ? message.trimEnd() : `${message}.`} It was saved to persistDir; a client started with the same persistDir will send it.`;
      this.counters.persisted++;
    } else {
      this.counters.failed++;
    }
    const error = new TrackingDeliveryError(reason, this.hooks.scrub(message), {
      status: entry.lastStatus,
      attempts: entry.attempts,
      cause: cause === undefined ? undefined : this.hooks.safeCause(cause),
    });
    entry.record.reject(error);
    this.hooks.onGiveUp(error, entry.record);
    this.settled(entry);
  }

  private settled(entry: Entry): void {
    if (entry.counted) return;
    entry.counted = true;
    this.pending--;
    if (this.flushWaiters.length > 0) {
      let anyDone = false;
      for (const waiter of this.flushWaiters) {
        if (entry.seq <= waiter.seq && --waiter.remaining <= 0) anyDone = true;
      }
      if (anyDone) {
        const done = this.flushWaiters.filter((w) => w.remaining <= 0);
        this.flushWaiters = this.flushWaiters.filter((w) => w.remaining > 0);
        for (const waiter of done) waiter.resolve();
      }
    }
  }
}
