/**
 * The retry policy: what is retried, and how long to wait before the next attempt.
 */

/** Settings of the retry policy (all in milliseconds except `maxAttempts`). */
export interface RetrySettings {
  /** Requests per record at most, the first included. */
  maxAttempts: number;
  /** Longest time from a record's first attempt to its last. */
  maxRetryDurationMs: number;
  /** Wait before the first retry; doubles with each retry. */
  initialBackoffMs: number;
  /** Longest wait between two attempts. */
  maxBackoffMs: number;
  /** Longest `Retry-After` honoured; a longer one is capped to this. */
  maxRetryAfterMs: number;
}

/** What to do with an attempt's outcome. */
export type Verdict = 'delivered' | 'retry' | 'unauthorized' | 'rejected';

/**
 * 2xx is delivered; 408, 429 and 5xx except 501/505 are retried; 401/403 mean the key is wrong;
 * every other status is a refusal that retrying would not change.
 */
export function classifyStatus(status: number): Verdict {
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 408 || status === 429) return 'retry';
  if (status >= 500 && status <= 599 && status !== 501 && status !== 505) return 'retry';
  if (status === 401 || status === 403) return 'unauthorized';
  return 'rejected';
}

/**
 * Parses a `Retry-After` header (delay-seconds or an HTTP date) into milliseconds from `now`.
 * Returns `undefined` when absent or unparseable; never negative.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * Exponential backoff with jitter: the n-th retry (1-based) waits between half and all of
 * `initialBackoffMs * 2^(n-1)`, capped at `maxBackoffMs`. Jitter spreads retries out so that
 * records failing together do not all come back at once.
 */
export function backoffDelay(retry: number, settings: RetrySettings, random: () => number = Math.random): number {
  const ceiling = Math.min(settings.maxBackoffMs, settings.initialBackoffMs * 2 ** Math.max(0, retry - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * The wait before the next attempt: the server's `Retry-After` when given (capped at
 * `maxRetryAfterMs`, and never shorter than our own backoff would be), otherwise the backoff.
 */
export function nextDelay(retry: number, retryAfter: string | undefined, settings: RetrySettings, random?: () => number): number {
  const backoff = backoffDelay(retry, settings, random);
  const asked = parseRetryAfter(retryAfter);
  if (asked === undefined) return backoff;
  return Math.min(settings.maxRetryAfterMs, Math.max(asked, Math.min(backoff, settings.maxRetryAfterMs)));
}
