/**
 * Re-sending what an earlier process saved to `persistDir`: a batch at a time, only while the
 * queue has room, so a large backlog neither floods the endpoint nor crowds out live records.
 * The files are deleted once every record in them has settled (given-up ones are saved again).
 */
import type { TrackResult } from './delivery-queue.js';
import type { SafeLogger } from './logger.js';
import type { PersistedRecord, UndeliveredStore } from './persistence.js';
import { savedUserId } from './records.js';

export interface ReplayTarget {
  log: SafeLogger;
  maxQueueSize: number;
  /** Records in the delivery queue now. */
  queued(): number;
  /** Queues one saved record on the lane of `userId`. */
  enqueue(record: PersistedRecord, userId: string): Promise<TrackResult>;
}

/** A replay under way. */
export interface Replay {
  /** Stops it: what it has not queued yet is saved back untouched, and records it held are let go. */
  stop(): void;
  /**
   * Holds a new record of `userId` while that user still has saved records waiting to be queued
   * (so a user's saved records always go before anything newer of theirs): returns true and calls
   * `send` once they are queued. Returns false (send it now) for any other user.
   */
  hold(userId: string, send: () => void): boolean;
  /** Records held now. */
  held(): number;
}

/**
 * Starts re-sending the records saved in `store`. Returns the replay, or `undefined` when there
 * was nothing to send.
 */
export function replaySaved(store: UndeliveredStore, target: ReplayTarget): Replay | undefined {
  const { records, release, skipped } = store.claim();
  const skippedCount = Object.values(skipped).reduce((a, b) => a + b, 0);
  if (skippedCount > 0) {
    const reasons = Object.entries(skipped).map(([reason, n]) => `${n} ${reason}`).join(', ');
    target.log.warn({ skipped }, `skipped ${skippedCount} saved lines in persistDir that cannot be re-sent (${reasons}); the other ${records.length} are re-sent`);
  }
  if (records.length === 0) {
    release();
    return undefined;
  }
  target.log.info({ records: records.length }, `re-sending ${records.length} records saved in persistDir by an earlier process`);
  let next = 0;
  let unsettled = records.length;
  let stopped = false;
  const users = records.map(savedUserId);
  /** Saved records of each user not yet queued. */
  const waiting = new Map<string, number>();
  for (const user of users) waiting.set(user, (waiting.get(user) ?? 0) + 1);
  const holding = new Map<string, (() => void)[]>();
  let heldCount = 0;
  const letGo = (user: string) => {
    const sends = holding.get(user);
    holding.delete(user);
    if (sends === undefined) return;
    heldCount -= sends.length;
    for (const send of sends) send();
  };
  const settledOne = () => {
    if (--unsettled === 0) release();
  };
  const batch = Math.max(1, Math.min(100, Math.floor(target.maxQueueSize / 4)));
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    const room = target.maxQueueSize - target.queued();
    const end = Math.min(records.length, next + Math.min(batch, Math.max(0, room - batch)));
    for (; next < end; next++) {
      const record = records[next];
      const user = users[next];
      let queued: Promise<TrackResult>;
      try {
        queued = target.enqueue(record, user);
      } catch {
        queued = Promise.reject(new Error('not queued')); // never let a saved record stop the bot
      }
      queued.then(settledOne, settledOne);
      const left = (waiting.get(user) ?? 1) - 1;
      if (left > 0) waiting.set(user, left);
      else {
        waiting.delete(user);
        letGo(user);
      }
    }
    if (next < records.length) timer = setTimeout(tick, 100);
  };
  timer = setTimeout(tick, 0);
  const stop = () => {
    if (stopped || next >= records.length) return;
    stopped = true;
    clearTimeout(timer);
    waiting.clear();
    for (const user of [...holding.keys()]) letGo(user);
    // What has not been queued yet goes back to disk untouched.
    const rest = records.slice(next);
    const saved = store.save(rest);
    if (saved < rest.length) target.log.warn({ records: rest.length - saved }, `${rest.length - saved} saved records could not be saved again (maxPersistBytes)`);
    unsettled -= rest.length;
    next = records.length;
    if (unsettled === 0) release();
  };
  return {
    stop,
    hold(userId, send) {
      if (!waiting.has(userId)) return false;
      const sends = holding.get(userId) ?? [];
      sends.push(send);
      holding.set(userId, sends);
      heldCount++;
      return true;
    },
    held: () => heldCount,
  };
}
