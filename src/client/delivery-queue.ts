/**
 * The delivery queue: bounded, one lane per user so each user's records go out in the order
 * they were logged (lanes.ts), lanes served round-robin within a window of requests in flight that
 * follows the endpoint (concurrency.ts) up to a cap; here, each attempt's outcome: delivered,
 * retried with backoff, or given up (and offered to disk first).
 *
 * Process lifetime: an idle queue holds no timer and no socket. Neither backoff timers nor (with
 * the default transport) the sockets of requests in flight keep the process alive on their own:
 * when a process has nothing else to do while the client is busy, its exit guard waits for
 * requests in flight and closes the client within `closeTimeoutMs` (see exit-guard.ts), so an
 * awaited log call still settles and a short script still exits within the deadline.
 */
import { TrackingDeliveryError, type DeliveryFailureReason } from './errors.js';
import { BodyArena, bodyBytes } from './bodies.js';
import { ConcurrencyWindow } from './concurrency.js';
import { endpointOf, errorCode, hintFor, isPermanentNetworkError } from './diagnose.js';
import { Lanes, type Lane } from './lanes.js';
import { classifyStatus, nextDelay, type RetrySettings } from './retry.js';
import type { DeliveryCounters, QueuedRecord } from './delivery-types.js';
import { SEND_DIRECT, type DirectTransport, type Transport, type TransportResponse } from './transport.js';

export type { DeliveredResult, DeliveryCounters, SkippedResult, TrackResult } from './delivery-types.js';
export { QueuedRecord } from './delivery-types.js';

export interface DeliverySettings extends RetrySettings {
  maxQueueSize: number;
  /** The most requests in flight; the window adapts below it. */
  maxConcurrency: number;
  requestTimeoutMs: number;
}

export interface DeliveryHooks {
  /** Removes secrets from text that came from outside (network error messages). */
  scrub(text: string): string;
  /** The start of a response body, at most `maxChars` characters, with no secret in it, whole or in part (`excerpt` in redact.ts). */
  excerpt(text: string, maxChars: number): string;
  /** Makes an error safe to keep as a cause (no URL, config or secrets). */
  safeCause(error: Error): Error;
  /** Called for each record given up, after its promise is rejected. */
  onGiveUp(error: TrackingDeliveryError, record: QueuedRecord): void;
  /**
   * Offered each record about to be given up for a reason that a later process could overcome
   * (an outage, the close deadline). Returns true when it saved the record to disk.
   */
  persist?(record: QueuedRecord): boolean;
  /** Called when an answer (or a failure) leaves no request in flight: the client is idle, or its records wait to be retried. */
  onQuiet?(): void;
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

/** What became of the records a `flush` waited for: delivered, given up, saved to disk, or still pending at its deadline. */
export interface FlushCounts {
  delivered: number;
  givenUp: number;
  saved: number;
  pending: number;
}

/** How a record left the queue. */
type Outcome = 'delivered' | 'givenUp' | 'saved';

interface FlushWaiter {
  seq: number;
  remaining: number;
  counts: FlushCounts;
  resolve(counts: FlushCounts): void;
}

/** How much of a refusal's answer its message shows. */
const MAX_ANSWER_CHARS = 300;

/**
 * The headers of every request; each also carries its record's `Idempotency-Key` (the same on
 * every attempt of the record), so that the endpoint stores a record once however often it is
 * sent (a retry after a 504 or a lost connection).
 */
const HEADERS = Object.freeze({ 'content-type': 'application/json' });

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
const PERSISTABLE: ReadonlySet<DeliveryFailureReason> = new Set(['retries-exhausted', 'retry-budget-exceeded', 'close-deadline']);

export class DeliveryQueue {
  private readonly lanes = new Lanes();
  private readonly timers = new Set<NodeJS.Timeout>();
  // Stryker disable next-line ArrayDeclaration: an element that is not a waiter is never counted down nor resolved: it only stays in the list
  private readonly flushWaiters: FlushWaiter[] = [];
  private pending = 0;
  private inFlight = 0;
  private seq = 0;
  /** The last failure without an answer (a refused connection, a timeout), for the hint of records given up at the close deadline. */
  private lastNetworkError: Error | undefined;
  /** The round of sending scheduled for the next turn, if any (one at a time: a round sends all it can). */
  private pumpScheduled: NodeJS.Immediate | undefined;
  private readonly window: ConcurrencyWindow;
  /** The transport's way to send without a promise per request, when it has one (the default transport does). */
  private readonly sendDirect: DirectTransport[typeof SEND_DIRECT] | undefined;
  /** Where pending bodies are held as bytes, for a transport that sends bytes (bodies.ts). */
  readonly bodies: BodyArena | undefined;
  readonly counters: DeliveryCounters = { logged: 0, delivered: 0, retried: 0, failed: 0, dropped: 0, persisted: 0 };

