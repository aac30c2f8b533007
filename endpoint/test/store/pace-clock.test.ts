/**
 * When the views are built (store/projection.ts), on a real SQLite store whose clock and timers the
 * test moves by hand (a `Pacer`): every transaction of the views "takes" 5 ms of the clock and
 * 10 ms of CPU, so each pause, look and retry the projection plans can be read off exactly. The
 * rules themselves (pace.ts) are pinned one by one in pace.test.ts; these tests pin that the
 * projection follows them: when it looks again, how long it pauses, when it builds at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import type { Pacer } from '../../src/store/projection.js';
import { RecordStore, type Backend } from '../../src/store/store.js';
import { appendTogether, databases, msg } from './databases.js';

const [sqlite] = databases();
const T = '2026-03-02T10:00:00Z';
/** What one transaction of the views takes: of the clock, and of CPU (ms). */
const TOOK_MS = 5;
const CPU_MS = 10;

/** A clock that moves only when the test moves it, and the runs planned on it. */
class HandClock implements Pacer {
  time = 1_000;
  cpu = 0;
  private planned: { at: number; ms: number; run: () => void; done: boolean }[] = [];
  constructor(private readonly quiet: () => Promise<void>) {}
  now = () => this.time;
  cpuMs = () => this.cpu;
  after = (ms: number, run: () => void) => {
    const timer = { at: this.time + ms, ms, run, done: false };
    this.planned.push(timer);
    return () => {
      timer.done = true;
    };
  };
  yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));
  /** The delays (ms) of the runs planned and neither run nor cancelled. */
  get waiting(): number[] {
    return this.planned.filter((timer) => !timer.done).map((timer) => timer.ms);
  }
  /**
   * Moves the clock `ms` on, running what comes due in order, each until the projection is idle.
   * The transactions those runs make move it on too (`TOOK_MS` each); the runs they plan are
   * counted from there.
   */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      const next = this.planned.filter((timer) => !timer.done && timer.at <= end).sort((a, b) => a.at - b.at)[0];
      if (next === undefined) break;
      this.time = next.at;
      next.done = true;
      next.run();
      await this.quiet();
    }
    this.time = Math.max(this.time, end);
  }
}

interface ProjectionRun {
  running: Promise<void> | undefined;
  wake(count?: number): void;
}

interface Paced {
  store: RecordStore;
  clock: HandClock;
  /** What the store logged. */
  logged: string[];
  /** Transactions of the views tried (each takes the lock first). */
  tries: number;
  /** The records in each batch added to the views, in order. */
  batches: number[];
  /** Makes the lock say another endpoint holds it. */
  busy: boolean;
  /** Makes every transaction of the views fail with this error. */
  failure: Error | undefined;
  /** Called as a transaction of the views starts. */
  onTry: (() => void) | undefined;
  projection: ProjectionRun;
  /** Resolves once no run of the views goes on (a planned one may wait on the clock). */
  idle(): Promise<void>;
  /** The entries in the views as they stand (without waiting for them). */
  entries(): Promise<number>;
}

const opened: RecordStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close().catch(() => undefined);
});

