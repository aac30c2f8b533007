/**
 * What a caller awaits holds the process open until it settles (keep-alive.ts): the keep-alive's
 * count and timer, and which handlers attached to a log call's promise count as awaiting it.
 * (That the process is really held, and let go, is tested with whole processes in
 * test/faults/awaited-delivery.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TrackingDeliveryError } from '../../src/index.js';
import { KeepAlive, TrackPromise } from '../../src/client/keep-alive.js';

const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
const DELIVERED = { status: 'delivered', httpStatus: 200, attempts: 1 } as const;

let keepAlive: KeepAlive;
afterEach(() => {
  while (keepAlive?.count > 0) keepAlive.release();
});

describe('KeepAlive', () => {
  it('holds one timer while any wait is under way, and none once the last ends', () => {
    keepAlive = new KeepAlive();
    const before = timers();
    keepAlive.hold();
    keepAlive.hold();
    expect(keepAlive.count).toBe(2);
    expect(timers()).toBe(before + 1);
    keepAlive.release();
    expect(timers()).toBe(before + 1);
    keepAlive.release();
    expect(keepAlive.count).toBe(0);
    expect(timers()).toBe(before);
    // Released once too often: still none, and the next hold holds again.
    keepAlive.release();
    expect(keepAlive.count).toBe(0);
    keepAlive.hold();
    expect(keepAlive.count).toBe(1);
    expect(timers()).toBe(before + 1);
    keepAlive.release();
    expect(timers()).toBe(before);
  });

  it('during(): holds while the work runs, and lets go when it resolves or rejects', async () => {
    keepAlive = new KeepAlive();
    let seen = -1;
    await expect(keepAlive.during(async () => ((seen = keepAlive.count), 'done'))).resolves.toBe('done');
    expect(seen).toBe(1);
    expect(keepAlive.count).toBe(0);
    await expect(keepAlive.during(() => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(keepAlive.count).toBe(0);
  });
});

describe('the promise a log call returns', () => {
  it('is a Promise, and promises made from it are plain ones', async () => {
    keepAlive = new KeepAlive();
    const { promise, waiter } = TrackPromise.pending(keepAlive);
    expect(promise).toBeInstanceOf(Promise);
    const derived = promise.then((r) => r.status);
    expect(derived.constructor).toBe(Promise);
    waiter.resolve(DELIVERED);
    await expect(derived).resolves.toBe('delivered');
  });

  it('awaited (a fulfilment handler attached) holds the process once, until it settles', async () => {
    keepAlive = new KeepAlive();
    const { promise, waiter } = TrackPromise.pending(keepAlive);
    expect(keepAlive.count).toBe(0);
    const awaited = (async () => await promise)();
    await Promise.resolve();
    expect(keepAlive.count).toBe(1);
    void promise.then(() => undefined);
    void promise.finally(() => undefined);
    expect(keepAlive.count).toBe(1);
    waiter.resolve(DELIVERED);
    expect(keepAlive.count).toBe(0);
    await expect(awaited).resolves.toEqual(DELIVERED);
    // Settled: awaiting it again holds nothing.
    await promise;
    expect(keepAlive.count).toBe(0);
  });

  it('lets go when it rejects', async () => {
    keepAlive = new KeepAlive();
    const { promise, waiter } = TrackPromise.pending(keepAlive);
    const all = Promise.allSettled([promise]);
    await Promise.resolve();
    expect(keepAlive.count).toBe(1);
    waiter.reject(new TrackingDeliveryError('retries-exhausted', 'gave up'));
    expect(keepAlive.count).toBe(0);
    expect((await all)[0].status).toBe('rejected');
  });

  it('a rejection handler alone (.catch, the way to fire and forget) holds nothing, and ignored it never becomes an unhandled rejection', async () => {
    keepAlive = new KeepAlive();
    const { promise, waiter } = TrackPromise.pending(keepAlive);
    const caught = promise.catch(() => 'caught');
    void promise.then(null, () => undefined);
    expect(keepAlive.count).toBe(0);
    waiter.reject(new TrackingDeliveryError('retries-exhausted', 'gave up'));
    await expect(caught).resolves.toBe('caught');
    const ignored = TrackPromise.pending(keepAlive);
    ignored.waiter.reject(new TrackingDeliveryError('retries-exhausted', 'gave up'));
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
});

describe('what a wait holds, at its edges', () => {
  it('its timer is one Node takes as it is (no TimeoutOverflowWarning, which would make it fire every millisecond)', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      keepAlive = new KeepAlive();
      keepAlive.hold();
      await new Promise((resolve) => setImmediate(resolve));
      keepAlive.release();
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'TimeoutOverflowWarning')).toEqual([]);
  });

  it('a log call nobody awaited, settling, does not let go of a wait under way (a flush)', () => {
    keepAlive = new KeepAlive();
    keepAlive.hold();
    const { promise, waiter } = TrackPromise.pending(keepAlive);
    void promise.catch(() => undefined);
    waiter.resolve(DELIVERED);
    expect(keepAlive.count).toBe(1);
    const other = TrackPromise.pending(keepAlive);
    other.waiter.reject(new TrackingDeliveryError('rejected', 'refused'));
    expect(keepAlive.count).toBe(1);
    keepAlive.release();
    expect(keepAlive.count).toBe(0);
  });
});
