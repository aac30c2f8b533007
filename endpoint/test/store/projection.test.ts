/**
 * The views built behind the acknowledgements (store/projection.ts), on SQLite and PostgreSQL: a
 * read sees every record acknowledged before it, what a crash left unbuilt is built at the next
 * start, a record the database refuses to add to the views stays stored without stopping them, and
 * on PostgreSQL one endpoint builds at a time and a record whose number commits late is not skipped.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { PROJECTION_LOCK } from '../../src/store/postgres.js';
import { openSqlite } from '../../src/store/sqlite.js';
import { RecordStore, type Backend } from '../../src/store/store.js';
import { BatchError, ViewWriter } from '../../src/store/write.js';
import { appendTogether, databases, msg, withStore } from './databases.js';

const DBS = databases();
const [, postgres] = DBS;
const T = '2026-03-02T10:00:00Z';
const entryCount = async (store: RecordStore) => Number((await store.db.selectFrom('entries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
const marks = async (store: RecordStore) => Number((await (store as unknown as { backend: Backend }).backend.db.selectFrom('unprojected').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

describe.each(DBS)('the views on $name', ({ fresh }) => {
  it('a read sees every record acknowledged before it, though the views are built after the acknowledgement', async () => {
    await withStore(await fresh(), async (store) => {
      for (let round = 1; round <= 3; round++) {
        await appendTogether(store, Array.from({ length: 700 }, (_, i) => msg({ user: `u${i % 40}`, at: T, text: `m${round}.${i}` })));
        expect(await entryCount(store)).toBe(700 * round);
        const users = await store.db.selectFrom('users').select((eb) => eb.fn.sum<number>('messages').as('n')).executeTakeFirstOrThrow();
        expect(Number(users.n)).toBe(700 * round);
      }
      expect(await marks(store)).toBe(0);
    });
  });

  it('builds at the next start what was acknowledged and not yet in the views when the endpoint stopped', async () => {
    const database = await fresh();
    const { store } = await openStore({ database, log: () => undefined });
    // As a crash between the acknowledgement and the views would leave it: records committed, views not built.
    const projection = (store as unknown as { projection: { plan(): { limit: number; share: number } } }).projection;
    projection.plan = () => ({ limit: 0, share: 0 });
    await appendTogether(store, Array.from({ length: 50 }, (_, i) => msg({ user: `u${i % 5}`, at: T, text: `before ${i}` })));
    expect(await marks(store)).toBe(50);
    await store.close();
    await withStore(database, async (again) => {
      expect(await entryCount(again)).toBe(50);
      expect(await marks(again)).toBe(0);
      const users = await again.db.selectFrom('users').select(['user_id', 'messages']).orderBy('user_id').execute();
      expect(users.map((u) => [u.user_id, Number(u.messages)])).toEqual([['u0', 10], ['u1', 10], ['u2', 10], ['u3', 10], ['u4', 10]]);
    });
  });

  it('leaves out of the views, and says so, a record the database refuses to add, and builds the others', async () => {
    await withStore(await fresh(), async (opened) => {
      const logged: string[] = [];
      const backend = (opened as unknown as { backend: Backend }).backend;
      (opened as unknown as { projection: { plan(): { limit: number; share: number } } }).projection.plan = () => ({ limit: 0, share: 0 });
      // The database refuses any batch of the views holding a record whose text says "refuse".
      const store = new RecordStore({
        ...backend,
        async afterProjecting(trx, lastSeq) {
          const refused = await trx.selectFrom('entries').select('seq').where('text', '=', 'refuse').executeTakeFirst();
          if (refused !== undefined) throw new Error('refused: bad entry');
          await backend.afterProjecting?.(trx, lastSeq);
        },
      }, (line) => logged.push(line));
      const stored = await appendTogether(store, ['a', 'b', 'refuse', 'c', 'd'].map((text, i) => msg({ user: `u${i}`, at: T, text })));
      const texts = (await store.db.selectFrom('entries').select('text').orderBy('seq').execute()).map((row) => row.text);
      expect(texts).toEqual(['a', 'b', 'c', 'd']);
      expect(await store.count()).toBe(5);
      expect(logged).toEqual([`tracking endpoint: record ${stored[2].seq} could not be added to the views (refused: bad entry); it is stored and /api/record?seq=${stored[2].seq} shows it, but the views leave it out.`]);
      expect(await marks(store)).toBe(0);
      // Once the refused record is found, the views go back to batches: 600 more records take a few, not one each.
      let batches = 0;
      const stop = store.watch(() => batches++);
      await appendTogether(store, Array.from({ length: 600 }, (_, i) => msg({ user: `v${i % 9}`, at: T, text: `after ${i}` })));
      expect(await store.count()).toBe(605);
      expect((await store.db.selectFrom('entries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n).toBe(604);
      stop();
      expect(batches).toBeGreaterThan(0);
      expect(batches).toBeLessThan(30);
    });
  });

  it('deletes with retention records not yet in the views, which are then never added', async () => {
    await withStore(await fresh(), async (store) => {
      const projection = (store as unknown as { projection: { plan(): { limit: number; share: number } } }).projection;
      const plan = projection.plan.bind(projection);
      projection.plan = () => ({ limit: 0, share: 0 });
      await appendTogether(store, [msg({ user: 'old', at: '2025-01-01T10:00:00Z' }), msg({ user: 'new', at: T })]);
      projection.plan = plan;
      expect(await store.deleteBefore(Date.parse('2026-01-01T00:00:00Z'))).toBe(1);
      expect((await store.db.selectFrom('users').select('user_id').execute()).map((u) => u.user_id)).toEqual(['new']);
      expect(await marks(store)).toBe(0);
    });
  });
});

describe('the views on PostgreSQL, with several endpoints', () => {
  it('are built by one endpoint at a time: while another holds the right, records are acknowledged and wait for the views', async () => {
    const database = await postgres.fresh();
    const holder = new pg.Client({ connectionString: database });
    await holder.connect();
    try {
      await withStore(database, async (store) => {
        await holder.query('select pg_advisory_lock($1)', [PROJECTION_LOCK]);
        await appendTogether(store, [msg({ user: 'ann', at: T }), msg({ user: 'bob', at: T })]);
        let read = false;
        const reading = entryCount(store).then((n) => {
          read = true;
          return n;
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(read).toBe(false);
        expect(Number((await holder.query('select count(*) as n from entries')).rows[0].n)).toBe(0);
        // It asks for the right without waiting for it (it polls): none of its connections is held waiting on the lock.
        const waiting = await holder.query("select count(*) as n from pg_stat_activity where datname = current_database() and application_name = 'tracking-endpoint' and wait_event = 'advisory'");
        expect(Number(waiting.rows[0].n)).toBe(0);
        await holder.query('select pg_advisory_unlock($1)', [PROJECTION_LOCK]);
        expect(await reading).toBe(2);
      });
    } finally {
      await holder.end();
    }
  });

  it('does not skip a record whose number commits after higher ones were added to the views', async () => {
    const database = await postgres.fresh();
    await withStore(database, async (store) => {
      await store.append(msg({ user: 'first', at: T }));
      // Another endpoint takes a number and commits late (its transaction is slow).
      const late = new pg.Client({ connectionString: database });
      await late.connect();
      try {
        await late.query('begin');
        const { rows } = await late.query<{ seq: string }>("select nextval('record_seq') as seq");
        const seq = Number(rows[0].seq);
        const body = JSON.stringify({ text: 'late', userId: 'late', platformJson: { timestamp: T, conversation: { id: 'c-late' } } });
        await late.query("insert into records (seq, received_at, occurred_at, platform, platform_kind, v, type, bot, body) values ($1, $2, $2, 'universal', 'universal', '10.1.1-rest', 'incoming', 'abcdefabcdef', $3)", [seq, Date.parse(T), body]);
        await late.query('insert into unprojected (seq) values ($1)', [seq]);
        // Meanwhile a higher number is acknowledged and read, so the views pass it.
        const after = await store.append(msg({ user: 'after', at: T }));
        expect(after.seq).toBeGreaterThan(seq);
        expect((await store.db.selectFrom('users').select('user_id').orderBy('user_id').execute()).map((u) => u.user_id)).toEqual(['after', 'first']);
        await late.query('commit');
      } finally {
        await late.end();
      }
      expect((await store.db.selectFrom('users').select('user_id').orderBy('user_id').execute()).map((u) => u.user_id)).toEqual(['after', 'first', 'late']);
      expect(await marks(store)).toBe(0);
    });
  });
});

/** The projection of a store, and the parts of it these tests steer: its plan, the measured cost of a record, and who waits. */
interface ProjectionParts {
  plan(): { limit: number; share: number };
  msPerRecord: number;
  readers: unknown[];
  flushing: boolean;
}
const projectionOf = (store: RecordStore) => (store as unknown as { projection: ProjectionParts }).projection;
/** The entries in the views as they stand (the store's own connection, without waiting for the views). */
const viewCount = async (store: RecordStore) => Number((await (store as unknown as { backend: Backend }).backend.db.selectFrom('entries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
/** Counts rows of `table` in the SQLite file `file` (closed) through a connection of its own. */
const rawCount = (file: string, table: 'entries' | 'unprojected') => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
};
const settledWithin = async (promise: Promise<unknown>, ms: number) => Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

describe('when the views are built, and who waits for them (SQLite)', () => {
  const [sqlite] = DBS;

  it('acknowledgements wait once the views are the bound behind (5,000 records at 2 ms each), and go on as soon as they are built', async () => {
    const database = await sqlite.fresh();
    await withStore(database, async (store) => {
      const projection = projectionOf(store);
      const plan = projection.plan;
      projection.plan = () => ({ limit: 0, share: 0 });
      // As on a machine where a record costs 2 ms to add to the views: 10 s of work is 5,000 records.
      projection.msPerRecord = 2;
      await appendTogether(store, Array.from({ length: 4_999 }, (_, i) => msg({ user: `u${i % 50}`, at: T, text: `m${i}` })));
      // 4,999 behind: under the bound, acknowledged at once.
      expect(await settledWithin(store.append(msg({ user: 'last-in', at: T })), 2_000)).toBe(true);
      // 5,000 behind: the next waits for the views.
      const waiting = store.append(msg({ user: 'waits', at: T }));
      expect(await settledWithin(waiting, 300)).toBe(false);
      expect(await marks(store)).toBe(5_000);
      projection.plan = plan;
      expect((await waiting).seq).toBe(5_001);
      expect(await marks(store)).toBeLessThan(5_000);
    });
  });

  it('acknowledgements that wait for the views go on once the views are back under the bound, not after any batch', async () => {
    const database = await sqlite.fresh();
    await withStore(database, async (store) => {
      const projection = projectionOf(store) as ProjectionParts & { backlog: number };
      const plan = projection.plan;
      projection.plan = () => ({ limit: 0, share: 0 });
      await appendTogether(store, Array.from({ length: 5_100 }, (_, i) => msg({ user: `u${i % 50}`, at: T, text: `m${i}` })));
      // Now a record costs 2 ms: the bound is 5,000 records, and a batch 25 (50 ms).
      projection.msPerRecord = 2;
      const waiting = store.append(msg({ user: 'waits', at: T }));
      let behindAtAck = -1;
      void waiting.then(() => (behindAtAck = projection.backlog));
      expect(await settledWithin(waiting, 300)).toBe(false);
      projection.plan = plan;
      await waiting;
      // Let go at 4,999 behind or fewer (then 1 more, its own), not at 5,075 after the first batch.
      expect(behindAtAck).toBeGreaterThan(0);
      expect(behindAtAck).toBeLessThanOrEqual(5_000);
    });
  });

  it('close adds to the views every record acknowledged before it, also those appended the moment before', async () => {
    const database = await sqlite.fresh();
    const { store } = await openStore({ database, log: () => undefined });
    await appendTogether(store, Array.from({ length: 300 }, (_, i) => msg({ user: `u${i % 7}`, at: T, text: `m${i}` })));
    // Closed within the 20 ms that would otherwise count as "records still arriving".
    const last = store.append(msg({ user: 'last', at: T }));
    await store.close();
    expect((await last).seq).toBe(301);
    expect(rawCount(database, 'unprojected')).toBe(0);
    expect(rawCount(database, 'entries')).toBe(301);
  });

  it('a read waits for the last record acknowledged before it, also when one batch leaves only that record', async () => {
    const database = await sqlite.fresh();
    await withStore(database, async (store) => {
      const projection = projectionOf(store);
      const plan = projection.plan.bind(projection);
      // The views are built only for reads: the first batch is 500 records (50 ms at the first cost, 0.1 ms).
      projection.plan = () => (projection.readers.length > 0 ? plan() : { limit: 0, share: 0 });
      await appendTogether(store, Array.from({ length: 501 }, (_, i) => msg({ user: 'ann', at: T, text: `m${i}` })));
      expect(await entryCount(store)).toBe(501);
    });
  });

  it('while records keep arriving (one every 2 ms, no pause), the views are built as they come, not only once they stop', async () => {
    const database = await sqlite.fresh();
    await withStore(database, async (store) => {
      const appends: Promise<unknown>[] = [];
      let built = 0;
      const deadline = Date.now() + 5_000;
      for (let i = 0; built === 0 && Date.now() < deadline; i++) {
        appends.push(store.append(msg({ user: `u${i % 9}`, at: T, text: `m${i}` })));
        await new Promise((resolve) => setTimeout(resolve, 2));
        if (i % 25 === 0) built = await viewCount(store);
      }
      expect(built).toBeGreaterThan(0);
      await Promise.all(appends);
    });
  });
});

describe('a batch of the views that fails', () => {
  it('says why in its own message (an error\'s message, or what was thrown), and names the records it held', async () => {
    expect(new BatchError([3, 4], new Error('disk I/O error'))).toMatchObject({ message: 'disk I/O error', seqs: [3, 4] });
    expect(new BatchError([], 'interrupted').message).toBe('interrupted');
    expect(new BatchError([], undefined).message).toBe('undefined');
    // Failing before it took any record, it names none.
    const backend = await openSqlite({ file: ':memory:', fsync: false });
    try {
      backend.lockProjection = async () => {
        throw new Error('database is locked');
      };
      const failure = await new ViewWriter(backend).project(10).then(() => undefined, (error: unknown) => error);
      expect(failure).toBeInstanceOf(BatchError);
      expect(failure).toMatchObject({ message: 'database is locked', seqs: [] });
    } finally {
      await backend.close();
    }
  });
});
