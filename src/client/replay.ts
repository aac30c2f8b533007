/**
 * Re-sending what earlier processes saved to `persistDir`: a batch at a time, only while the queue
 * has room, so a large backlog neither floods the endpoint nor crowds out live records.
 *
 * Order per user: a new record of a user who still has saved records waiting is held until those
 * are queued, so a user's saved records always go before anything newer of theirs.
 *
 * Done (every saved record settled) or stopped by `close()`: what is still to be sent from the
 * claimed files (records never queued, and queued ones that failed again) is written to the
 * client's own file with the times they were logged, and the claimed files are deleted; records
 * held behind them are saved after them (`finish`). The next start sorts by those times, so the
 * order holds across any number of restarts.
 *
 * Process lifetime: the pacing timer is unref'd. A process with nothing else to do is not kept
 * alive by a replay: its client closes itself (see exit-guard.ts), which stops the replay and
 * saves what is left.
 */
import type { TrackResult } from './delivery-queue.js';
import type { SafeLogger } from './logger.js';
import { CLAIM_TOUCH_MS, type PersistedRecord, type SavedRecord, type SavedRecordCheck, type UndeliveredStore } from './persistence.js';

export interface ReplayTarget {
  log: SafeLogger;
  maxQueueSize: number;
  /** Checks each saved record as a new one would be checked (see `SavedRecordCheck`). */
  check: SavedRecordCheck;
  /** Records in the delivery queue now. */
  queued(): number;
  /** Queues saved record number `index` on the lane of its user. */
  enqueue(record: SavedRecord, index: number): Promise<TrackResult>;
}

/** A new record held behind its user's saved ones. */
export interface HeldRecord extends PersistedRecord {
  /** Queues it (its user's saved records are all queued). */
  send(): void;
  /** It was saved to disk behind its user's saved records (the replay was stopped). */
  saved(): void;
  /** It could not be saved (`maxPersistBytes`, a failed write) when the replay was stopped: give it up. */
  lost(): void;
}

/** A replay under way. */
export interface Replay {
  /** Whether it still has saved records to queue or to see settled. */
  readonly active: boolean;
  /**
   * Holds `record` of `userId` while that user still has saved records waiting to be queued:
   * returns true and calls `record.send` once they are queued. Returns false (send it now) for
   * any other user.
   */
  hold(userId: string, record: HeldRecord): boolean;
  /** Whether a new record of `userId` would be held (`hold`). */
  holds(userId: string): boolean;
  /** Records held now. */
  held(): number;
  /**
   * Saved record `index` was given up for a reason a later process could overcome (an outage,
   * the close deadline): it stays on disk for the next start. Returns false when the replay is
   * already finished (the caller saves it itself).
   */
  keep(index: number): boolean;
  /** Stops queuing saved records (the client is closing). Records keep being held. */
  stop(): void;
  /**
   * After `stop()` and once nothing is pending in the queue: saves what is left (see the file's
   * header) and ends the replay. Safe to call more than once.
   */
  finish(): void;
}

const PENDING = 0;
const QUEUED = 1;
const DONE = 2;
const KEPT = 3;

/**
 * Starts re-sending the records saved in `store`. Returns the replay, or `undefined` when there
 * was nothing to send.
 */
