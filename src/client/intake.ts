/**
 * The records' way into delivery: each validated record is numbered (the order the client took
 * them, saved with it so that each user's order holds across restarts), then queued; or held
 * behind its user's records saved by an earlier process (replay.ts); or, when the queue is full,
 * saved to `persistDir` or dropped, and reported. Every record that comes in is counted once, in
 * `logged`, and ends up counted once more: delivered, failed, dropped or persisted.
 */
import { QueuedRecord, recordKey, type RecordTarget } from './delivery-types.js';
import type { DeliveryQueue, TrackResult } from './delivery-queue.js';
import { endpointOf } from './diagnose.js';
import { TrackingDeliveryError } from './errors.js';
import { TrackPromise, type KeepAlive } from './keep-alive.js';
import type { PersistedRecord, UndeliveredStore } from './persistence.js';
import type { Replay } from './replay.js';
import type { Reporter } from './reporter.js';
import { kindOf, type LossTally } from './tally.js';

const noop = () => undefined;

/** A promise already marked as handled, so that ignoring it never raises an unhandled rejection. */
export function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(noop);
  return promise;
}

/**
 * What a full queue's warning says, on every path a record can be refused by (a log call, the
 * middleware's deferred task, a record handed on later): which endpoint is not keeping up, what
 * became of `what` (a record, or `the sms incoming record`), and what to do. `canSave`: setting
 * `persistDir` would have kept the record (it would not keep a deferred task's).
 */
export function queueFullMessage(maxQueueSize: number, url: string, what: string, fate: 'saved' | 'dropped', canSave: boolean): string {
  const full = `The tracking queue is full (maxQueueSize ${maxQueueSize}): ${endpointOf(url)} is not taking records as fast as they are logged; ${what} was ${fate}`;
  if (fate === 'saved') return `${full} to persistDir and a client started with the same persistDir will send it.`;
  const advice = canSave ? 'raise maxQueueSize, or set persistDir to keep such records' : 'or raise maxQueueSize';
  return `${full}. Check that the endpoint is up and reachable (TRACKING_BASE_URL), ${advice}.`;
}

/** A refusal shared by the records refused for the same reason within a second. */
interface Refusal {
  error: TrackingDeliveryError;
  promise: Promise<TrackResult>;
  at: number;
}

/** The parts of a client its intake works with. */
export interface IntakeParts {
  queue: DeliveryQueue;
  reporter: Reporter;
  store: UndeliveredStore | undefined;
  maxQueueSize: number;
  /** The replay under way, if any. */
  replay(): Replay | undefined;
  /** A record was queued (or held): the client may have become busy. */
  onQueued(): void;
  /** Holds the process open while a caller awaits a record's promise. */
  keepAlive: KeepAlive;
  /** Counts what was not delivered, by kind of record. */
  tally: LossTally;
}

export class Intake {
  /** When this client started, and the number of the last record it took. */
  private readonly startedAt = Date.now();
  private seq = 0;
  /** The error and rejected promise a burst of refusals shares, per reason and kind of record (see `enqueue`). */
  private readonly refusals = { dropped: new Map<RecordTarget, Refusal>(), persisted: new Map<RecordTarget, Refusal>() };

  constructor(private readonly parts: IntakeParts) {}

  /**
   * Queues a validated, serialized record; when the queue is full, saves it to disk or drops it.
   * With `withResult` false, no promise is made and `undefined` is returned. `origin`: the record
   * is one re-sent from `persistDir` (its number in the replay, and when it was first logged).
   */
  enqueue(target: RecordTarget, json: string, laneKey: string, withResult: true, origin?: QueuedRecord['origin']): Promise<TrackResult>;
  enqueue(target: RecordTarget, json: string, laneKey: string, withResult: boolean, origin?: QueuedRecord['origin']): Promise<TrackResult> | undefined;
  enqueue(target: RecordTarget, json: string, laneKey: string, withResult: boolean, origin?: QueuedRecord['origin']): Promise<TrackResult> | undefined {
    const seq = ++this.seq;
    this.parts.queue.counters.logged++;
    // Checked before a queue entry and its promise exist: a record refused here allocates as
    // little as possible (see bench/README.md, "endpoint down").
    const replay = this.parts.replay();
    const held = replay?.held() ?? 0;
    // A record to hold behind its user's saved ones is taken only while the held ones leave room
    // in the queue for a saved record: else those saved records, which the held ones wait for,
    // could never be queued. (What does not fit is saved to disk, after them.)
    const holds = origin === undefined && replay !== undefined && replay.holds(laneKey);
    if (this.parts.queue.isFull || (held > 0 && this.parts.queue.size + held >= this.parts.maxQueueSize) || (holds && held >= this.parts.maxQueueSize - 1)) {
      const persisted = this.saveForLater(target, json, origin, seq, recordKey(origin));
      if (persisted) this.parts.queue.counters.persisted++;
      else this.parts.queue.counters.dropped++;
      // A burst past the cap shares one error, and one rejected promise, per kind of refusal for a
      // second: refusing a record then allocates nothing, and a caller that keeps every promise
      // holds the same one many times, not an error with a stack trace per record. A record logged
      // with trackAndForget shares them too (it makes no promise of its own, and ignores this one).
      const refusals = persisted ? this.refusals.persisted : this.refusals.dropped;
      const now = Date.now();
      let cached = refusals.get(target);
      if (cached === undefined || now - cached.at > 1_000) {
        const error = new TrackingDeliveryError(persisted ? 'persisted' : 'queue-full', queueFullMessage(this.parts.maxQueueSize, target.url, `the ${target.label} record`, persisted ? 'saved' : 'dropped', true));
        cached = { error, promise: handled(Promise.reject(error)), at: now };
        refusals.set(target, cached);
      }
      this.parts.reporter.report(cached.error, target.label);
      this.parts.tally.count(persisted ? 'saved to persistDir' : 'dropped', kindOf(target.type, json));
      return cached.promise;
    }
    this.parts.onQueued();
    // Stryker disable next-line ConditionalExpression,BlockStatement: only spares trackAndForget a promise nobody holds (handled, so never an unhandled rejection); the record is queued and settled, counted and reported alike
    if (!withResult) {
      this.push(new QueuedRecord(target, json, laneKey, seq, origin, undefined));
      return undefined;
    }
    // Awaited (a fulfilment handler attached), it holds the process open until it settles (keep-alive.ts).
    const { promise, waiter } = TrackPromise.pending(this.parts.keepAlive);
    this.push(new QueuedRecord(target, json, laneKey, seq, origin, waiter));
    return promise;
  }

