/**
 * The delivery queue's lanes (lanes.ts): one per user, each user's records one at a time and in
 * order, users served round-robin; a user whose records all settled has no lane left, and a long
 * backlog, or a long run of users, holds memory in proportion to what is pending, not to what went
 * through.
 */
import { describe, expect, it } from 'vitest';
import type { QueuedRecord } from '../../src/client/delivery-types.js';
import { Lanes, type Lane } from '../../src/client/lanes.js';

/** Lanes only hold and hand back entries: a numbered stand-in is enough to follow them. */
const entry = (n: number) => ({ n }) as unknown as QueuedRecord;
const numberOf = (record: QueuedRecord) => (record as unknown as { n: number }).n;
/** The ready list (private): how many slots it holds, handed out or not. */
const readySlots = (lanes: Lanes) => (lanes as unknown as { ready: unknown[] }).ready.length;

/** Takes the next ready lane, as the queue does when a request slot is free. */
function take(lanes: Lanes): Lane {
  const lane = lanes.takeReady();
  expect(lane).toBeDefined();
  return lane!;
}

describe('lanes', () => {
  it("makes a user's lane ready once, on its first record, and keeps later records behind it", () => {
    const lanes = new Lanes();
    expect(lanes.hasReady()).toBe(false);
    expect(lanes.add('u', entry(1))).toBe(true);
    expect(lanes.hasReady()).toBe(true);
    expect(lanes.add('u', entry(2))).toBe(false);
    // One lane waits for a slot, however many records it holds.
    expect(lanes.readyCount).toBe(1);
    const lane = take(lanes);
    expect(lanes.readyCount).toBe(0);
    expect(lane.key).toBe('u');
    expect(lane.state).toBe('active');
    expect(numberOf(lane.entries[lane.head])).toBe(1);
    // While its head is in flight, the lane is not offered again, and a new record does not make it ready.
    expect(lanes.hasReady()).toBe(false);
    expect(lanes.takeReady()).toBeUndefined();
    expect(lanes.add('u', entry(3))).toBe(false);
    expect(lanes.takeReady()).toBeUndefined();
    expect(lanes.advance(lane)).toBe(true);
    expect(lane.state).toBe('ready');
    expect(numberOf(take(lanes).entries[lane.head])).toBe(2);
  });

  it('serves users round-robin: one record of each waiting user before a second of any', () => {
    const lanes = new Lanes();
    for (let i = 0; i < 3; i++) for (const user of ['a', 'b', 'c']) lanes.add(user, entry(i));
    const served: string[] = [];
    let lane = lanes.takeReady();
    while (lane !== undefined) {
      served.push(`${lane.key}${numberOf(lane.entries[lane.head])}`);
      lanes.advance(lane);
      lane = lanes.takeReady();
    }
    expect(served).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'c1', 'a2', 'b2', 'c2']);
    expect(lanes.count).toBe(0);
  });

  it("drops a user's lane once its last record settled, and starts a fresh one for the user's next record", () => {
    const lanes = new Lanes();
    lanes.add('u', entry(1));
    lanes.add('v', entry(2));
    expect(lanes.count).toBe(2);
    const lane = take(lanes);
    expect(lanes.advance(lane)).toBe(false);
    expect(lane.state).toBe('idle');
    expect(lanes.count).toBe(1);
    // A record of the same user later: a new lane, ready at once.
    expect(lanes.add('u', entry(3))).toBe(true);
    expect(lanes.count).toBe(2);
    const next = take(lanes);
    expect(next.key).toBe('v');
    const again = take(lanes);
    expect(again).not.toBe(lane);
    expect(again.entries.map(numberOf)).toEqual([3]);
  });

  it('holds no lane for the many users that came and went, only for those with records pending', () => {
    const lanes = new Lanes();
    lanes.add('stays', entry(-1));
    take(lanes); // in flight for the whole run
    for (let i = 0; i < 5_000; i++) {
      lanes.add(`user-${i}`, entry(i));
      lanes.advance(take(lanes));
    }
    expect(lanes.count).toBe(1);
    // The ready list does not keep a slot for every lane it ever handed out.
    expect(readySlots(lanes)).toBeLessThanOrEqual(2 * 1024 + 2);
  });

  it("keeps a long backlog of one user in order, and its memory in proportion to what is still pending", () => {
    const lanes = new Lanes();
    for (let i = 0; i < 10_000; i++) lanes.add('u', entry(i));
    const served: number[] = [];
    let lane = take(lanes);
    for (;;) {
      served.push(numberOf(lane.entries[lane.head]));
      const pending = lane.entries.length - lane.head;
      // Slots of settled records are given back once they are most of the lane (and past 64).
      expect(lane.entries.length).toBeLessThanOrEqual(2 * pending + 66);
      if (!lanes.advance(lane)) break;
      lane = take(lanes);
    }
    expect(served).toEqual([...Array(10_000).keys()]);
    expect(lanes.count).toBe(0);
  });

  it('keeps a lane that is fed as fast as it drains small', () => {
    const lanes = new Lanes();
    lanes.add('u', entry(0));
    let lane = take(lanes);
    for (let i = 1; i <= 10_000; i++) {
      lanes.add('u', entry(i));
      expect(lanes.advance(lane)).toBe(true);
      lane = take(lanes);
      expect(numberOf(lane.entries[lane.head])).toBe(i);
      expect(lane.entries.length).toBeLessThanOrEqual(66);
    }
  });

  it('does not compact a lane while most of its slots are still pending', () => {
    const lanes = new Lanes();
    for (let i = 0; i < 200; i++) lanes.add('u', entry(i));
    let lane = take(lanes);
    for (let i = 0; i < 65; i++) {
      lanes.advance(lane);
      lane = take(lanes);
    }
    // 65 settled of 200: the array is left as it is (copying it would cost more than it frees).
    expect(lane.head).toBe(65);
    expect(lane.entries).toHaveLength(200);
    expect(lane.entries[64]).toBeUndefined();
    expect(numberOf(lane.entries[65])).toBe(65);
  });

  it('drains every record not yet settled, lane by lane in order, and forgets every lane', () => {
    const lanes = new Lanes();
    for (let i = 0; i < 3; i++) lanes.add('a', entry(i));
    for (let i = 10; i < 12; i++) lanes.add('b', entry(i));
    const a = take(lanes);
    lanes.advance(a); // a0 settled
    expect(lanes.drain().map(numberOf)).toEqual([1, 2, 10, 11]);
    expect(lanes.count).toBe(0);
    expect(lanes.hasReady()).toBe(false);
    expect(lanes.takeReady()).toBeUndefined();
    expect(a.state).toBe('idle');
    expect(lanes.drain()).toEqual([]);
    // Adding after a drain starts afresh.
    expect(lanes.add('a', entry(7))).toBe(true);
    expect(take(lanes).entries.map(numberOf)).toEqual([7]);
  });
});
