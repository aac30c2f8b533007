/**
 * Where every refused or given-up record is reported: the user's `onError`, or else the logger.
 *
 * A run of identical failures (same reason, same HTTP status, same network error code: a refused
 * connection and a timeout are two causes, each warned) is warned about once, in full; the
 * ones after it are counted, and a short "still failing: N more" line sums them up at most every
 * `SUMMARY_INTERVAL_MS` (written when the next one comes, never by a timer), when the run ends, and
 * at close. A run ends when no such failure has come for `RUN_GAP_MS`: the next one is warned in
 * full again. A key the endpoint refuses (401/403) is an error, counted like the rest.
 */
import type { PlatformKind, RecordType } from '../protocol/index.js';
import { errorCode } from './diagnose.js';
import { TrackingDeliveryError, type DeliveryFailureReason, type TrackingError } from './errors.js';
import type { SafeLogger } from './logger.js';
import type { TrackingClientOptions } from './options.js';

/** After a run's first warning, how often at most a line sums up the failures counted since. */
export const SUMMARY_INTERVAL_MS = 5 * 60_000;
/** A run of identical failures ends after this long without one. */
export const RUN_GAP_MS = 5 * 60_000;
/** Runs tracked at once; past it, failures that are not delivery failures share a run per error class. */
const MAX_RUNS = 100;

interface Run {
  /** What the summary lines call it: the reason, and the HTTP status or network error code if any. */
  what: string;
  level: 'warn' | 'error';
  /** Failures counted since the last line written about this run. */
  count: number;
  /** When the last line about this run was written. */
  reportedAt: number;
  /** When the last failure of this run came. */
  lastAt: number;
}

export class Reporter {
  private readonly runs = new Map<string, Run>();

  constructor(
    private readonly onError: TrackingClientOptions['onError'],
    private readonly log: SafeLogger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Every refused or given-up record ends here: the user's onError, or the logger (once per run of identical failures). */
  report(error: TrackingError, label: string, record?: { platform: PlatformKind; type: RecordType }): void {
    if (this.onError !== undefined) {
      try {
        this.onError(error, record);
      } catch {
        // onError must not break delivery.
      }
      return;
    }
    const delivery = error instanceof TrackingDeliveryError ? error : undefined;
    const reason = delivery?.reason ?? error.name;
    const code = delivery === undefined ? undefined : errorCode(delivery.cause as Error | undefined);
    const key = this.keyOf(reason, delivery?.status, code, delivery === undefined ? error.message : undefined);
    if (this.counted(key)) return;
    const now = this.now();
    const what = delivery?.status !== undefined ? `${reason}, HTTP ${delivery.status}` : code !== undefined ? `${reason}, ${code}` : reason;
    const level = reason === ('unauthorized' satisfies DeliveryFailureReason) ? 'error' : 'warn';
    this.runs.set(key, { what, level, count: 0, reportedAt: now, lastAt: now });
    const fields: Record<string, unknown> = { reason, record: label };
    if (delivery?.status !== undefined) fields.status = delivery.status;
    if (code !== undefined) fields.code = code;
    this.log[level](fields, error.message);
  }

  /**
   * `report` for a refusal nobody may get to see: without `onError`, a failure that only adds to a
   * run's count is counted without the error ever being made. A burst of drops then costs no error
   * objects (each captures a stack trace).
   */
  reportLazily(reason: DeliveryFailureReason, label: string, refusal: () => TrackingError): void {
    // With onError, no run is ever recorded: counted() is false, and the refusal is made and handed over.
    if (this.counted(this.keyOf(reason, undefined, undefined, undefined))) return;
    this.report(refusal(), label);
  }

  /** Sums up what each run counted since its last line, and forgets the runs (used at close). */
  flush(): void {
    // Stryker disable next-line StringLiteral: sumUp only tells 'ongoing' from any other state
    for (const run of this.runs.values()) this.sumUp(run, 'ended');
    this.runs.clear();
  }

  /**
   * Counts a failure into its run when one is under way (writing the periodic summary when it is
   * due) and returns true; returns false when the failure starts a new run (after summing up the
   * old one), so the caller warns in full.
   */
  private counted(key: string): boolean {
    const run = this.runs.get(key);
    if (run === undefined) return false;
    const now = this.now();
    if (now - run.lastAt > RUN_GAP_MS) {
      // Stryker disable next-line StringLiteral: sumUp only tells 'ongoing' from any other state
      this.sumUp(run, 'ended');
      this.runs.delete(key);
      return false;
    }
    run.count++;
    run.lastAt = now;
    if (now - run.reportedAt >= SUMMARY_INTERVAL_MS) {
      this.sumUp(run, 'ongoing');
      run.reportedAt = now;
    }
    return true;
  }

  private sumUp(run: Run, state: 'ongoing' | 'ended'): void {
    if (run.count === 0) return;
    const count = run.count;
    run.count = 0;
    const line =
      state === 'ongoing'
        ? `still failing: ${count} more records refused or given up (${run.what}) since the last report, as reported above`
        : `${count} more records were refused or given up (${run.what}) since the last report`;
    this.log[run.level]({ reason: run.what, count }, line);
  }

  /** Identical failures share a key: a delivery failure by reason, status and network error code, any other error by its message. */
  private keyOf(reason: string, status: number | undefined, code: string | undefined, message: string | undefined): string {
    // Stryker disable next-line StringLiteral: the text for "no status" or "no code" only has to differ from every status and code; any does
    if (message === undefined) return `${reason}:${status ?? ''}:${code ?? ''}`;
    const key = `${reason}:${message.slice(0, 300)}`;
    return this.runs.has(key) || this.runs.size < MAX_RUNS ? key : reason;
  }
}
