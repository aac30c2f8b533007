/**
 * The store's own API (RecordStore: append, records, count, watch, importOnce, close) on SQLite and
 * on PostgreSQL: what a caller observes of numbering, commits, failures and closing.
 */
import { describe, expect, it } from 'vitest';
import { BOT, appendEach, appendTogether, databases, msg, universal, withStore } from './databases.js';
import { openStore } from '../../src/store/open.js';
import { RecordStore, StoreUnavailableError, type Backend } from '../../src/store/store.js';
import { queryDatabase } from '../helpers/postgres.js';

const DBS = databases();
const text = (record: { body: unknown }) => (record.body as { text: string }).text;

/** The store's backend, with its commit failing (with `failure`) any batch that holds a message saying `refuse`. */
function refusing(store: RecordStore, failure: () => Error): RecordStore {
  const backend = (store as unknown as { backend: Backend }).backend;
  return new RecordStore({
    ...backend,
    commitRecords: async (rows) => {
      if (rows.some((row) => String(row.body).includes('"refuse'))) throw failure();
      return backend.commitRecords(rows);
    },
  });
}

describe.each(DBS)('the store\'s API on $name', ({ name, fresh }) => {
  it('numbers each record from 1 as it stores it, with when it was received and when it happened, and finds it by number', async () => {
    await withStore(await fresh(), async (store) => {
      expect(await store.count()).toBe(0);
      expect(await store.lastSeq()).toBe(0);
      expect(await store.records()).toEqual([]);
      const before = Date.now();
      const first = await store.append(msg({ user: 'ann', at: '2026-03-02T10:00:00Z', text: 'one' }));
      const second = await store.append(universal('incoming', { text: 'two', userId: 'ann' }));
      const after = Date.now();
      expect(first).toMatchObject({ seq: 1, occurredAt: '2026-03-02T10:00:00.000Z', platform: 'universal', platformKind: 'universal', v: '10.1.1-rest', type: 'incoming', bot: BOT });
      expect(Date.parse(first.receivedAt)).toBeGreaterThanOrEqual(before - 5);
      expect(Date.parse(first.receivedAt)).toBeLessThanOrEqual(after + 5);
      expect(second.seq).toBe(2);
      expect(second.occurredAt).toBe(second.receivedAt);
      expect(await store.record(1)).toEqual(first);
      expect(await store.record(2)).toEqual(second);
      expect(await store.record(3)).toBeUndefined();
      expect(await store.count()).toBe(2);
      expect(await store.lastSeq()).toBe(2);
      expect(store.kind).toBe(name === 'SQLite' ? 'sqlite' : 'postgres');
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });

  it('lists records in order from after a number, 1000 at most unless told', async () => {
    await withStore(await fresh(), async (store) => {
      await appendTogether(store, Array.from({ length: 1005 }, (_, i) => universal('incoming', { text: `m${i + 1}`, userId: `u${i % 3}` })));
      expect((await store.records()).map(text)).toEqual(Array.from({ length: 1000 }, (_, i) => `m${i + 1}`));
      expect((await store.records({ after: 1000 })).map(text)).toEqual(['m1001', 'm1002', 'm1003', 'm1004', 'm1005']);
      expect((await store.records({ after: 2, limit: 2 })).map((r) => r.seq)).toEqual([3, 4]);
      expect((await store.records({ limit: 1 })).map((r) => r.seq)).toEqual([1]);
      expect(await store.count()).toBe(1005);
      expect(await store.lastSeq()).toBe(1005);
    });
  });

  it('one record the database refuses fails alone, with the database\'s own error, and the rest of its batch is stored', async () => {
    const database = await fresh();
    await withStore(database, async (opened) => {
      const store = refusing(opened, () => new Error('refused: bad row'));
      const results = await Promise.allSettled(['a', 'refuse me', 'b', 'c'].map((t) => store.append(universal('incoming', { text: t, userId: 'u' }))));
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      const refused = (results[1] as PromiseRejectedResult).reason as Error;
      expect(refused).not.toBeInstanceOf(StoreUnavailableError);
      expect(refused.message).toBe('refused: bad row');
      expect(store.isUnavailable(refused)).toBe(false);
      expect((await store.records()).map(text)).toEqual(['a', 'b', 'c']);
      expect((results as PromiseFulfilledResult<{ seq: number }>[]).filter((r) => r.status === 'fulfilled').map((r) => r.value.seq)).toEqual((await store.records()).map((r) => r.seq));
      // Alone, it fails with the same error, tried once: there is no batch to take it out of.
      const backend = (store as unknown as { backend: Backend }).backend;
      const commit = backend.commitRecords;
      let commits = 0;
      backend.commitRecords = (rows) => {
        commits++;
        return commit(rows);
      };
      await expect(store.append(universal('incoming', { text: 'refuse again', userId: 'u' }))).rejects.toThrow('refused: bad row');
      expect(commits).toBe(1);
      expect(await store.count()).toBe(3);
    });
  });

  it('refuses a whole batch, saying the database cannot store records now, when the database cannot write', async () => {
    await withStore(await fresh(), async (opened) => {
      const code = name === 'SQLite' ? 'SQLITE_FULL' : '53100';
      const cause = Object.assign(new Error('the disk is full'), { code });
      const store = refusing(opened, () => cause);
      const results = await Promise.allSettled(['a', 'refuse', 'b'].map((t) => store.append(universal('incoming', { text: t, userId: 'u' }))));
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
      for (const result of results) {
        const error = (result as PromiseRejectedResult).reason as StoreUnavailableError;
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect(error.name).toBe('StoreUnavailableError');
        expect(error.message).toBe('The database cannot store records now: the disk is full');
        expect(error.cause).toBe(cause);
        expect(store.isUnavailable(error)).toBe(true);
      }
      expect(store.isUnavailable(cause)).toBe(true);
      expect(await store.count()).toBe(0);
      // Once it can write again, records are stored.
      expect((await store.append(universal('incoming', { text: 'fine', userId: 'u' }))).seq).toBeGreaterThan(0);
    });
  });

  it('tells the database\'s "cannot write now" errors from others', async () => {
    await withStore(await fresh(), async (store) => {
      const unavailable = name === 'SQLite'
        ? ['SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_READONLY', 'SQLITE_CANTOPEN', 'SQLITE_NOTADB', 'SQLITE_CORRUPT', 'SQLITE_PROTOCOL']
        : ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', '08006', '53100', '57P01', '57P03', '58030', '25006'];
      const others = name === 'SQLite' ? ['SQLITE_CONSTRAINT', 'SQLITE_ERROR', 'XSQLITE_FULL', 'ECONNREFUSED', ''] : ['23505', '42P01', '22P02', '57014', '25P02', 'SQLITE_FULL', 'X08006', ''];
      for (const code of unavailable) expect(store.isUnavailable(Object.assign(new Error('x'), { code })), code).toBe(true);
      for (const code of others) expect(store.isUnavailable(Object.assign(new Error('x'), { code })), code).toBe(false);
      expect(store.isUnavailable(new StoreUnavailableError('closed'))).toBe(true);
      expect(store.isUnavailable(new Error('syntax error'))).toBe(false);
      expect(store.isUnavailable(undefined)).toBe(false);
      expect(store.isUnavailable({ code: 5 })).toBe(false);
      if (name === 'PostgreSQL') {
        for (const message of ['Connection terminated unexpectedly', 'connection timeout expired', 'Client has encountered a connection error and is not queryable', 'Cannot use a pool after calling end on the pool']) {
          expect(store.isUnavailable(new Error(message)), message).toBe(true);
        }
      }
    });
  });

  it('refuses appends once closed, after storing those already made; closing twice is safe', async () => {
    const database = await fresh();
    const { store } = await openStore({ database, log: () => undefined });
    const pending = appendTogether(store, [universal('incoming', { text: 'a', userId: 'u' }), universal('incoming', { text: 'b', userId: 'u' })]);
    await store.close();
    expect((await pending).map(text)).toEqual(['a', 'b']);
    const refused = store.append(universal('incoming', { text: 'c', userId: 'u' }));
    await expect(refused).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(refused).rejects.toThrow('The store is closed.');
    await store.close();
    await withStore(database, async (again) => {
      expect((await again.records()).map(text)).toEqual(['a', 'b']);
    });
  });

  it('tells those watching after each commit, goes on when one of them throws, and stops telling one that stopped watching', async () => {
    await withStore(await fresh(), async (store) => {
      const heard: string[] = [];
      const stopA = store.watch(() => heard.push('a'));
      const stopThrowing = store.watch(() => {
        throw new Error('a listener that fails');
      });
      const stopB = store.watch(() => heard.push('b'));
      await store.append(universal('incoming', { text: 'one', userId: 'u' }));
      await expect.poll(() => heard.filter((h) => h === 'b').length).toBeGreaterThanOrEqual(1);
      expect(heard.filter((h) => h === 'a').length).toBeGreaterThanOrEqual(1);
      stopA();
      stopThrowing();
      const before = heard.length;
      await store.append(universal('incoming', { text: 'two', userId: 'u' }));
      await expect.poll(() => heard.length).toBeGreaterThan(before);
      expect(heard.slice(before).every((h) => h === 'b')).toBe(true);
      stopB();
      stopB();
      const after = heard.length;
      await store.append(universal('incoming', { text: 'three', userId: 'u' }));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard.length).toBe(after);
    });
  });

  it('imports records kept elsewhere once, all in order with when they were received, numbered after those stored, and tells those watching', async () => {
    await withStore(await fresh(), async (store) => {
      await store.append(universal('incoming', { text: 'already here', userId: 'u' }));
      let heard = 0;
      const stop = store.watch(() => heard++);
      const old = (i: number) => ({ record: { ...universal('incoming', { text: `old ${i}`, userId: `u${i % 4}` }), receivedAt: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString() }, json: JSON.stringify({ text: `old ${i}`, userId: `u${i % 4}` }) });
      async function* source(n: number) {
        for (let i = 0; i < n; i++) yield old(i);
      }
      expect(await store.importOnce('archive-1', source(1234))).toBe(1234);
      // Told once the imported records are in the views, which a read waits for.
      await store.db.selectFrom('entries').select('seq').limit(1).execute();
      expect(heard).toBeGreaterThanOrEqual(1);
      const records = await store.records({ limit: 5000 });
      expect(records).toHaveLength(1235);
      expect(records.map((r) => r.seq)).toEqual(Array.from({ length: 1235 }, (_, i) => i + 1));
      expect(records[1]).toMatchObject({ seq: 2, receivedAt: '2025-01-01T00:00:00.000Z', occurredAt: '2025-01-01T00:00:00.000Z', body: { text: 'old 0' } });
      expect(records[1234]).toMatchObject({ receivedAt: new Date(Date.UTC(2025, 0, 1) + 1233 * 1000).toISOString(), body: { text: 'old 1233' } });
      // The same source again: nothing, and undefined for "imported before".
      expect(await store.importOnce('archive-1', source(3))).toBeUndefined();
      expect(await store.count()).toBe(1235);
      // Another source with nothing in it: imported, zero records, nobody told.
      const before = heard;
      expect(await store.importOnce('archive-2', source(0))).toBe(0);
      expect(await store.importOnce('archive-2', source(2))).toBeUndefined();
      expect(heard).toBe(before);
      stop();
      const { n } = await store.db.selectFrom('imports').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect(Number(n)).toBe(2);
      expect((await store.db.selectFrom('imports').select(['source', 'records']).orderBy('source').execute()).map((r) => [r.source, Number(r.records)])).toEqual([['archive-1', 1234], ['archive-2', 0]]);
    });
  });

  it('imports a large source as it reads it, 500 records at a time, not all of it held in memory first', async () => {
    await withStore(await fresh(), async (opened) => {
      const backend = (opened as unknown as { backend: Backend }).backend;
      let read = 0;
      // Each numbering of a batch: how many records it numbers, and how many had been read by then.
      const batches: [number, number][] = [];
      const store = new RecordStore({ ...backend, allocateSeqs: (trx, count) => (batches.push([count, read]), backend.allocateSeqs(trx, count)) });
      async function* source() {
        for (let i = 0; i < 1_000; i++) {
          read++;
          yield { record: { ...universal('incoming', { text: `h${i}`, userId: `u${i % 3}` }), receivedAt: '2025-01-01T00:00:00.000Z' }, json: JSON.stringify({ text: `h${i}`, userId: `u${i % 3}` }) };
        }
      }
      expect(await store.importOnce('history', source())).toBe(1_000);
      // The first 500 are written before the 501st is read; exactly 1,000 leave no empty batch at the end.
      expect(batches).toEqual([[500, 500], [500, 1_000]]);
      expect(await store.count()).toBe(1_000);
      // (Read through the views, so that they are built before the store's backend closes.)
      expect((await store.db.selectFrom('entries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n).toBe(1_000);
    });
  });

  it('imports nothing of a source that fails part way', async () => {
    await withStore(await fresh(), async (store) => {
      async function* failing() {
        for (let i = 0; i < 700; i++) yield { record: { ...universal('incoming', { text: `x${i}`, userId: 'u' }), receivedAt: '2025-01-01T00:00:00.000Z' }, json: JSON.stringify({ text: `x${i}`, userId: 'u' }) };
        throw new Error('the file could not be read');
      }
      await expect(store.importOnce('broken', failing())).rejects.toThrow('the file could not be read');
      expect(await store.count()).toBe(0);
      async function* fine() {
        yield { record: { ...universal('incoming', { text: 'ok', userId: 'u' }), receivedAt: '2025-01-01T00:00:00.000Z' }, json: JSON.stringify({ text: 'ok', userId: 'u' }) };
      }
      expect(await store.importOnce('broken', fine())).toBe(1);
    });
  });
});

describe('the store on PostgreSQL', () => {
  const [, postgres] = databases();

  it('announces each commit and each import to the other endpoints on the database, with the last number stored', async () => {
    const database = await postgres.fresh();
    await withStore(database, async (a) => {
      await withStore(database, async (b) => {
        let heard = 0;
        const stop = b.watch(() => heard++);
        // The other endpoint listens on a connection of its own: wait until it does.
        await expect.poll(() => listening(database), { timeout: 10_000 }).toBe(1);
        const payloads: string[] = [];
        const listener = await listenOn(database, (payload) => payloads.push(payload));
        try {
          await appendTogether(a, [universal('incoming', { text: 'a', userId: 'u' }), universal('incoming', { text: 'b', userId: 'u' })]);
          await expect.poll(() => heard, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
          await expect.poll(() => payloads, { timeout: 10_000 }).toEqual(['2']);
          async function* records(n: number) {
            for (let i = 0; i < n; i++) yield { record: { ...universal('incoming', { text: 'old', userId: 'u' }), receivedAt: '2025-01-01T00:00:00.000Z' }, json: JSON.stringify({ text: 'old', userId: 'u' }) };
          }
          // An import of nothing announces nothing; one of a record announces it.
          expect(await a.importOnce('empty', records(0))).toBe(0);
          expect(await a.importOnce('elsewhere', records(1))).toBe(1);
          await expect.poll(() => payloads, { timeout: 10_000 }).toEqual(['2', '3']);
        } finally {
          await listener.end();
        }
        stop();
        // Nobody watches b any more: its listening connection is closed.
        await expect.poll(() => listening(database), { timeout: 10_000 }).toBe(0);
      });
    });
  });

  it('listens on one connection however many watch, until the last stops watching or the store closes', async () => {
    const database = await postgres.fresh();
    const { store } = await openStore({ database, log: () => undefined });
    try {
      const stopFirst = store.watch(() => undefined);
      const stopSecond = store.watch(() => undefined);
      await expect.poll(() => listening(database), { timeout: 10_000 }).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await listening(database)).toBe(1);
      stopFirst();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await listening(database)).toBe(1);
      stopSecond();
      await expect.poll(() => listening(database), { timeout: 10_000 }).toBe(0);
      store.watch(() => undefined);
      await expect.poll(() => listening(database), { timeout: 10_000 }).toBe(1);
    } finally {
      await store.close();
    }
    await expect.poll(() => listening(database), { timeout: 10_000 }).toBe(0);
  });

  it('numbers the records of a batch in increasing order', async () => {
    await withStore(await postgres.fresh(), async (store) => {
      const stored = await appendTogether(store, Array.from({ length: 50 }, (_, i) => universal('incoming', { text: `m${i}`, userId: 'u' })));
      expect(stored.map((r) => r.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect((await appendEach(store, [universal('incoming', { text: 'next', userId: 'u' })]))[0].seq).toBe(51);
    });
  });
});

/** Connections to the database that listen for commits. */
async function listening(url: string): Promise<number> {
  return Number((await queryDatabase<{ n: string }>(url, "select count(*) as n from pg_stat_activity where datname = current_database() and query ilike 'LISTEN%' and state = 'idle'"))[0].n);
}

/** A plain LISTEN on the tracking channel: each notification's payload. */
async function listenOn(url: string, onPayload: (payload: string) => void) {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  client.on('notification', (n) => onPayload(n.payload ?? ''));
  await client.query('LISTEN tracking_records');
  return client;
}

