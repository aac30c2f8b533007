/**
 * How long the store lets a read and a write wait for the views (store/catching-up.ts), on SQLite
 * and PostgreSQL: a read's query waits for the views at most the read bound, then rejects with a
 * `CatchingUpError` saying how far behind they are; a write waiting for room is refused,
 * uncommitted, once it waited the write bound, oldest first, while those that get room in time
 * are committed; `stopWaiting()` refuses at once those waiting. The views are held back by hand
 * (their planner told to build nothing).
 */
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { CatchingUpError, DEFAULT_WAIT_BOUNDS } from '../../src/store/catching-up.js';
import type { Backend, RecordStore } from '../../src/store/store.js';
import { databases, msg } from './databases.js';

const DBS = databases();
const T = '2026-03-02T10:00:00Z';

interface Projection {
  plan(): { limit: number; share: number };
  msPerRecord: number;
  backlog: number;
  readers: unknown[];
  running: Promise<void> | undefined;
  lag(): Promise<{ behindRecords: number; behindSeconds: number }>;
}
const projectionOf = (store: RecordStore) => (store as unknown as { projection: Projection }).projection;
const backendOf = (store: RecordStore) => (store as unknown as { backend: Backend }).backend;

/** Holds the views back (nothing is built, once a run under way ends) until the function it resolves with is called. */
async function holdViews(store: RecordStore): Promise<() => void> {
  const projection = projectionOf(store);
  const plan = projection.plan;
  projection.plan = () => ({ limit: 0, share: 0 });
  while (projection.running) await projection.running;
  return () => {
    projection.plan = plan;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const settle = <T>(promise: Promise<T>) => promise.then((value) => ({ value }), (error: unknown) => ({ error }));

async function withBoundedStore(database: string, waits: { readMs: number; writeMs: number }, body: (store: RecordStore) => Promise<void>): Promise<void> {
  const { store } = await openStore({ database, log: () => undefined, waits });
  try {
    await body(store);
  } finally {
    await store.close();
  }
}

/** Fills the views' backlog to their bound (5,000 records at 10 ms each, pace.ts) so that writes wait for room. */
async function fillBacklog(store: RecordStore): Promise<void> {
  projectionOf(store).msPerRecord = 10;
  await Promise.all(Array.from({ length: 5_000 }, (_, i) => store.append(msg({ user: 'u0', at: T, text: `before ${i}` }))));
}

const users = (store: RecordStore) => store.db.selectFrom('users').select('user_id').execute();

describe.each(DBS)('waits on $name', ({ fresh }) => {
  it('a read waits for the views, and past its bound rejects with how far behind they are; it is then no longer waited for', async () => {
    await withBoundedStore(await fresh(), { readMs: 400, writeMs: 10_000 }, async (store) => {
      expect(await users(store)).toEqual([]);
      const release = await holdViews(store);
      await store.append(msg({ user: 'u1', at: T, text: 'one' }));
      await store.append(msg({ user: 'u1', at: T, text: 'two' }));
      await sleep(250);
      const started = performance.now();
      const { error } = await settle(users(store)) as { error: CatchingUpError };
      const waited = performance.now() - started;
      expect(waited).toBeGreaterThanOrEqual(390);
      expect(waited).toBeLessThan(1_500);
      expect(error).toBeInstanceOf(CatchingUpError);
      expect(error.waited).toBe('read');
      expect(error.waitedMs).toBe(400);
      expect(error.lag.behindRecords).toBe(2);
      expect(error.lag.behindSeconds).toBeGreaterThanOrEqual(0.6);
      expect(error.lag.behindSeconds).toBeLessThan(3);
      expect(error.retryAfter).toBe(1);
      expect(error.message).toBe(`The views are catching up (2 records to go); this read waited 400 ms for them, its bound (maxReadWaitMs). Try again in 1 s.`);
      expect(projectionOf(store).readers).toEqual([]);
      // Released within its bound, a read is answered.
      const waiting = users(store);
      await sleep(150);
      release();
      expect(await waiting).toEqual([{ user_id: 'u1' }]);
      expect(await projectionOf(store).lag()).toEqual({ behindRecords: 0, behindSeconds: 0 });
    });
  });

  it('a write waiting for room is refused uncommitted past its bound, oldest first; one that gets room in time is committed', async () => {
    await withBoundedStore(await fresh(), { readMs: 10_000, writeMs: 2_000 }, async (store) => {
      const release = await holdViews(store);
      await fillBacklog(store);
      const first = settle(store.append(msg({ user: 'u1', at: T, text: 'first' })));
      await sleep(1_500);
      const second = settle(store.append(msg({ user: 'u2', at: T, text: 'second' })));
      const { error } = await first as { error: CatchingUpError };
      expect(error).toBeInstanceOf(CatchingUpError);
      expect(error.waited).toBe('write');
      expect(error.waitedMs).toBeGreaterThanOrEqual(2_000);
      expect(error.waitedMs).toBeLessThan(2_800);
      expect(error.lag.behindRecords).toBe(5_000);
      expect(error.retryAfter).toBe(1);
      expect(error.message).toContain('The record was not stored: the views are catching up (5000 records behind)');
      // The second has waited 500 ms of its 2,000: room comes in time.
      projectionOf(store).msPerRecord = 0.1;
      release();
      const { value } = await second as { value: { seq: number } };
      expect(value.seq).toBeGreaterThan(5_000);
      expect(await store.count()).toBe(5_001);
      const texts = (await store.records({ after: 5_000 })).map((r) => (r.body as { text: string }).text);
      expect(texts).toEqual(['second']);
    });
  });

  it('stopWaiting refuses at once, uncommitted, the writes waiting for room and those that come to wait', async () => {
    await withBoundedStore(await fresh(), { readMs: 10_000, writeMs: 60_000 }, async (store) => {
      await holdViews(store);
      await fillBacklog(store);
      const waiting = settle(store.append(msg({ user: 'u1', at: T, text: 'waiting' })));
      await sleep(200);
      const started = performance.now();
      store.stopWaiting();
      const { error } = await waiting as { error: CatchingUpError };
      expect(performance.now() - started).toBeLessThan(500);
      expect(error).toBeInstanceOf(CatchingUpError);
      expect(error.waitedMs).toBeGreaterThanOrEqual(200);
      const { error: later } = await settle(store.append(msg({ user: 'u1', at: T, text: 'later' }))) as { error: CatchingUpError };
      expect(later).toBeInstanceOf(CatchingUpError);
      expect(await store.count()).toBe(5_000);
    });
  });

  it('says how far behind the views are from its own estimate when the database does not answer', async () => {
    await withBoundedStore(await fresh(), DEFAULT_WAIT_BOUNDS, async (store) => {
      await holdViews(store);
      await store.append(msg({ user: 'u1', at: T, text: 'one' }));
      const backend = backendOf(store);
      const lowest = backend.lowestUnprojected;
      backend.lowestUnprojected = () => Promise.reject(new Error('gone'));
      expect(await projectionOf(store).lag()).toEqual({ behindRecords: 1, behindSeconds: 0 });
      backend.lowestUnprojected = lowest;
    });
  });
});