export function replaySaved(store: UndeliveredStore, target: ReplayTarget): Replay | undefined {
  const { records, release, skipped, touch } = store.claim(target.check);
  const skippedCount = Object.values(skipped).reduce((a, b) => a + b, 0);
  if (skippedCount > 0) {
    const reasons = Object.entries(skipped)
      .map(([reason, n]) => `${n} ${reason}`)
      .join(', ');
    target.log.warn({ skipped }, `skipped ${skippedCount} saved lines in persistDir that cannot be re-sent (${reasons}); the other ${records.length} are re-sent`);
  }
  if (records.length === 0) {
    release([]);
    return undefined;
  }
  target.log.info({ records: records.length }, `re-sending ${records.length} records saved in persistDir by an earlier process`);
  const state = new Uint8Array(records.length);
  let next = 0;
  let unsettled = 0;
  let stopped = false;
  let finished = false;
  /** Saved records of each user not yet queued. */
  const waiting = new Map<string, number>();
  for (const record of records) waiting.set(record.userId, (waiting.get(record.userId) ?? 0) + 1);
  const holding = new Map<string, HeldRecord[]>();
  let heldCount = 0;
  const letGo = (user: string) => {
    const held = holding.get(user);
    holding.delete(user);
    if (held === undefined) return;
    heldCount -= held.length;
    for (const record of held) record.send();
  };
  // Touch the claimed files now and then, so no other process takes them for dead ones.
  const toucher = setInterval(touch, CLAIM_TOUCH_MS);
  toucher.unref();

  /** Writes what is left of the saved records back and deletes the claimed files. */
  const end = () => {
    // Stryker disable next-line ConditionalExpression: end() never runs with finished set: finish() returns first once finished, and settledOne() calls it only when not stopped with every record queued and settled, which happens once
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    clearInterval(toucher);
    const keep: PersistedRecord[] = [];
    let neverQueued = 0;
    // Stryker disable next-line EqualityOperator: state[records.length] is past the end of the Uint8Array (undefined): neither PENDING nor KEPT, so one more turn counts and keeps nothing
    for (let i = 0; i < records.length; i++) {
      if (state[i] === PENDING) neverQueued++;
      if (state[i] === PENDING || state[i] === KEPT) keep.push(records[i]);
    }
    const written = release(keep);
    if (written < keep.length) {
      target.log.warn({ records: keep.length }, `could not write ${keep.length} saved records back to persistDir; the files they came from are left there for the next start, which may send some records twice`);
    } else if (neverQueued > 0) {
      target.log.info({ records: neverQueued }, `${neverQueued} saved records not re-sent yet stay in persistDir for the next start`);
    }
  };
  const settledOne = (index: number) => {
    // Stryker disable next-line ConditionalExpression: a settled record left QUEUED is treated as DONE is: only PENDING and KEPT records are written back (nothing else reads DONE)
    if (state[index] === QUEUED) state[index] = DONE;
    unsettled--;
    if (!stopped && unsettled === 0 && next >= records.length) end();
  };
  const batch = Math.max(1, Math.min(100, Math.floor(target.maxQueueSize / 4)));
  // Room kept free for live records: a batch, or none when the queue holds a single record (else
  // nothing saved would ever be queued).
  const reserve = Math.min(batch, target.maxQueueSize - 1);
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    if (stopped) return;
    // Held records count against the queue's size (they are queued the moment their user's saved
    // ones are), and as part of the room kept for live records (they are live ones).
    const room = target.maxQueueSize - target.queued() - heldCount;
    const until = Math.min(records.length, next + Math.min(batch, Math.max(0, room - Math.max(0, reserve - heldCount))));
    for (; next < until; next++) {
      const index = next;
      const record = records[index];
      state[index] = QUEUED;
      unsettled++;
      let queued: Promise<TrackResult>;
      try {
        queued = target.enqueue(record, index);
      } catch {
        // Never let a saved record stop the bot; one that could not be queued stays for the next start.
        state[index] = KEPT;
        // Stryker disable next-line StringLiteral: the rejection only settles the record: settledOne() never reads its reason
        queued = Promise.reject(new Error('not queued'));
      }
      // Promise.prototype.then: the plain one. A log call's own `then` would hold the process open
      // (keep-alive.ts), and a replay never keeps a process alive by itself.
      Promise.prototype.then.call(
        queued,
        () => settledOne(index),
        () => settledOne(index),
      );
      const left = (waiting.get(record.userId) ?? 1) - 1;
      if (left > 0) waiting.set(record.userId, left);
      else {
        waiting.delete(record.userId);
        letGo(record.userId);
      }
    }
    if (next < records.length) {
      timer = setTimeout(tick, 100);
      timer.unref();
    }
  };
  const holds = (userId: string) => !finished && waiting.has(userId);
  // The first batch goes at once (ref'd for that one turn of the loop); the pacing after it never keeps the process alive.
  setImmediate(tick);

  return {
    get active() {
      return !finished;
    },
    holds,
    hold(userId, record) {
      if (!holds(userId)) return false;
      const held = holding.get(userId) ?? [];
      held.push(record);
      holding.set(userId, held);
      heldCount++;
      return true;
    },
    held: () => heldCount,
    keep(index) {
      if (finished) return false;
      state[index] = KEPT;
      return true;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
    finish() {
      // Stryker disable next-line ConditionalExpression: a finish() after the replay finished changes nothing: end() returns at once, and nothing is held then (holds() is false once finished; letGo and the first finish() emptied holding)
      if (finished) return;
      stopped = true;
      end();
      // Held records go behind their user's saved ones: on disk, after them (their times are later).
      const held = [...holding.values()].flat();
      holding.clear();
      waiting.clear();
      heldCount = 0;
      // Stryker disable next-line ConditionalExpression: with nothing held, store.save([]) writes nothing and returns 0, and the loop after it has nothing to settle
      if (held.length === 0) return;
      const saved = store.save(held);
      for (let i = 0; i < held.length; i++) {
        if (i < saved) held[i].saved();
        else held[i].lost();
      }
    },
  };
}
