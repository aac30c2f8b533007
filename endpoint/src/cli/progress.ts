/** A one-line progress bar on a terminal; silent when the stream is not a TTY. */

/** Draws `label [#####-----] 50% 5/10` on `stream`, at most every `intervalMs`. */
export class ProgressBar {
  private lastDraw = 0;
  private readonly enabled: boolean;

  /**
   * @param stream Where to draw (stderr, so stdout stays clean for the summary).
   * @param total The count that means 100%.
   * @param intervalMs Least time between two redraws. Default 100.
   */
  constructor(
    private readonly stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
    private readonly total: number,
    private readonly label: string,
    private readonly intervalMs = 100,
  ) {
    this.enabled = stream.isTTY === true && total > 0;
  }

  /** Shows `done` of the total; redraws only when `intervalMs` has passed (or at 100%). */
  update(done: number): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.lastDraw < this.intervalMs && done < this.total) return;
    this.lastDraw = now;
    const ratio = Math.min(1, done / this.total);
    const width = Math.max(10, Math.min(40, (this.stream.columns ?? 80) - this.label.length - 30));
    const filled = Math.round(ratio * width);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
    this.stream.write(`\r${this.label} [${bar}] ${String(Math.round(ratio * 100)).padStart(3)}% ${done}/${this.total}`);
  }

  /** Erases the bar, so what follows starts on a clean line. */
  done(): void {
    if (this.enabled) this.stream.write('\r\x1b[K');
  }
}
