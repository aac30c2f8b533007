/** What a request that waited for the views past its bound is told (store/catching-up.ts): the error, its fields and message, and when to come back. */
import { describe, expect, it } from 'vitest';
import { CatchingUpError, DEFAULT_WAIT_BOUNDS, MAX_RETRY_AFTER_S, retryAfterSeconds } from '../../src/store/catching-up.js';

describe('CatchingUpError', () => {
  it('for a read: says how many records are to go, how long it waited, its bound, and when to try again', () => {
    const error = new CatchingUpError('read', 5_000, { behindRecords: 1234, behindSeconds: 2.5 }, 3);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('CatchingUpError');
    expect(error.waited).toBe('read');
    expect(error.waitedMs).toBe(5_000);
    expect(error.lag).toEqual({ behindRecords: 1234, behindSeconds: 2.5 });
    expect(error.retryAfter).toBe(3);
    expect(error.message).toBe('The views are catching up (1234 records to go); this read waited 5000 ms for them, its bound (maxReadWaitMs). Try again in 3 s.');
  });

  it('for a write: says it was not stored, how far behind the views are, how long it waited, and when to send it again', () => {
    const error = new CatchingUpError('write', 4_012, { behindRecords: 80_000, behindSeconds: 9.1 }, 7);
    expect(error.waited).toBe('write');
    expect(error.message).toBe('The record was not stored: the views are catching up (80000 records behind) and it waited 4012 ms for room to be taken (maxWriteWaitMs, less when the endpoint is closing). Send it again in 7 s.');
  });
});

describe('retryAfterSeconds', () => {
  it('gives whole seconds, rounded up, at least 1 and at most 30', () => {
    expect(MAX_RETRY_AFTER_S).toBe(30);
    expect([-5, 0, 1, 999, 1000, 1001, 2500, 29_999, 30_000, 30_001, 1e9].map(retryAfterSeconds)).toEqual([1, 1, 1, 1, 1, 2, 3, 30, 30, 30, 30]);
  });
});

describe('DEFAULT_WAIT_BOUNDS', () => {
  it('lets a write wait 4 s, less than the middleware client waits for an answer (10 s), and a read 5 s', () => {
    expect(DEFAULT_WAIT_BOUNDS).toEqual({ readMs: 5_000, writeMs: 4_000 });
  });
});
