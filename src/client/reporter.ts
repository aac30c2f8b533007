/**
 * Where every refused or given-up record is reported: the user's `onError`, or else a warning
 * through the logger, at most one per reason every 10 s (the rest are counted and summed up in
 * the next warning or at close), and one error for a key the endpoint does not accept.
 */
import type { PlatformKind, RecordType } from '../protocol/index.js';
import { TrackingDeliveryError, type DeliveryFailureReason, type TrackingError } from './errors.js';
import type { SafeLogger } from './logger.js';
import type { TrackingClientOptions } from './options.js';

/** Warnings of one reason closer together than this are counted, not printed. */
const REPORT_WINDOW_MS = 10_000;

export class Reporter {
  private readonly windows = new Map<string, { at: number; suppressed: number }>();
  private keyProblemReported = false;

  constructor(private readonly onError: TrackingClientOptions['onError'], private readonly log: SafeLogger) {}

  /** Every refused or given-up record ends here: the user's onError, or a rate-limited warning. */
  report(error: TrackingError, label: string, record?: { platform: PlatformKind; type: RecordType }): void {
    if (this.onError !== undefined) {
      try {
        this.onError(error, record);
      } catch {
        // onError must not break delivery.
      }
      return;
    }
    const reason = error instanceof TrackingDeliveryError ? error.reason : error.name;
    if (reason === ('unauthorized' satisfies DeliveryFailureReason)) {
      if (this.keyProblemReported) return;
      this.keyProblemReported = true;
      this.log.error({ status: (error as TrackingDeliveryError).status }, error.message);
      return;
    }
    const now = Date.now();
    const window = this.windows.get(reason);
    if (window !== undefined && now - window.at < REPORT_WINDOW_MS) {
      window.suppressed++;
      return;
    }
    const more = window !== undefined && window.suppressed > 0 ? ` (${window.suppressed} more like it since the last report)` : '';
    this.windows.set(reason, { at: now, suppressed: 0 });
    this.log.warn({ reason, record: label }, `${error.message}${more}`);
  }

  /**
   * `report` for a refusal nobody may get to see: without `onError`, a warning the rate limit
   * would hold back only counts, and the error is never made. A burst of drops then costs no
   * error objects (each captures a stack trace).
   */
  reportLazily(reason: DeliveryFailureReason, label: string, refusal: () => TrackingError): void {
    if (this.onError === undefined && reason !== 'unauthorized') {
      const window = this.windows.get(reason);
      if (window !== undefined && Date.now() - window.at < REPORT_WINDOW_MS) {
        window.suppressed++;
        return;
      }
    }
    this.report(refusal(), label);
  }

  /** Says how many reports the rate limit held back, per reason, and starts over. */
  flush(): void {
    for (const [reason, window] of this.windows) {
      if (window.suppressed > 0) this.log.warn({ reason, count: window.suppressed }, `${window.suppressed} more records were refused or given up (${reason}) since the last report`);
    }
    this.windows.clear();
  }
}
