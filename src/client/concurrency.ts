/**
 * How many requests the client keeps in flight: a window that follows the endpoint (AIMD, as TCP
 * does). It grows while requests succeed and more are waiting: fast at first (one more per
 * success, so it doubles each round trip), then by about one per round trip. It shrinks by 30%
 * (`FAILURE_FACTOR`, as CUBIC does: halving cost a lane too much for one 429 among many answers)
 * when the endpoint asks for less (a 429, an answer with `Retry-After`) or does not keep up (a
 * timeout), or when failures come `FAILURES_IN_A_ROW` in a row with no success between them (the
 * endpoint is down or failing altogether). An isolated failure (one 500, one reset connection)
 * is that request's: it costs its user's lane its backoff, not every user's window. It shrinks
 * by a fifth when the smoothed round trip rises well above the best seen (the endpoint is
 * queueing), at most once per round trip. The round trip is smoothed (as TCP's SRTT, 1/8 per
 * sample, one slow answer counting as twice the queueing mark at most) so that one slow answer,
 * or a busy moment of the bot's own event loop, does not shrink the window, and it starts again
 * from each new best round trip, so that slow first answers (new connections, a busy start) are
 * not taken for queueing once faster ones come. It never exceeds the cap (`maxConcurrency`,
 * which is also the socket pool's size) and never goes below 1.
 */

/** Requests in flight a new client starts with. */
export const INITIAL_WINDOW = 16;
/** A round trip this much slower than the best seen (and `LATENCY_SLACK_MS` more) means the endpoint is queueing. */
const LATENCY_FACTOR = 2;
const LATENCY_SLACK_MS = 20;
/** What a failure that shows the endpoint struggling leaves of the window. */
export const FAILURE_FACTOR = 0.7;
/** Failures with no success between them that show the endpoint failing altogether, not a request here and there. */
export const FAILURES_IN_A_ROW = 4;
/** The best round trip is forgotten after this long, so a slower path found later is learned. */
const MIN_RTT_WINDOW_MS = 30_000;

export class ConcurrencyWindow {
  private window: number;
  private threshold: number;
  private minRtt = Infinity;
  private minRttAt = 0;
  /** Smoothed round trip (exponentially weighted, 1/8 per sample). */
  private srtt = 0;
  /** Requests sent before this moment do not shrink the window again (one decrease per round trip). */
  private lastDecreaseAt = -Infinity;
  /** Failures since the last success. */
  private failures = 0;

  /** @param cap The most requests in flight, ever. */
  constructor(private readonly cap: number) {
    this.window = Math.min(cap, INITIAL_WINDOW);
    this.threshold = cap;
  }

  /** Requests that may be in flight now. */
  get limit(): number {
    return Math.max(1, Math.floor(this.window));
  }

  /**
   * A request sent at `sentAt` succeeded now. `saturated`: the window was full when it was sent or
   * records were waiting for a slot (only then is growing useful).
   */
  onSuccess(sentAt: number, now: number, saturated: boolean): void {
    const rtt = now - sentAt;
    this.failures = 0;
    if (rtt < this.minRtt || now - this.minRttAt > MIN_RTT_WINDOW_MS) {
      // A new best round trip: the smoothed one starts again from it. Otherwise it would still
      // carry the slower answers that came before (the first requests of new connections, a
      // moment when the bot kept the event loop busy) and, next to the new best, look like queueing.
      this.minRtt = rtt;
      this.minRttAt = now;
      this.srtt = rtt;
    }
    const queueing = this.minRtt * LATENCY_FACTOR + LATENCY_SLACK_MS;
    // One slow answer (an endpoint's hiccup, one request that waited on a lock) counts as twice the
    // queueing mark at most: it moves the smoothed round trip a little, never past the mark alone;
    // answers slow one after another (the endpoint queueing) still do.
    const sample = Math.min(rtt, 2 * queueing);
    this.srtt = this.srtt === 0 ? sample : this.srtt + (sample - this.srtt) / 8;
    if (this.srtt > queueing) {
      this.decrease(sentAt, now, 0.8);
      return;
    }
    if (!saturated) return;
    if (this.window < this.threshold) this.window += 1;
    else this.window += 1 / this.window;
    if (this.window > this.cap) this.window = this.cap;
  }

  /**
   * A request sent at `sentAt` failed and is to be retried (a network error, a 5xx, a 429).
   * `overload`: the endpoint asked for less or did not keep up (a 429, `Retry-After`, a
   * timeout): the window shrinks. Any other failure shrinks it only when it is one of
   * `FAILURES_IN_A_ROW` with no success between them.
   */
  onFailure(sentAt: number, now: number, overload: boolean): void {
    if (overload || ++this.failures >= FAILURES_IN_A_ROW) this.decrease(sentAt, now, FAILURE_FACTOR);
  }

  private decrease(sentAt: number, now: number, factor: number): void {
    if (sentAt < this.lastDecreaseAt) return;
    this.window = Math.max(1, this.window * factor);
    this.threshold = Math.max(2, this.window);
    this.lastDecreaseAt = now;
  }
}
