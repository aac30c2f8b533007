/**
 * How long a request may wait for the views (entries and summary tables, built behind the
 * acknowledgements: projection.ts), and what it is told past that. A read waits until the views
 * hold every record acknowledged before it; a write waits for room while the views are too far
 * behind (pace.ts, `MAX_LAG_MS`) and is not committed while it waits. Each wait is bounded
 * (`WaitBounds`): past its bound a read, or a write that is still waiting (so not stored), is
 * refused with a `CatchingUpError`, which the HTTP side answers with 503, `Retry-After` and how
 * far behind the views are.
 */

/** How long a request may wait for the views (ms). */
export interface WaitBounds {
  /** A read, before each of its queries, for the views to hold every record acknowledged before it. */
  readMs: number;
  /** A write, before it is committed, for the views to be close enough behind to take more. */
  writeMs: number;
}

/**
 * The endpoint's bounds: a write waits less than a client's own timeout (the middleware's client
 * gives up after 10 s; a write it gives up on while it waits is never stored, but one it gives up
 * on while it commits may be), a read about as long as the socket idle timeout once allowed.
 */
export const DEFAULT_WAIT_BOUNDS: WaitBounds = { readMs: 5_000, writeMs: 4_000 };

/** How far behind the views are. */
export interface Lag {
  /** Records acknowledged and not yet in the views (counted up to 200,000). */
  behindRecords: number;
  /** How long ago the oldest of them was received, in seconds (one decimal). */
  behindSeconds: number;
}

/** The longest `Retry-After` given (s): the middleware's client honours up to 30 s. */
export const MAX_RETRY_AFTER_S = 30;

/** `Retry-After` for work estimated at `ms`: whole seconds, at least 1, at most `MAX_RETRY_AFTER_S`. */
export function retryAfterSeconds(ms: number): number {
  return Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(ms / 1000)));
}

/** A request waited for the views past its bound: a read was not answered, a write was not stored. */
export class CatchingUpError extends Error {
  /**
   * @param waited What waited: a read, or a write (not stored).
   * @param waitedMs How long it waited: its bound, or less for a write refused because the endpoint is closing.
   * @param lag How far behind the views were then.
   * @param retryAfter When to try again (s): the estimated time for the views to catch up (a read) or to make room (a write).
   */
  constructor(readonly waited: 'read' | 'write', readonly waitedMs: number, readonly lag: Lag, readonly retryAfter: number) {
    super(waited === 'read'
      ? `The views are catching up (${lag.behindRecords} records to go); this read waited ${waitedMs} ms for them, its bound (maxReadWaitMs). Try again in ${retryAfter} s.`
      : `The record was not stored: the views are catching up (${lag.behindRecords} records behind) and it waited ${waitedMs} ms for room to be taken (maxWriteWaitMs, less when the endpoint is closing). Send it again in ${retryAfter} s.`);
    this.name = 'CatchingUpError';
  }
}
