/**
 * The views (transcript entries and every summary table the read side queries), built behind the
 * acknowledgements. A record is acknowledged once its row is committed with a mark in
 * `unprojected`; the projection takes marked records in number order, in batches, writes what
 * they add to the views and removes their marks in ONE transaction. So a crash at any point
 * leaves every record either in the views or still marked, and what was not built is built after
 * the restart; nothing is built twice. Only one endpoint builds at a time (`lockProjection`: the
 * exclusive file on SQLite, an advisory lock on PostgreSQL); the marks, not a high-water mark,
 * say what is left, because PostgreSQL's numbers can commit out of order.
 *
 * When (the rules and their figures are in pace.ts): acknowledgements come first. The views are
 * built in batches of about `BATCH_MS` (a batch's fixed costs, a commit's page writes above all,
 * make small ones slow). While records arrive, the batches take the share of the time that
 * keeping up needs, up to `KEEP_UP_SHARE`, and more once the views are far behind; at
 * `MAX_LAG_MS` of work behind, acknowledgements wait for them. Whenever records stop arriving
 * for a moment, batches follow one another (`plan`). A read waits
 * until the views hold every record committed when it was asked (`caughtUp`), and they are then
 * built at once; watchers (the live page) are told after each batch. While the database cannot
 * write (a full disk, a lost connection), reads answer from the views as they stand, `failure`
 * says why, and the projection tries again by itself.
 */
import { performance } from 'node:perf_hooks';
import type { Backend } from './backend.js';
import { BACKLOG_RECORDS, RETRY_MS, maxBacklog, measuredCost, nextBatch, nextRetry, pauseAfter, smoothedRate } from './pace.js';
import { BatchError, ViewWriter } from './write.js';
import { CatchingUpError, retryAfterSeconds, type Lag } from './catching-up.js';

/** While records arrive and the views are close behind, how often to look again (ms). */
const LOOK_MS = 10;
/** While another endpoint builds the views, how often to look whether it is done (ms). */
const POLL_MS = 25;
/** How often, at most, the arrival rate is sampled (ms). */
const SAMPLE_MS = 50;

/**
 * The clock and timers the projection paces itself by: the process's own (`processPacer`), or, in
 * the tests that pin the pace, one they move by hand.
 */
export interface Pacer {
  /** Monotonic time (ms). */
  now(): number;
  /** CPU time this process has used so far (ms). */
  cpuMs(): number;
  /** Calls `run` in `ms`, without keeping the process alive; returns what cancels it. */
  after(ms: number, run: () => void): () => void;
  /** Resolves once the I/O waiting now (acknowledgements, reads) has had its turn. */
  yieldToIo(): Promise<void>;
}

/** The process's clock and timers. */
export const processPacer: Pacer = {
  now: () => performance.now(),
  cpuMs() {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  },
  after(ms, run) {
    const timer = setTimeout(run, ms);
    // Stryker disable next-line BlockStatement: a process that never closes its store may still exit (not observable inside the test process)
    timer.unref();
    return () => clearTimeout(timer);
  },
  yieldToIo: () => new Promise((resolve) => setImmediate(resolve)),
};

/** What the projection asks of the store. */
export interface ProjectionOptions {
  log: (message: string) => void;
  /** Batches were added to the views. */
  projected: () => void;
  /** When the last append arrived (`pacer.now()`), and how many wait to be committed. */
  appends: () => { lastAt: number; pending: number };
  /** Its clock and timers (default: the process's). */
  pacer?: Pacer;
}

/** The views of one store, and those waiting for them. */
export class Projection {
  private running: Promise<void> | undefined;
  private again = false;
  /** Cancels the planned run, while one is planned. */
  private timer: (() => void) | undefined;
  private readonly readers: { target: number; resolve: () => void }[] = [];
  private readonly writers: (() => void)[] = [];
  /** Records acknowledged and not yet in the views (an estimate, made exact after each batch). */
  private backlog = 0;
  /** Measured cost of one record, in ms of CPU (not of the clock, which other work on the machine stretches). */
  private msPerRecord = 0.1;
  /** Records committed since the arrival rate was last sampled; the rate (records/s, smoothed over about a second), and when. */
  private arrived = 0;
  private rate = 0;
  private sampledAt: number;
  /** Records to build one at a time, to find the one the database refuses. */
  private isolating = 0;
  private retryMs: number = RETRY_MS[0];
  private flushing = false;
  private closed = false;
  private readonly views: ViewWriter;
  private readonly pacer: Pacer;
  /** Since when and why the views cannot be written, while they cannot. */
  failure: { at: number; reason: string } | undefined;

  constructor(private readonly backend: Backend, private readonly options: ProjectionOptions) {
    this.views = new ViewWriter(backend);
    this.pacer = options.pacer ?? processPacer;
    this.sampledAt = this.pacer.now();
  }

