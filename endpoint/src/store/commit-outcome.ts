/**
 * A commit whose answer was lost: the COMMIT was sent, and the connection failed before the
 * database said whether it committed. The records may be stored or not; an answer of "not stored"
 * would invite a retry that stores them twice, an answer of "stored" could lose them. So the store
 * asks the database, once it answers again, whether the rows the transaction wrote are there (each
 * by its number and what it holds), for up to a bound; past it, the outcome is unknown.
 *
 * Why the rows rather than `pg_xact_status()`: after a crash and a restart, a transaction id (and
 * a sequence's numbers) handed out just before the crash may be handed out again, to another
 * transaction, when the first one never reached the disk; a row whose number and contents are
 * this transaction's can only be there if this transaction committed. (docs/decisions.md)
 */

/** What a lost commit turned out to be. */
export type CommitOutcome = 'committed' | 'not committed' | 'unknown';

/** How long a store keeps asking whether a lost commit committed, by default (ms): under the endpoint's 5 s request timeout. */
export const COMMIT_CHECK_MS = 4_000;

/** The pause between two questions while the database does not answer (ms). */
export const COMMIT_CHECK_RETRY_MS = 100;

/** `check()`'s answer, or `undefined` when it failed or did not come within `ms`. */
async function answerWithin(check: () => Promise<boolean>, ms: number): Promise<boolean | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([check().catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asks `check` (true: every row the transaction wrote is there; false: not; a rejection: the
 * database cannot answer now) until it answers, every `retryMs`, for at most `boundMs`. Resolves
 * `'unknown'` when no answer came in time; never rejects.
 */
export async function resolveCommitOutcome(check: () => Promise<boolean>, boundMs: number = COMMIT_CHECK_MS, retryMs: number = COMMIT_CHECK_RETRY_MS): Promise<CommitOutcome> {
  const deadline = performance.now() + boundMs;
  for (let left = boundMs; left > 0; left = deadline - performance.now()) {
    const stored = await answerWithin(check, left);
    if (stored !== undefined) return stored ? 'committed' : 'not committed';
    const pause = Math.min(retryMs, deadline - performance.now());
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
  }
  return 'unknown';
}
