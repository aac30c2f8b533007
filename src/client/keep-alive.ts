/**
 * What a caller awaits keeps the process alive until it settles. Nothing else of the client does
 * (see exit-guard.ts): its backoff timers and sockets are unref'd, so a process that has nothing
 * else to do reaches `beforeExit`, where the exit guard closes the client within `closeTimeoutMs`.
 * That is right for records nobody waits for, and wrong for a caller that awaits `flush()` or a log
 * call's promise: it asked for the outcome, and must get it, by delivery or by the retry caps, not
 * by the exit guard's deadline.
 *
 * So while a caller waits, one ref'd timer (a keep-alive, shared by every wait of the client) holds
 * the process open; it is cleared as soon as the last wait ends, so an idle client holds no timer.
 * A log call's promise counts as awaited once a fulfilment handler is attached to it (`await`,
 * `.then(f)`, `.finally(f)`, `Promise.all`): a rejection handler alone (`.catch(log)`, the usual
 * way to fire and forget) does not hold the process.
 */
import type { RecordWaiter } from './delivery-types.js';
import type { TrackResult } from './delivery-queue.js';
import type { TrackingDeliveryError } from './errors.js';

/** Longer than any wait: the timer never fires; it only holds the process while it exists. */
const FOREVER_MS = 2 ** 31 - 1;
const noop = () => undefined;

/** Counts the waits under way; holds the process open while there is one. */
export class KeepAlive {
  private waits = 0;
  private timer: NodeJS.Timeout | undefined;

  /** Waits under way (for tests and the exit guard). */
  get count(): number {
    return this.waits;
  }

  /** A wait begins: the process is held open until `release()`. */
  hold(): void {
    if (this.waits++ === 0) this.timer = setInterval(noop, FOREVER_MS);
  }

  /** A wait ended: once none is left, the process is let go. */
  release(): void {
    if (--this.waits > 0) return;
    this.waits = 0;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Runs `work`, holding the process open until the promise it returns settles. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    this.hold();
    try {
      return await work();
    } finally {
      this.release();
    }
  }
}

/**
 * The promise a log call returns: a `Promise` in every way, except that a fulfilment handler
 * attached before it settles holds the process open (its client's `KeepAlive`) until it does.
 * Promises derived from it (`.then`, `.catch`) are plain promises.
 */
export class TrackPromise extends Promise<TrackResult> {
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  /** The wait this promise holds, once awaited; `undefined` before and once settled. */
  private keepAlive: KeepAlive | undefined;
  /** Whether it has settled (then nothing is held for it). */
  private done = false;
  /** Whether it holds the keep-alive now. */
  private holding = false;

  override then<A = TrackResult, B = never>(
    onFulfilled?: ((value: TrackResult) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    if (typeof onFulfilled === 'function' && !this.done && !this.holding && this.keepAlive !== undefined) {
      this.holding = true;
      this.keepAlive.hold();
    }
    return super.then(onFulfilled, onRejected);
  }

  /**
   * Makes a pending promise of `keepAlive`'s client and the waiter that settles it (given to the
   * queued record). Already marked as handled: ignoring it never raises an unhandled rejection.
   */
  static pending(keepAlive: KeepAlive): { promise: TrackPromise; waiter: RecordWaiter } {
    let resolve!: (value: TrackResult) => void;
    let reject!: (error: TrackingDeliveryError) => void;
    const promise = new TrackPromise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.keepAlive = keepAlive;
    // Marked handled without holding anything (Promise.prototype.then, not ours).
    Promise.prototype.then.call(promise, undefined, noop);
    const settle = () => {
      promise.done = true;
      if (promise.holding) {
        promise.holding = false;
        keepAlive.release();
      }
    };
    return {
      promise,
      waiter: {
        resolve(result) {
          resolve(result);
          settle();
        },
        reject(error) {
          reject(error);
          settle();
        },
      },
    };
  }
}
