/**
 * Error classes, one per failure kind. Messages say what to do; none of them ever carries the
 * API key, an access token, or a record's content.
 */
import type { ValidationIssue } from '../protocol/index.js';

/** Base class of every error this package raises. */
export class TrackingError extends Error {
  override name = 'TrackingError';
}

function listIssues(issues: readonly ValidationIssue[]): string {
  return issues
    .map((i) => (i.received === 'missing' ? `${i.path} is required but missing` : `${i.path}: expected ${i.expected}, got ${i.received}`))
    .join('; ');
}

/**
 * A record (or an option) breaks the spec. Nothing was sent. `issues` lists every offending
 * field path with what was expected there.
 */
export class TrackingValidationError extends TrackingError {
  override name = 'TrackingValidationError';
  /** Every problem found, with its field path. */
  readonly issues: readonly ValidationIssue[];

  constructor(what: string, issues: readonly ValidationIssue[]) {
    super(`${what} does not conform to the tracking spec and was not sent: ${listIssues(issues)}`);
    this.issues = issues;
  }
}

/**
 * The client's options are missing or wrong (for example no API key in the environment, or a
 * placeholder such as `<API_KEY>`). Thrown by the constructor. It is also a
 * `TrackingValidationError`, with the option's name as the issue path.
 */
export class TrackingConfigError extends TrackingValidationError {
  override name = 'TrackingConfigError';

  constructor(message: string, issues: readonly ValidationIssue[]) {
    // Stryker disable next-line StringLiteral: the message built from this subject is replaced on the next line
    super('options', issues);
    this.message = message;
  }
}

/** Why a record was given up. */
export type DeliveryFailureReason =
  /** The queue was full (`maxQueueSize`); the record was never sent. */
  | 'queue-full'
  /** The client was closed before the record was logged; it was never sent. */
  | 'client-closed'
  /** `close()` reached its deadline before the record could be delivered. */
  | 'close-deadline'
  /** The endpoint refused the record with a status that is not retried (a 4xx other than 408/429, 501, 505). */
  | 'rejected'
  /** The endpoint answered 401 or 403: the API key is wrong or not allowed. */
  | 'unauthorized'
  /** Every attempt failed with a retryable error, up to `maxAttempts`. */
  | 'retries-exhausted'
  /** Retrying would exceed the record's total time budget (`maxRetryDurationMs`). */
  | 'retry-budget-exceeded'
  /** Not delivered by this process, but saved to `persistDir`: the next client started with that directory sends it. */
  | 'persisted';

/**
 * A record was given up: it will not be delivered. `reason` says why; `status` is the last
 * HTTP status received (undefined when no response came back); `attempts` how many requests
 * were made for it.
 */
export class TrackingDeliveryError extends TrackingError {
  override name = 'TrackingDeliveryError';
  readonly reason: DeliveryFailureReason;
  readonly status: number | undefined;
  readonly attempts: number;

  constructor(reason: DeliveryFailureReason, message: string, details: { status?: number; attempts?: number; cause?: unknown } = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.reason = reason;
    this.status = details.status;
    this.attempts = details.attempts ?? 0;
  }
}
