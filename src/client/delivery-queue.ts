/**
 * The delivery queue: bounded, one lane per user so each user's records go out in the order
 * they were logged, lanes served round-robin within a window of requests in flight that follows
 * the endpoint (see concurrency.ts) up to a cap, retries with backoff.
 *
 * Process lifetime: an idle queue holds no timer and no socket. Requests in flight keep the
 * process alive (their sockets); backoff timers do not: when a process has nothing else to do
 * while records wait to be retried, the client closes itself within `closeTimeoutMs` (see
 * TrackingClient), so an awaited log call still settles and a short script still exits.
 */
import { TrackingDeliveryError, type DeliveryFailureReason } from './errors.js';
import { ConcurrencyWindow } from './concurrency.js';
import { endpointOf, errorCode, hintFor, isPermanentNetworkError } from './diagnose.js';
import { classifyStatus, nextDelay, type RetrySettings } from './retry.js';
import type { PlatformKind, RecordType } from '../protocol/index.js';
import type { Transport, TransportResponse } from './transport.js';

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
  resolve(result: DeliveredResult): void;
  reject(error: TrackingDeliveryError): void;
}

interface Entry {
  record: QueuedRecord;
  seq: number;
  attempts: number;
  firstAttemptAt: number;
  /** When the current attempt was sent. */
  sentAt: number;
  /** Whether the window was full or records were waiting when the current attempt was sent. */
  sentSaturated: boolean;
  lastStatus?: number;
  /** Resolved or rejected. */
  settled: boolean;
  /** Counted out of `pending` (once). */
  counted: boolean;
}

interface Lane {
  key: string;
  entries: Entry[];
  head: number;
  /** idle: not in the ready list and nothing in flight; ready: waiting for a slot; active: in flight or backing off. */
  state: 'idle' | 'ready' | 'active';
}

/** Counters reported by `TrackingClient.stats()`. */
export interface DeliveryCounters {
  delivered: number;
  retried: number;
  failed: number;
  dropped: number;
  persisted: number;
}

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
}

interface FlushWaiter {
  seq: number;
  remaining: number;
  resolve(): void;
}

const HEADERS = Object.freeze({ 'content-type': 'application/json' });
const PERSISTABLE: ReadonlySet<DeliveryFailureReason> = new Set(['retries-exhausted', 'retry-budget-exceeded', 'close-deadline']);

export class DeliveryQueue {
  private readonly lanes = new Map<string, Lane>();
  private ready: Lane[] = [];
  private readyHead = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private flushWaiters: FlushWaiter[] = [];
  private pending = 0;
  private inFlight = 0;
  private seq = 0;
  private pumpScheduled = false;
  private readonly window: ConcurrencyWindow;
  /** The most requests in flight at once so far. */
  peakInFlight = 0;
  readonly counters: DeliveryCounters = { delivered: 0, retried: 0, failed: 0, dropped: 0, persisted: 0 };

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
    let lane = this.lanes.get(record.laneKey);
    if (lane === undefined) {
      lane = { key: record.laneKey, entries: [], head: 0, state: 'idle' };
      this.lanes.set(record.laneKey, lane);
    }
    lane.entries.push({ record, seq: ++this.seq, attempts: 0, firstAttemptAt: 0, sentAt: 0, sentSaturated: false, settled: false, counted: false });
    this.pending++;
    if (lane.state === 'idle') this.makeReady(lane);
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
   * Gives up every unsettled record with `reason` (used by `close()` at its deadline) and
   * cancels backoff timers. Results that arrive later for in-flight records are ignored.
   */
  abandon(reason: DeliveryFailureReason, message: string): number {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    let count = 0;
    for (const lane of this.lanes.values()) {
      for (let i = lane.head; i < lane.entries.length; i++) {
        const entry = lane.entries[i];
        if (entry.settled) continue;
        count++;
        this.giveUp(entry, reason, message);
      }
    }
    this.lanes.clear();
    this.ready = [];
    this.readyHead = 0;
    return count;
  }