  /** `count` records were committed (0: some may have been, elsewhere): builds their views soon. */
  wake(count = 0): void {
    this.backlog += count;
    this.arrived += count;
    this.kick();
  }

  /**
   * Resolves once the views hold every record committed before the call: at once when they do,
   * else when they are built (at once). While they cannot be written, resolves after one try.
   */
  async caughtUp(): Promise<void> {
    const target = await this.backend.highestUnprojected();
    // Nothing behind: answered without a run.
    if (target === 0) return;
    await new Promise<void>((resolve) => {
      this.readers.push({ target, resolve });
      this.kick(true);
    });
  }

  /**
   * `caughtUp`, waiting `waitMs` at most: past it, stops waiting and rejects with a
   * `CatchingUpError` that says how far behind the views are.
   */
  async caughtUpWithin(waitMs: number): Promise<void> {
    const target = await this.backend.highestUnprojected();
    if (target === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const reader = { target, resolve: () => undefined as void };
    const built = new Promise<void>((resolve) => {
      reader.resolve = resolve;
      this.readers.push(reader);
      this.kick(true);
    });
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), waitMs);
    });
    const outcome = await Promise.race([built, late]);
    clearTimeout(timer);
    if (outcome !== 'late') return;
    const index = this.readers.indexOf(reader);
    if (index !== -1) this.readers.splice(index, 1);
    const lag = await this.lag();
    throw new CatchingUpError('read', waitMs, lag, retryAfterSeconds(lag.behindRecords * this.msPerRecord));
  }

  /** How far behind the views are: the records not in them, and how long ago the oldest was received. */
  async lag(): Promise<Lag> {
    try {
      const lowest = await this.backend.lowestUnprojected();
      if (lowest === 0) return { behindRecords: 0, behindSeconds: 0 };
      const behindRecords = await this.backend.countUnprojected(BACKLOG_RECORDS[1]);
      const oldest = await this.backend.db.selectFrom('records').select('received_at').where('seq', '=', lowest).executeTakeFirst();
      // Stryker disable next-line ConditionalExpression: a mark without its record cannot be (the two are written and deleted together); 0 is a safe answer anyway
      const since = oldest === undefined ? 0 : Date.now() - Number(oldest.received_at);
      return { behindRecords, behindSeconds: Math.max(0, Math.round(since / 100) / 10) };
    } catch {
      // The database does not answer now: the estimate kept after each batch, the age unknown.
      return { behindRecords: this.backlog, behindSeconds: 0 };
    }
  }

  /** The error a write that waited `waitMs` for room is refused with: how far behind the views are, and when there should be room. */
  async noRoom(waitMs: number): Promise<CatchingUpError> {
    const lag = await this.lag();
    const over = lag.behindRecords - maxBacklog(this.msPerRecord) + 1;
    return new CatchingUpError('write', waitMs, lag, retryAfterSeconds(over * this.msPerRecord));
  }

  /** Resolves when acknowledging may go on: the views are not more than `MAX_LAG_MS` of work behind. */
  room(): Promise<void> {
    // After close() nothing appends: the store refuses appends once closing, and waits for those queued before closing the projection.
    if (this.backlog < maxBacklog(this.msPerRecord)) return Promise.resolve();
    return new Promise((resolve) => {
      this.writers.push(resolve);
      this.kick(true);
    });
  }

  /** Builds everything marked, then stops. Safe to call twice. */
  async close(): Promise<void> {
    this.flushing = true;
    this.kick(true);
    while (this.running) await this.running;
    this.closed = true;
    this.timer?.();
    for (const waiting of this.readers.splice(0)) waiting.resolve();
    for (const resolve of this.writers.splice(0)) resolve();
  }

  /** Something waits for the views: a read, acknowledgements, or the end. */
  private urgent(): boolean {
    return this.readers.length > 0 || this.writers.length > 0 || this.flushing;
  }

  /** Runs the projection now (`now`) or at its next chance; one run at a time. */
  private kick(now = false): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    // A wake-up with a run already planned (a look, a pause, a retry) leaves it planned.
    if (this.timer !== undefined && !now) return;
    this.timer?.();
    this.timer = undefined;
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Runs again in `ms` (unless something runs it sooner). */
  private later(ms: number): void {
    this.timer?.();
    this.timer = this.pacer.after(ms, () => {
      this.timer = undefined;
      this.kick(true);
    });
  }

  /** The next transaction (pace.ts): how many records, and the share of the time the views take while records arrive. */
  private plan(): { limit: number; share: number } {
    const now = this.pacer.now();
    const since = now - this.sampledAt;
    // Stryker disable next-line EqualityOperator: a sample at exactly 50 ms or the next one, the same rate
    if (since >= SAMPLE_MS) {
      this.rate = smoothedRate(this.rate, this.arrived, since);
      this.arrived = 0;
      this.sampledAt = now;
    }
    const { lastAt, pending } = this.options.appends();
    return nextBatch({ urgent: this.urgent(), isolating: this.isolating > 0, backlog: this.backlog, msPerRecord: this.msPerRecord, rate: this.rate, pending, idleMs: now - lastAt });
  }

  private async run(): Promise<void> {
    try {
      for (;;) {
        this.again = false;
        const { limit, share } = this.plan();
        if (limit === 0) return this.later(LOOK_MS);
        const started = this.pacer.now();
        const cpu = this.pacer.cpuMs();
        const outcome = await this.views.project(limit);
        const took = this.pacer.now() - started;
        const cpuMs = this.pacer.cpuMs() - cpu;
        if (this.failure !== undefined) this.options.log('tracking endpoint: records are added to the views again.');
        this.failure = undefined;
        this.retryMs = RETRY_MS[0];
        if (outcome === 'busy') {
          await this.settle();
          if (this.urgent() || this.backlog > 0) this.later(POLL_MS);
          return;
        }
        if (outcome > 0) {
          if (this.isolating > 0) this.isolating--;
          this.msPerRecord = measuredCost(this.msPerRecord, cpuMs, outcome);
          this.options.projected();
        }
        await this.settle();
        if (outcome === 0) return;
        // Acknowledgements and reads go in between: at once, or for as long as their share of the time asks.
        // Stryker disable next-line EqualityOperator: at share 1 the pause is 0 ms, as the setImmediate below
        if (share < 1 && !this.urgent()) return this.later(pauseAfter(took, share));
        // Stryker disable next-line BlockStatement: timing only: lets acknowledgements and reads in between two batches
        await this.pacer.yieldToIo();
      }
    } catch (error) {
      if (await this.refused(error)) this.kick(true);
    }
  }

  /**
   * After a batch failed because of one of its records: finds that record (one at a time) and
   * leaves it out of the views. Returns whether to go on at once; otherwise (the database cannot
   * write, or a failure no record explains) lets readers go on, and tries again later.
   */
  private async refused(error: unknown): Promise<boolean> {
    const cause = error instanceof BatchError ? error.cause : error;
    const seqs = error instanceof BatchError ? error.seqs : [];
    if (!this.backend.isUnavailable(cause) && seqs.length > 1) {
      this.isolating = seqs.length;
      return true;
    }
    if (!this.backend.isUnavailable(cause) && seqs.length === 1) {
      // The database refuses this record's views: it stays stored, outside the views, rather than stopping them.
      try {
        await this.backend.db.transaction().execute(async (trx) => {
          await this.backend.lockProjection(trx, true);
          await trx.deleteFrom('unprojected').where('seq', '=', seqs[0]).execute();
        });
        this.options.log(`tracking endpoint: record ${seqs[0]} could not be added to the views (${(cause as Error)?.message ?? cause}); it is stored and /api/record?seq=${seqs[0]} shows it, but the views leave it out.`);
        return true;
      } catch (again) {
        return this.refused(again);
      }
    }
    const reason = (cause as Error)?.message ?? String(cause);
    if (this.failure === undefined) {
      this.failure = { at: Date.now(), reason };
      this.options.log(`tracking endpoint: cannot add records to the views now (${reason}); reads answer from the views as they stand, and this is tried again.`);
    }
    for (const waiting of this.readers.splice(0)) waiting.resolve();
    for (const resolve of this.writers.splice(0)) resolve();
    // Stryker disable next-line ConditionalExpression: while closing, close() clears the timer once this run ends
    if (!this.flushing) this.later(this.retryMs);
    this.retryMs = nextRetry(this.retryMs);
    return false;
  }

  /** Lets go of the readers and writers the views now satisfy. */
  private async settle(): Promise<void> {
    // Stryker disable next-line ConditionalExpression,LogicalOperator,BlockStatement,EqualityOperator: with no one waiting, the backlog estimate (kept exact below) steers only the pace, and a writer that waits on a stale one is let go after the next batch
    if (this.readers.length === 0 && this.writers.length === 0 && this.backlog === 0) return;
    const lowest = await this.backend.lowestUnprojected();
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a fast path: no lowest mark means none to count
    this.backlog = lowest === 0 ? 0 : await this.backend.countUnprojected(BACKLOG_RECORDS[1]);
    for (let i = this.readers.length - 1; i >= 0; i--) {
      if (lowest === 0 || lowest > this.readers[i].target) this.readers.splice(i, 1)[0].resolve();
    }
    if (this.backlog < maxBacklog(this.msPerRecord)) for (const resolve of this.writers.splice(0)) resolve();
  }
}