  constructor(
    private readonly transport: Transport,
    private readonly settings: DeliverySettings,
    private readonly hooks: DeliveryHooks,
  ) {
    this.window = new ConcurrencyWindow(settings.maxConcurrency);
    // SEND_DIRECT is internal: only a transport of the client's own has it, as a function.
    this.sendDirect = (transport as Partial<DirectTransport>)[SEND_DIRECT];
    this.bodies = this.sendDirect === undefined ? undefined : new BodyArena();
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
    record.queueSeq = ++this.seq;
    this.bodies?.store(record);
    if (this.lanes.add(record.laneKey, record)) this.schedulePump();
    return true;
  }

  /**
   * Resolves once every record accepted before this call is delivered or given up, or once
   * `timeoutMs` has passed (the records still pending then stay queued, counted in `pending`),
   * with what became of them.
   */
  flush(timeoutMs = Infinity): Promise<FlushCounts> {
    const counts: FlushCounts = { delivered: 0, givenUp: 0, saved: 0, pending: this.pending };
    if (this.pending === 0) return Promise.resolve(counts);
    return new Promise<FlushCounts>((resolve) => {
      const waiter: FlushWaiter = {
        seq: this.seq,
        remaining: this.pending,
        counts,
        resolve: (done) => {
          clearTimeout(timer);
          done.pending = waiter.remaining;
          resolve(done);
        },
      };
      this.flushWaiters.push(waiter);
      const timer =
        timeoutMs === Infinity
          ? undefined
          : setTimeout(() => {
              const at = this.flushWaiters.indexOf(waiter);
              // Stryker disable next-line ConditionalExpression: a waiter is resolved (and its timer cleared) when it leaves the list, so it is always there when this runs
              if (at >= 0) this.flushWaiters.splice(at, 1);
              waiter.resolve(counts);
            }, Math.max(0, timeoutMs));
    });
  }

