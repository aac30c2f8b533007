/**
 * How fast the views are built behind the acknowledgements (store/pace.ts): the batch size and
 * the bound follow the measured cost of a record; a burst leaves the acknowledgements (nearly) all
 * the time, a steady load gets what keeping up needs, and the views take more and more as they
 * approach the bound; whatever waits for the views gets all of it.
 */
import { describe, expect, it } from 'vitest';
import { BACKLOG_RECORDS, MAX_BATCH, MAX_PAUSE_MS, RETRY_MS, batchSize, maxBacklog, measuredCost, nextBatch, nextRetry, pauseAfter, smoothedRate, type PaceState } from '../../src/store/pace.js';

/** Records arriving at 1,000/s, 0.1 ms each, 100 behind: a steady load the endpoint carries. */
const arriving: PaceState = { urgent: false, isolating: false, backlog: 100, msPerRecord: 0.1, rate: 1_000, pending: 0, idleMs: 5 };

describe('the size of a batch and the bound on the backlog', () => {
  it('a batch is about 50 ms of work: 500 records at 0.1 ms each, one at 100 ms, never more than 4,000', () => {
    expect(batchSize(0.1)).toBe(500);
    expect(batchSize(0.0125)).toBe(4_000);
    expect(batchSize(0.001)).toBe(MAX_BATCH);
    expect(batchSize(100)).toBe(1);
    expect(batchSize(30)).toBe(2);
  });

  it('the views may fall 10 s of work behind: 100,000 records at 0.1 ms, at least 5,000 and at most 200,000', () => {
    expect(maxBacklog(0.1)).toBe(100_000);
    expect(maxBacklog(1)).toBe(10_000);
    expect(maxBacklog(10)).toBe(BACKLOG_RECORDS[0]);
    expect(maxBacklog(0.01)).toBe(BACKLOG_RECORDS[1]);
    expect(maxBacklog(0.03)).toBe(200_000);
    expect(maxBacklog(1.5)).toBe(6_667);
  });
});

describe('the next batch', () => {
  it('one record at a time, with all the time, while looking for the record the database refuses', () => {
    expect(nextBatch({ ...arriving, isolating: true })).toEqual({ limit: 1, share: 1 });
    expect(nextBatch({ ...arriving, isolating: true, urgent: true, backlog: 0 })).toEqual({ limit: 1, share: 1 });
  });

  it('a full batch with all the time when something waits for the views, even while records arrive', () => {
    expect(nextBatch({ ...arriving, urgent: true, pending: 10 })).toEqual({ limit: 500, share: 1 });
  });

  it('a full batch with all the time once nothing arrived for 20 ms and no append waits', () => {
    expect(nextBatch({ ...arriving, idleMs: 20 })).toEqual({ limit: 500, share: 1 });
    expect(nextBatch({ ...arriving, idleMs: 19.9 }).share).toBeLessThan(1);
    expect(nextBatch({ ...arriving, idleMs: 1_000, pending: 1 }).share).toBeLessThan(1);
  });

  it('while records arrive, the share keeping up takes, with a 25% margin: 1,000/s at 0.1 ms is 12.5%', () => {
    expect(nextBatch(arriving)).toEqual({ limit: 500, share: 0.125 });
    // 400/s at 0.5 ms would be 25%: capped at 20%.
    expect(nextBatch({ ...arriving, rate: 400, msPerRecord: 0.5 })).toEqual({ limit: 100, share: 0.2 });
    expect(nextBatch({ ...arriving, rate: 200, msPerRecord: 0.5 })).toEqual({ limit: 100, share: 0.125 });
  });

  it('never more than 20% to keep up, while the views are less than half the bound behind', () => {
    expect(nextBatch({ ...arriving, rate: 100_000 })).toEqual({ limit: 500, share: 0.2 });
    expect(nextBatch({ ...arriving, rate: 100_000, backlog: 50_000 })).toEqual({ limit: 500, share: 0.2 });
  });

  it('past half the bound, more and more: a quarter at three quarters, all of it at the bound and beyond', () => {
    expect(nextBatch({ ...arriving, rate: 0, backlog: 75_000 })).toEqual({ limit: 500, share: 0.25 });
    expect(nextBatch({ ...arriving, rate: 0, backlog: 60_000 }).share).toBeCloseTo(0.04, 10);
    expect(nextBatch({ ...arriving, rate: 0, backlog: 100_000 })).toEqual({ limit: 500, share: 1 });
    expect(nextBatch({ ...arriving, rate: 0, backlog: 150_000 })).toEqual({ limit: 500, share: 1 });
    // Keeping up asks more than the backlog does: keeping up wins.
    expect(nextBatch({ ...arriving, rate: 100_000, backlog: 55_000 }).share).toBe(0.2);
  });

  it('no batch when nothing is behind, or when the share is too small to be worth a transaction', () => {
    expect(nextBatch({ ...arriving, backlog: 0 })).toEqual({ limit: 0, share: 0.125 });
    // 30 records/s at 0.1 ms: 0.375% of the time, under the 0.5% a batch is worth.
    expect(nextBatch({ ...arriving, rate: 30 })).toEqual({ limit: 0, share: 0.00375 });
    // 40 records/s: 0.5% exactly, a batch.
    expect(nextBatch({ ...arriving, rate: 40 })).toEqual({ limit: 500, share: 0.005 });
  });
});

describe('what the pace is measured from', () => {
  it('the arrival rate is smoothed over about a second', () => {
    expect(smoothedRate(0, 100, 1_000)).toBe(100);
    expect(smoothedRate(500, 100, 2_000)).toBe(50);
    // Half a second: half the old rate, half the new (100 in 0.5 s is 200/s).
    expect(smoothedRate(1_000, 100, 500)).toBe(600);
    expect(smoothedRate(1_000, 0, 100)).toBe(900);
  });

  it('the cost of a record follows the batches of 100 or more (70% old, 30% new), and ignores smaller ones', () => {
    expect(measuredCost(0.1, 50, 100)).toBeCloseTo(0.22, 10);
    expect(measuredCost(0.1, 1_000, 99)).toBe(0.1);
    expect(measuredCost(1, 100, 1_000)).toBeCloseTo(0.73, 10);
  });

  it('the pause after a batch leaves the rest of the time to acknowledgements, at most 2 s', () => {
    expect(pauseAfter(10, 0.2)).toBe(40);
    expect(pauseAfter(10, 0.5)).toBe(10);
    expect(pauseAfter(10, 1)).toBe(0);
    expect(pauseAfter(100, 0.01)).toBe(MAX_PAUSE_MS);
  });

  it('after the database could not write, the pause before the next try doubles from 250 ms up to 5 s', () => {
    const pauses: number[] = [RETRY_MS[0]];
    while (pauses.length < 7) pauses.push(nextRetry(pauses.at(-1)!));
    expect(pauses).toEqual([250, 500, 1_000, 2_000, 4_000, 5_000, 5_000]);
  });
});
