/**
 * How fast the views are built behind the acknowledgements (projection.ts): the size of a batch,
 * how far the views may fall behind, and the share of the time they take while records arrive.
 * Pure functions of what the projection measured, so each rule is tested on its own
 * (endpoint/test/store/pace.test.ts); projection.ts runs them.
 */

/**
 * How far the views may fall behind, as the work it would take to catch up (ms of CPU), before
 * acknowledgements wait for them: about what a read waits for, at most, after a burst.
 */
export const MAX_LAG_MS = 10_000;
/** The same bound in records: at least, and at most. */
export const BACKLOG_RECORDS = [5_000, 200_000] as const;
/** Most records in one projection transaction. */
export const MAX_BATCH = 4_000;
/** How long one transaction should take (ms of CPU): long enough that its fixed costs are small, short enough not to hold acknowledgements up long. */
export const BATCH_MS = 50;
/** No append for this long (ms): records stopped arriving, for now. */
export const IDLE_MS = 20;
/** While records arrive, the share of the time the views take to keep up with them, at most (unless they fall far behind). */
export const KEEP_UP_SHARE = 0.2;
/** Below this share the views wait rather than build a batch. */
export const MIN_SHARE = 0.005;
/** Longest pause between two batches while records arrive (ms). */
export const MAX_PAUSE_MS = 2_000;
/** Batches of fewer records than this say too little about the cost of one. */
export const MIN_SAMPLE = 100;
/** First and longest pause before trying again after the database could not write (ms). */
export const RETRY_MS = [250, 5_000] as const;

/** What the next batch depends on. */
export interface PaceState {
  /** Something waits for the views: a read, acknowledgements, or the end. */
  urgent: boolean;
  /** Records are being built one at a time, to find the one the database refuses. */
  isolating: boolean;
  /** Records acknowledged and not yet in the views. */
  backlog: number;
  /** Cost of one record (ms of CPU). */
  msPerRecord: number;
  /** Records arriving per second (smoothed). */
  rate: number;
  /** Appends waiting to be committed. */
  pending: number;
  /** Time since the last append (ms). */
  idleMs: number;
}

/** How many records the views may fall behind, at `msPerRecord`. */
export function maxBacklog(msPerRecord: number): number {
  return Math.max(BACKLOG_RECORDS[0], Math.min(BACKLOG_RECORDS[1], Math.round(MAX_LAG_MS / msPerRecord)));
}

/** Records in a batch that takes about `BATCH_MS`, at `msPerRecord`: at least one, at most `MAX_BATCH`. */
export function batchSize(msPerRecord: number): number {
  return Math.max(1, Math.min(MAX_BATCH, Math.round(BATCH_MS / msPerRecord)));
}

/**
 * The next transaction: how many records (`limit`, 0: none now), and the share of the time the
 * views take while records arrive (the rest goes to acknowledgements). All of it when something
 * waits for the views or nothing arrived for `IDLE_MS`. While records arrive: what keeping up with
 * them takes (at the measured rate and cost, with a 25% margin), up to `KEEP_UP_SHARE`; and once
 * the views are more than half the bound behind, more and more (all of it at the bound). So a
 * burst is acknowledged at (nearly) full speed, and a load the endpoint can carry is in the views
 * within moments.
 */
export function nextBatch(state: PaceState): { limit: number; share: number } {
  const size = batchSize(state.msPerRecord);
  if (state.isolating) return { limit: 1, share: 1 };
  if (state.urgent || (state.pending === 0 && state.idleMs >= IDLE_MS)) return { limit: size, share: 1 };
  const keepUp = Math.min(KEEP_UP_SHARE, (1.25 * state.rate * state.msPerRecord) / 1000);
  const over = state.backlog / maxBacklog(state.msPerRecord) - 0.5;
  const share = Math.max(keepUp, over <= 0 ? 0 : Math.min(1, (2 * over) ** 2));
  return state.backlog === 0 || share < MIN_SHARE ? { limit: 0, share } : { limit: size, share };
}

/** The arrival rate (records/s) after `arrived` records in `sinceMs`: smoothed over about a second. */
export function smoothedRate(rate: number, arrived: number, sinceMs: number): number {
  const weight = Math.min(1, sinceMs / 1000);
  return (1 - weight) * rate + weight * ((arrived * 1000) / sinceMs);
}

/** The cost of one record after a batch of `records` took `cpuMs`: batches under `MIN_SAMPLE` records leave it as it was. */
export function measuredCost(msPerRecord: number, cpuMs: number, records: number): number {
  return records < MIN_SAMPLE ? msPerRecord : 0.7 * msPerRecord + 0.3 * (cpuMs / records);
}

/** The pause after a batch that took `tookMs`, so that the views take `share` of the time. */
export function pauseAfter(tookMs: number, share: number): number {
  return Math.min(MAX_PAUSE_MS, tookMs * (1 / share - 1));
}

/** The pause before the next try after the database could not write, after `ms`: doubled, up to `RETRY_MS[1]`. */
export function nextRetry(ms: number): number {
  return Math.min(ms * 2, RETRY_MS[1]);
}
