/**
 * What a request that waits for the views is told (projection.ts: caughtUpWithin, lag, noRoom),
 * figure by figure, on a real SQLite file with the views held back by hand: a read with nothing
 * behind is answered at once whatever the views are doing; how long ago the oldest record not in
 * the views arrived, in tenths of a second; and `Retry-After`, from all that is behind for a read
 * and from how far over the bound for a write.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { CatchingUpError } from '../../src/store/catching-up.js';
import type { RecordStore } from '../../src/store/store.js';
import { tempDir } from '../helpers.js';
import { msg } from './databases.js';

const T = '2026-03-02T10:00:00Z';

interface Projection {
  plan(): { limit: number; share: number };
  msPerRecord: number;
  running: Promise<void> | undefined;
  readers: unknown[];
  lag(): Promise<{ behindRecords: number; behindSeconds: number }>;
  noRoom(waitMs: number): Promise<CatchingUpError>;
  caughtUpWithin(waitMs: number): Promise<void>;
}
const projectionOf = (store: RecordStore) => (store as unknown as { projection: Projection }).projection;

/** Holds the views back: nothing is built (once a run under way ends). */
async function holdViews(store: RecordStore): Promise<void> {
  const projection = projectionOf(store);
  projection.plan = () => ({ limit: 0, share: 0 });
  while (projection.running) await projection.running;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let folder: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  folder = await tempDir();
});
afterAll(() => folder?.cleanup());

async function withStore(readMs: number, body: (store: RecordStore) => Promise<void>): Promise<void> {
  const { store } = await openStore({ database: join(folder.dir, `${Math.random().toString(36).slice(2)}.db`), log: () => undefined, waits: { readMs, writeMs: 60_000 } });
  try {
    await body(store);
  } finally {
    await store.close();
  }
}

it('a read with nothing behind is answered at once, though the views are held back', async () => {
  await withStore(1_000, async (store) => {
    await store.append(msg({ user: 'u1', at: T, text: 'one' }));
    expect(await store.db.selectFrom('users').select('user_id').execute()).toEqual([{ user_id: 'u1' }]);
    await holdViews(store);
    const started = performance.now();
    expect(await store.db.selectFrom('users').select('user_id').execute()).toEqual([{ user_id: 'u1' }]);
    await projectionOf(store).caughtUpWithin(1_000);
    expect(performance.now() - started).toBeLessThan(500);
    expect(projectionOf(store).readers).toEqual([]);
  });
});

it('says how long ago the oldest record not in the views arrived, in tenths of a second', async () => {
  await withStore(300, async (store) => {
    await holdViews(store);
    await store.append(msg({ user: 'u1', at: T, text: 'oldest' }));
    await sleep(1_240);
    await store.append(msg({ user: 'u1', at: T, text: 'newest' }));
    const lag = await projectionOf(store).lag();
    expect(lag.behindRecords).toBe(2);
    expect(lag.behindSeconds).toBeGreaterThanOrEqual(1.2);
    expect(lag.behindSeconds).toBeLessThan(4);
    expect(String(lag.behindSeconds)).toMatch(/^\d+\.\d$|^\d+$/);
    const { lag: told } = await projectionOf(store).caughtUpWithin(300).then(() => ({ lag: undefined }), (error: CatchingUpError) => error);
    expect(told?.behindRecords).toBe(2);
    expect(String(told?.behindSeconds)).toMatch(/^\d+\.\d$|^\d+$/);
  });
});

it('tells a read to come back when all that is behind is built, and a write when enough is built to make room', async () => {
  await withStore(200, async (store) => {
    await holdViews(store);
    // 5,300 records behind, taken at once (at 0.1 ms each the bound is far away).
    await Promise.all(Array.from({ length: 5_300 }, (_, i) => store.append(msg({ user: `u${i % 7}`, at: T, text: `m${i}` }))));
    const projection = projectionOf(store);
    // A read waits for all 5,300: at 2 ms each, 10.6 s.
    projection.msPerRecord = 2;
    const read = await store.db.selectFrom('users').select('user_id').execute().then(() => undefined, (error: unknown) => error as CatchingUpError);
    expect(read).toBeInstanceOf(CatchingUpError);
    expect(read).toMatchObject({ waited: 'read', waitedMs: 200, retryAfter: 11, lag: { behindRecords: 5_300 } });
    // At 10 ms each the bound is 5,000 records (10 s of work): a write needs 301 built, 3.01 s.
    projection.msPerRecord = 10;
    const write = await projection.noRoom(1_234);
    expect(write).toMatchObject({ waited: 'write', waitedMs: 1_234, retryAfter: 4, lag: { behindRecords: 5_300 } });
    // At 1 ms each the bound is 10,000 records: there is room, and 1 s is the least ever said.
    projection.msPerRecord = 1;
    expect((await projection.noRoom(10)).retryAfter).toBe(1);
  });
});