  /** Queues a record, unless its user still has saved records waiting to be re-sent: then it waits behind them. */
  private push(record: QueuedRecord): void {
    const replay = this.parts.replay();
    if (record.origin !== undefined || replay === undefined) {
      this.send(record);
      return;
    }
    const at = [this.startedAt, record.seq] as const;
    const held = replay.hold(record.laneKey, {
      platform: record.platform,
      type: record.type,
      body: record.text,
      at,
      key: record.key,
      send: () => this.send(record),
      saved: () => {
        this.parts.queue.counters.persisted++;
        const error = new TrackingDeliveryError('persisted', `The ${record.label} record waited behind its user's records saved by an earlier process; the client closed first, so it was saved to persistDir after them, and a client started with the same persistDir will send them in order.`);
        record.reject(error);
        this.parts.reporter.report(error, record.label);
        this.parts.tally.count('saved to persistDir', kindOf(record.type, record.text));
      },
      lost: () => {
        this.parts.queue.counters.failed++;
        const error = new TrackingDeliveryError('close-deadline', `The ${record.label} record waited behind its user's records saved by an earlier process, and could not be saved after them when the client closed (maxPersistBytes, or the disk); it was not sent.`);
        record.reject(error);
        this.parts.reporter.report(error, record.label);
        this.parts.tally.count('given up', kindOf(record.type, record.text));
      },
    });
    if (!held) this.send(record);
  }

  /** Hands a record to the delivery queue. */
  private send(record: QueuedRecord): void {
    if (this.parts.queue.enqueue(record)) return;
    // Room was checked when the record was taken; should it be gone, the record is still not lost
    // silently. (It cannot be: a record is taken only while queued and held records are fewer than
    // maxQueueSize, so the held ones a replay lets go always fit. Hence the two lines marked below.)
    // Stryker disable next-line UpdateOperator: unreachable, see above (counted in logged when it was taken)
    this.parts.queue.counters.dropped++;
    // Stryker disable next-line StringLiteral,BooleanLiteral: unreachable, see above
    const error = new TrackingDeliveryError('queue-full', queueFullMessage(this.parts.maxQueueSize, record.url, `the ${record.label} record`, 'dropped', true));
    record.reject(error);
    this.parts.reporter.report(error, record.label);
  }

  /**
   * Saves a record that cannot be delivered now for a later process: one re-sent from
   * `persistDir` stays in the replay's files; any other is written with when it was logged and
   * its idempotency key `key` (the next process sends it with that key).
   * Returns false when it could not be saved (`maxPersistBytes`, a failed write).
   */
  saveForLater(target: RecordTarget, body: string, origin: QueuedRecord['origin'], seq: number, key: string): boolean {
    if (this.parts.store === undefined) return false;
    // A record re-sent from persistDir (origin) came from the replay, which this client keeps for good.
    if (origin !== undefined && this.parts.replay()!.keep(origin.index)) return true;
    const saved: PersistedRecord = { platform: target.platform, type: target.type, body, at: origin?.at ?? [this.startedAt, seq], key };
    return this.parts.store.save([saved]) === 1;
  }

  /** Counts a record refused without being queued (logged after `close()`, or a deferred task past a full queue), of `kind`. */
  countDropped(kind: string): void {
    this.parts.queue.counters.logged++;
    this.parts.queue.counters.dropped++;
    this.parts.tally.count('dropped', kind);
  }

}