/** A store on a fresh SQLite file, on a hand-moved clock; it has built its (empty) views once. */
async function paced(): Promise<Paced> {
  const { store: first } = await openStore({ database: await sqlite.fresh(), log: () => undefined });
  const backend = (first as unknown as { backend: Backend }).backend;
  let lastSeq = 0;
  const state = { tries: 0, batches: [] as number[], busy: false, failure: undefined as Error | undefined, onTry: undefined as (() => void) | undefined, logged: [] as string[] };
  // The store's projection, once the store is made (its first run starts in the store's constructor).
  const made: { projection?: ProjectionRun } = {};
  const idle = async () => {
    for (;;) {
      while (made.projection?.running) await made.projection.running;
      await new Promise((resolve) => setImmediate(resolve));
      if (!made.projection?.running) return;
    }
  };
  const clock = new HandClock(idle);
  const store = new RecordStore({
    ...backend,
    async lockProjection(trx, wait) {
      state.tries++;
      state.onTry?.();
      clock.time += TOOK_MS;
      clock.cpu += CPU_MS;
      if (state.failure) throw state.failure;
      if (state.busy) return false;
      return backend.lockProjection(trx, wait);
    },
    async afterProjecting(trx, seq) {
      state.batches.push(seq - lastSeq);
      lastSeq = seq;
      await backend.afterProjecting?.(trx, seq);
    },
  }, (line) => state.logged.push(line), clock);
  opened.push(store);
  made.projection = (store as unknown as { projection: ProjectionRun }).projection;
  await idle();
  const entries = async () => Number((await backend.db.selectFrom('entries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  return Object.assign(state, { store, clock, projection: made.projection, idle, entries }) as Paced;
}

const records = (count: number, prefix = 'm') => Array.from({ length: count }, (_, i) => msg({ user: `u${i % 9}`, at: T, text: `${prefix}${i}` }));
/** Appends one record and waits for its acknowledgement and what the projection does about it. */
const appendOne = async (p: Paced, text: string) => {
  await p.store.append(msg({ user: 'steady', at: T, text }));
  await p.idle();
};

describe('when the views are built, on a clock the test moves (SQLite)', () => {
  it('at start, with nothing to build, looks once and plans nothing', async () => {
    const p = await paced();
    expect(p.tries).toBe(1);
    expect(p.clock.waiting).toEqual([]);
    expect(p.logged).toEqual([]);
    // A read with nothing behind is answered without a run of the views.
    expect(await p.store.db.selectFrom('entries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).toEqual({ n: 0 });
    expect(p.tries).toBe(1);
  });

  it('while records arrive it looks again every 10 ms; once none came for 20 ms it builds them, batch after batch, without pausing', async () => {
    const p = await paced();
    await appendTogether(p.store, records(1_000));
    await p.idle();
    expect(p.clock.waiting).toEqual([10]);
    expect(await p.entries()).toBe(0);
    await p.clock.advance(10);
    // 10 ms since the last record: records may still be arriving.
    expect(p.clock.waiting).toEqual([10]);
    expect(await p.entries()).toBe(0);
    await p.clock.advance(10);
    expect(await p.entries()).toBe(1_000);
    // 500 at the first cost (0.1 ms a record), then the 500 left.
    expect(p.batches).toEqual([500, 500]);
    expect(p.clock.waiting).toEqual([]);
  });

  it('sizes each batch by the CPU a record measured to take (not by the clock), to take about 50 ms', async () => {
    const p = await paced();
    await appendTogether(p.store, records(2_000));
    await p.idle();
    await p.clock.advance(20);
    // 0.1 ms a record: 500; then 10 ms of CPU for 500 (0.02 ms) weighs 30%: 0.076 ms, 658; then 842 are left.
    expect(p.batches).toEqual([500, 658, 842]);
    expect(await p.entries()).toBe(2_000);
  });

  it('at a steady 104 records/s it takes 1.3% of the time for the views: after a 5 ms batch it pauses 379.6 ms', async () => {
    const p = await paced();
    await appendTogether(p.store, records(100));
    await p.idle();
    // One more record every 10 ms: records keep arriving, so the views wait…
    for (let i = 0; i < 4; i++) {
      expect(p.clock.waiting).toEqual([10]);
      await p.clock.advance(10);
      await appendOne(p, `steady ${i}`);
      expect(await p.entries()).toBe(0);
    }
    // …until the arrival rate is sampled (after 50 ms: 104 records in 55 ms, 104 records/s smoothed over a second).
    // Keeping up with 104 records/s at 0.1 ms each, with a 25% margin, takes 1.3% of the time.
    await p.clock.advance(10);
    expect(p.batches).toEqual([104]);
    expect(p.clock.waiting).toHaveLength(1);
    expect(p.clock.waiting[0]).toBeCloseTo(TOOK_MS * (1 / 0.013 - 1), 6);
    // A record that arrives during the pause does not cut it short: it waits for the next batch.
    await appendOne(p, 'during the pause');
    expect(p.batches).toEqual([104]);
    expect(p.clock.waiting).toHaveLength(1);
    expect(p.clock.waiting[0]).toBeCloseTo(379.615, 3);
  });

  it('a read does not wait for the pauses: with records arriving, it has the views built at once', async () => {
    const p = await paced();
    await appendTogether(p.store, records(1_500));
    await p.idle();
    expect(p.clock.waiting).toEqual([10]);
    // The clock does not move: the read is answered without waiting for any planned run.
    expect(await p.store.db.selectFrom('entries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).toEqual({ n: 1_500 });
    expect(p.batches).toEqual([500, 658, 342]);
  });

  it('while another endpoint builds the views, looks every 25 ms whether it is done for a read that waits, then answers it', async () => {
    const p = await paced();
    p.busy = true;
    await appendTogether(p.store, records(10));
    await p.idle();
    const read = p.store.db.selectFrom('entries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    await expect.poll(() => p.clock.waiting).toEqual([25]);
    await p.clock.advance(25);
    expect(p.clock.waiting).toEqual([25]);
    p.busy = false;
    await p.clock.advance(25);
    expect(await read).toEqual({ n: 10 });
    expect(p.batches).toEqual([10]);
    expect(p.clock.waiting).toEqual([]);
  });

  it('while another endpoint builds the views, keeps looking while records are behind though nobody waits, and stops once none is', async () => {
    const p = await paced();
    p.busy = true;
    await appendTogether(p.store, records(5));
    await p.idle();
    await p.clock.advance(20);
    // Nobody waits, but 5 records are not in the views: look again in 25 ms.
    expect(p.clock.waiting).toEqual([25]);
    const tries = p.tries;
    await p.clock.advance(25);
    expect(p.tries).toBe(tries + 1);
    // The other endpoint built them (here: this one, once free); with none behind, nothing more is planned.
    p.busy = false;
    await p.clock.advance(25);
    expect(p.batches).toEqual([5]);
    p.busy = true;
    p.projection.wake();
    await p.idle();
    expect(p.clock.waiting).toEqual([]);
  });

  it('while the database cannot write the views, says so once and tries again after 250 ms, doubling up to 5 s; once it can, starts again from 250 ms', async () => {
    const p = await paced();
    await appendTogether(p.store, records(3));
    await p.idle();
    p.failure = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const pauses: number[] = [];
    await p.clock.advance(20);
    for (let i = 0; i < 7; i++) {
      expect(p.clock.waiting).toHaveLength(1);
      pauses.push(p.clock.waiting[0]);
      await p.clock.advance(p.clock.waiting[0]);
    }
    expect(pauses).toEqual([250, 500, 1_000, 2_000, 4_000, 5_000, 5_000]);
    expect(p.logged).toEqual(['tracking endpoint: cannot add records to the views now (database or disk is full); reads answer from the views as they stand, and this is tried again.']);
    // A read does not wait for the database: it is answered from the views as they stand, after one try.
    expect(await p.store.db.selectFrom('entries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).toEqual({ n: 0 });
    p.failure = undefined;
    await p.clock.advance(p.clock.waiting[0]);
    expect(p.batches).toEqual([3]);
    expect(p.logged.at(-1)).toBe('tracking endpoint: records are added to the views again.');
    p.failure = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
    p.projection.wake();
    await p.idle();
    expect(p.clock.waiting).toEqual([250]);
    expect(p.logged).toHaveLength(3);
  });

  it('a wake-up that comes while a run is ending gets a run of its own', async () => {
    const p = await paced();
    const tries = p.tries;
    // Records committed while the run finds nothing left to build: their wake-up must not be lost.
    p.onTry = () => {
      p.onTry = undefined;
      p.projection.wake();
    };
    p.projection.wake();
    await p.idle();
    expect(p.tries).toBe(tries + 2);
    expect(p.clock.waiting).toEqual([]);
  });

  it('close builds what is behind at once, cancels the planned look, and nothing runs after it', async () => {
    const p = await paced();
    await appendTogether(p.store, records(20));
    await p.idle();
    expect(p.clock.waiting).toEqual([10]);
    await p.store.close();
    expect(p.batches).toEqual([20]);
    expect(p.clock.waiting).toEqual([]);
    const tries = p.tries;
    p.projection.wake(1);
    await p.idle();
    expect(p.tries).toBe(tries);
    expect(p.logged).toEqual([]);
  });
});
