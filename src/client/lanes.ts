/**
 * The delivery queue's bookkeeping of who goes next: one lane per user (a user's records go one at
 * a time, in the order they were logged) and a ready list of lanes waiting for a request slot,
 * served round-robin. Nothing here sends, times or retries anything (delivery-queue.ts does).
 */
import type { QueuedRecord } from './delivery-types.js';

export interface Lane {
  key: string;
  entries: QueuedRecord[];
  head: number;
  /** idle: not in the ready list and nothing in flight; ready: waiting for a slot; active: in flight or backing off. */
  state: 'idle' | 'ready' | 'active';
}

export class Lanes {
  private readonly lanes = new Map<string, Lane>();
  private ready: Lane[] = [];
  private readyHead = 0;

  /** Lanes held: one per user with records not yet settled (a user whose records all settled has none). */
  get count(): number {
    return this.lanes.size;
  }

  /** Appends `entry` to the lane of `key`. Returns true when the lane became ready (the caller schedules a round). */
  add(key: string, entry: QueuedRecord): boolean {
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = { key, entries: [], head: 0, state: 'idle' };
      this.lanes.set(key, lane);
    }
    lane.entries.push(entry);
    if (lane.state !== 'idle') return false;
    this.makeReady(lane);
    return true;
  }

  /** Puts a lane (whose head is to be tried) in the ready list. */
  makeReady(lane: Lane): void {
    lane.state = 'ready';
    this.ready.push(lane);
  }

  /** Whether a lane is waiting for a slot. */
  hasReady(): boolean {
    return this.readyHead < this.ready.length;
  }

  /** How many lanes are waiting for a slot. */
  get readyCount(): number {
    return this.ready.length - this.readyHead;
  }

  /** The next lane waiting for a slot, now active; `undefined` when none waits. */
  takeReady(): Lane | undefined {
    while (this.readyHead < this.ready.length) {
      const lane = this.ready[this.readyHead];
      this.ready[this.readyHead++] = undefined as unknown as Lane;
      if (lane.state !== 'ready') continue;
      lane.state = 'active';
      this.compactReady();
      return lane;
    }
    this.compactReady();
    return undefined;
  }

  /** Drops the lane's head (settled) and moves on to its next record. Returns true when the lane is ready again. */
  advance(lane: Lane): boolean {
    lane.entries[lane.head] = undefined as unknown as QueuedRecord;
    lane.head++;
    if (lane.head >= lane.entries.length) {
      this.lanes.delete(lane.key);
      lane.state = 'idle';
      return false;
    }
    if (lane.head > 64 && lane.head * 2 > lane.entries.length) {
      lane.entries = lane.entries.slice(lane.head);
      lane.head = 0;
    }
    this.makeReady(lane);
    return true;
  }

  /** Every entry not yet dropped, lane by lane, each lane in order (the lanes are kept). */
  *pendingEntries(): Generator<QueuedRecord> {
    for (const lane of this.lanes.values()) {
      for (let i = lane.head; i < lane.entries.length; i++) yield lane.entries[i];
    }
  }

  /** Every entry not yet dropped, lane by lane, each lane in order; then forgets every lane. */
  drain(): QueuedRecord[] {
    const entries = [...this.pendingEntries()];
    for (const lane of this.lanes.values()) lane.state = 'idle';
    this.lanes.clear();
    this.ready = [];
    this.readyHead = 0;
    return entries;
  }

  private compactReady(): void {
    if (this.readyHead > 1024 && this.readyHead * 2 > this.ready.length) {
      this.ready = this.ready.slice(this.readyHead);
      this.readyHead = 0;
    }
  }
}