  /** The records pending now (queued, backing off, in flight), counted by `kind(record)`. */
  pendingBy(kind: (record: QueuedRecord) => string): Map<string, number> {
    const counts = new Map<string, number>();
    for (const record of this.lanes.pendingEntries()) {
      const k = kind(record);
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    return counts;
  }

  /**
   * Gives up every unsettled record with `reason` (used by `close()` at its deadline), each with
   * the message `messageFor` makes for it, and cancels backoff timers. Results that arrive later
   * for in-flight records are ignored.
   */
  abandon(reason: DeliveryFailureReason, messageFor: (record: QueuedRecord, attempts: number, lastStatus: number | undefined, hint: string | undefined) => string): Abandoned {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const persistedBefore = this.counters.persisted;
    let abandoned = 0;
    // A lane holds only unsettled records: a record leaves it as soon as it is delivered or given up.
    for (const record of this.lanes.drain()) {
      abandoned++;
      // What its last failure says (a record keeps its last status; the last network error is the queue's).
      const failed = record.lastStatus !== undefined || this.lastNetworkError !== undefined;
      const hint = record.attempts === 0 || !failed ? undefined : hintFor(record.url, record.lastStatus, this.lastNetworkError, this.hooks.proxyNote);
      this.giveUp(record, reason, messageFor(record, record.attempts, record.lastStatus, hint));
    }
    return { abandoned, saved: this.counters.persisted - persistedBefore };
  }

  private schedulePump(): void {
    this.pumpScheduled ??= setImmediate(this.scheduledPump);
  }

  private readonly scheduledPump = (): void => {
    this.pumpScheduled = undefined;
    this.pump();
  };

  private pump(): void {
    const limit = this.window.limit;
    // Saturated: this round fills the window, or leaves records waiting for a slot. Only then does a
    // success of its requests show that a larger window would be used (records sent in the same
    // round as others did not wait for one another).
    const saturated = this.lanes.readyCount >= limit - this.inFlight;
    while (this.inFlight < limit) {
      const lane = this.lanes.takeReady();
      if (lane === undefined) break;
      this.attempt(lane, lane.entries[lane.head], saturated);
    }
  }

  private attempt(lane: Lane, record: QueuedRecord, saturated: boolean): void {
    this.inFlight++;
    record.attempts++;
    record.sentAt = performance.now();
    record.sentSaturated = saturated;
    if (record.attempts === 1) record.firstAttemptAt = record.sentAt;
    const { url } = record;
    const timeoutMs = this.settings.requestTimeoutMs;
    let sent: Promise<TransportResponse>;
    try {
      // Stryker disable next-line ConditionalExpression,BlockStatement: the default transport's send() sends the same request; the direct path only saves a promise per request
      if (this.sendDirect !== undefined) {
        this.sendDirect({ url, body: bodyBytes(record), headers: HEADERS, idempotencyKey: record.key, timeoutMs }, (error, response) => this.settle(lane, record, response, error));
        return;
      }
      sent = this.transport.send({ url, body: record.text, headers: { ...HEADERS, 'idempotency-key': record.key }, timeoutMs });
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.then(
      (response) => this.settle(lane, record, response, undefined),
      (error: unknown) => this.settle(lane, record, undefined, asError(error)),
    );
  }

  private settle(lane: Lane, record: QueuedRecord, response: TransportResponse | undefined, error: Error | undefined): void {
    this.settleAttempt(lane, record, response, error);
    if (this.inFlight === 0) this.hooks.onQuiet?.();
  }

  private settleAttempt(lane: Lane, record: QueuedRecord, response: TransportResponse | undefined, error: Error | undefined): void {
    this.inFlight--;
    if (record.settled) {
      this.pump();
      return;
    }
    if (response === undefined) {
      // A timeout is the endpoint not keeping up; a reset or a refused connection is one request's failure.
      this.window.onFailure(record.sentAt, performance.now(), errorCode(error) === 'ETIMEDOUT');
      this.retryOrGiveUp(lane, record, undefined, error);
    } else {
      this.answered(lane, record, response);
    }
    this.pump();
  }

  private answered(lane: Lane, record: QueuedRecord, response: TransportResponse): void {
    const { status } = response;
    const verdict = classifyStatus(status);
    record.lastStatus = status;
    const now = performance.now();
    // A 429, or any answer with Retry-After (a 503 with one): the endpoint asked for less. Another
    // failure (a 500, a 503 without Retry-After) is one request's, unless they come in a row.
    if (verdict === 'retry') this.window.onFailure(record.sentAt, now, status === 429 || response.retryAfter !== undefined);
    else if (verdict === 'delivered') this.window.onSuccess(record.sentAt, now, record.sentSaturated);
    if (verdict === 'delivered') {
      this.hooks.onAttempt?.(record, { status, attempt: record.attempts });
      // Stryker disable next-line BooleanLiteral: nothing reads a delivered record's flag: it leaves its lane now, and no answer or timer of its is left to come
      record.settled = true;
      this.counters.delivered++;
      record.delivered(status);
      this.settled(record, 'delivered');
      this.lanes.advance(lane);
    } else if (verdict === 'retry') {
      this.retryOrGiveUp(lane, record, response, undefined);
    } else {
      this.hooks.onAttempt?.(record, { status, attempt: record.attempts });
      const detail = response.body ? `: ${this.hooks.excerpt(response.body, MAX_ANSWER_CHARS)}` : '';
      if (verdict === 'unauthorized') {
        this.giveUp(record, 'unauthorized', `The tracking endpoint refused the API key (HTTP ${status}). ${hintFor(record.url, status, undefined)}`);
      } else {
        const hint = status === 404 || status === 407 ? ` ${hintFor(record.url, status, undefined, this.hooks.proxyNote)}` : '';
        this.giveUp(record, 'rejected', `The tracking endpoint ${endpointOf(record.url)} refused the ${record.label} record (HTTP ${status}); it is not retried${detail}.${hint}`);
      }
      this.lanes.advance(lane);
    }
  }

  private retryOrGiveUp(lane: Lane, record: QueuedRecord, response: TransportResponse | undefined, error: Error | undefined): void {
    // Stryker disable next-line StringLiteral: a failure without an answer always comes with an Error, which has a name (with an answer, this is not used)
    if (error !== undefined) this.lastNetworkError = error;
    const failure = errorCode(error) ?? error?.name ?? 'network error';
    const what = response ? `HTTP ${response.status}` : failure;
    const hint = hintFor(record.url, response?.status, error, this.hooks.proxyNote);
    // Only a failure without an answer has an error.
    if (isPermanentNetworkError(error)) {
      // A TLS or protocol mismatch meets the same wall on every retry.
      this.hooks.onAttempt?.(record, { error, attempt: record.attempts });
      this.giveUp(record, 'rejected', `Gave up the ${record.label} record without retrying: ${hint}`, error);
      this.lanes.advance(lane);
      return;
    }
    if (record.attempts >= this.settings.maxAttempts) {
      this.hooks.onAttempt?.(record, { status: response?.status, error, attempt: record.attempts });
      this.giveUp(record, 'retries-exhausted', `Gave up the ${record.label} record after ${record.attempts} attempts; the last failed with ${what}. ${hint}`, error);
      this.lanes.advance(lane);
      return;
    }
    const delay = nextDelay(record.attempts, response?.retryAfter, this.settings);
    const elapsed = performance.now() - record.firstAttemptAt;
    // Stryker disable next-line EqualityOperator: elapsed is measured in fractions of a ms; it is the budget less the delay to the last fraction by chance only
    if (elapsed + delay > this.settings.maxRetryDurationMs) {
      this.hooks.onAttempt?.(record, { status: response?.status, error, attempt: record.attempts });
      this.giveUp(record, 'retry-budget-exceeded', `Gave up the ${record.label} record: another retry would pass maxRetryDurationMs (${this.settings.maxRetryDurationMs} ms); the last attempt failed with ${what}. ${hint}`, error);
      this.lanes.advance(lane);
      return;
    }
    this.hooks.onAttempt?.(record, { status: response?.status, error, attempt: record.attempts, delayMs: delay });
    this.counters.retried++;
    // Unref'd: a retry alone does not keep the process alive. When nothing else does, the client
    // closes itself (bounded by closeTimeoutMs; see exit-guard.ts), and the retry runs within that.
    const timer = setTimeout(() => {
      // A record waiting for its retry is only given up by abandon(), which clears its timer.
      this.timers.delete(timer);
      this.lanes.makeReady(lane);
      this.schedulePump();
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }

  private giveUp(record: QueuedRecord, reason: DeliveryFailureReason, message: string, cause?: Error): void {
    record.settled = true;
    const saved = PERSISTABLE.has(reason) && this.hooks.persist?.(record) === true;
    if (saved) {
      reason = 'persisted';
      // Every message given up for these reasons ends with a sentence (a hint, or close()'s advice).
      message = `${message} It was saved to persistDir; a client started with the same persistDir will send it.`;
      this.counters.persisted++;
    } else {
      this.counters.failed++;
    }
    const error = new TrackingDeliveryError(reason, this.hooks.scrub(message), {
      status: record.lastStatus,
      attempts: record.attempts,
      cause: cause === undefined ? undefined : this.hooks.safeCause(cause),
    });
    record.reject(error);
    this.hooks.onGiveUp(error, record);
    this.settled(record, saved ? 'saved' : 'givenUp');
  }

  /** Counts a record out of the queue, once: it is called only where a record is first settled (delivered, or given up unsettled). */
  private settled(record: QueuedRecord, outcome: Outcome): void {
    this.pending--;
    this.bodies?.release(record);
    // Resolves the waiters this record was the last one of, and keeps the others, in place.
    let kept = 0;
    for (const waiter of this.flushWaiters) {
      if (record.queueSeq > waiter.seq) {
        this.flushWaiters[kept++] = waiter;
        continue;
      }
      waiter.counts[outcome]++;
      if (--waiter.remaining <= 0) {
        waiter.resolve(waiter.counts);
      } else {
        this.flushWaiters[kept++] = waiter;
      }
    }
    this.flushWaiters.length = kept;
  }
}