  /** Puts a lane in the ready list; `schedule` false when the caller pumps right after. */
  private makeReady(lane: Lane, schedule = true): void {
    lane.state = 'ready';
    this.ready.push(lane);
    if (schedule) this.schedulePump();
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
    while (this.inFlight < limit && this.readyHead < this.ready.length) {
      const lane = this.ready[this.readyHead];
      this.ready[this.readyHead++] = undefined as unknown as Lane;
      if (lane.state !== 'ready') continue;
      lane.state = 'active';
      this.attempt(lane, lane.entries[lane.head], this.inFlight + 1 >= limit || this.readyHead < this.ready.length);
    }
    if (this.readyHead > 1024 && this.readyHead * 2 > this.ready.length) {
      this.ready = this.ready.slice(this.readyHead);
      this.readyHead = 0;
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
      this.advance(lane, false);
    } else if (verdict === 'retry') {
      this.retryOrGiveUp(lane, entry, response, error);
    } else {
      this.hooks.onAttempt?.(record, { status: response?.status, attempt: entry.attempts });
      const status = response?.status;
      const detail = response?.body ? `: ${this.hooks.scrub(response.body.slice(0, 300))}` : '';
      if (verdict === 'unauthorized') {
        this.giveUp(entry, 'unauthorized', `The tracking endpoint refused the API key (HTTP ${status}). ${hintFor(record.url, status, undefined)}`);
      } else {
        const hint = status === 404 ? ` ${hintFor(record.url, status, undefined)}` : '';
        this.giveUp(entry, 'rejected', `The tracking endpoint ${endpointOf(record.url)} refused the ${record.label} record (HTTP ${status}); it is not retried${detail}.${hint}`);
      }
      this.advance(lane, false);
    }
    this.pump();
  }

  private retryOrGiveUp(lane: Lane, entry: Entry, response: TransportResponse | undefined, error: Error | undefined): void {
    const { record } = entry;
    const what = response ? `HTTP ${response.status}` : `${errorCode(error) ?? error?.name ?? 'network error'}`;
    const hint = hintFor(record.url, response?.status, error);
    if (response === undefined && isPermanentNetworkError(error)) {
      // A TLS or protocol mismatch meets the same wall on every retry.
      this.hooks.onAttempt?.(record, { error, attempt: entry.attempts });
      this.giveUp(entry, 'rejected', `Gave up the ${record.label} record without retrying: ${hint}`, error);
      this.advance(lane, false);
      return;
    }
    if (entry.attempts >= this.settings.maxAttempts) {
      this.hooks.onAttempt?.(record, { status: response?.status, error, attempt: entry.attempts });
      this.giveUp(entry, 'retries-exhausted', `Gave up the ${record.label} record after ${entry.attempts} attempts; the last failed with ${what}. ${hint}`, error);
      this.advance(lane, false);
      return;
    }
    const delay = nextDelay(entry.attempts, response?.retryAfter, this.settings);
    const elapsed = performance.now() - entry.firstAttemptAt;
    if (elapsed + delay > this.settings.maxRetryDurationMs) {
      this.hooks.onAttempt?.(record, { status: response?.status, error, attempt: entry.attempts });
      this.giveUp(entry, 'retry-budget-exceeded', `Gave up the ${record.label} record: another retry would pass maxRetryDurationMs (${this.settings.maxRetryDurationMs} ms); the last attempt failed with ${what}. ${hint}`, error);
      this.advance(lane, false);
      return;
    }
    this.hooks.onAttempt?.(record, { status: response?.status, error, attempt: entry.attempts, delayMs: delay });
    this.counters.retried++;
    // Unref'd: a retry alone does not keep the process alive. When nothing else does, the client
    // closes itself (bounded by closeTimeoutMs; see TrackingClient), and the retry runs within that.
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!entry.settled) this.makeReady(lane);
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }

  private giveUp(entry: Entry, reason: DeliveryFailureReason, message: string, cause?: Error): void {
    entry.settled = true;
    if (PERSISTABLE.has(reason) && this.hooks.persist?.(entry.record)) {
      reason = 'persisted';
      message = `${message}. It was saved to persistDir; a client started with the same persistDir will send it.`;
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

  /** Drops the lane's head (settled) and moves on to its next record (`schedule` as in `makeReady`). */
  private advance(lane: Lane, schedule = true): void {
    lane.entries[lane.head] = undefined as unknown as Entry;
    lane.head++;
    if (lane.head >= lane.entries.length) {
      this.lanes.delete(lane.key);
      lane.state = 'idle';
      return;
    }
    if (lane.head > 64 && lane.head * 2 > lane.entries.length) {
      lane.entries = lane.entries.slice(lane.head);
      lane.head = 0;
    }
    this.makeReady(lane, schedule);
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
