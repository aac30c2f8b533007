/**
 * When the database cannot store or read: a write is answered 503 with Retry-After and nothing is
 * stored; a read is answered 503 with Retry-After; an error that is nobody's fault but ours is a
 * logged 500. Never a crash, and the endpoint answers normally once the database does.
 * The full disk is real (SQLite may not grow past its current pages); the other failures come
 * from a store method made to fail.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { StoreUnavailableError, type RecordStore } from '../../src/store/store.js';
import { Q, message, request, start, track } from '../helpers.js';

let endpoint: TrackingEndpoint | undefined;
let log: string[] = [];
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
  log = [];
});

async function begin(): Promise<RecordStore> {
  endpoint = await start({ log: (line) => log.push(line) });
  return endpoint.store as RecordStore;
}

/** Lets the SQLite database grow (`full: false`) or not past the pages it has now (as on a full disk). */
async function diskFull(store: RecordStore, full: boolean): Promise<void> {
  const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(store.db);
  await sql.raw(`pragma max_page_count = ${full ? rows[0].page_count : 1073741823}`).execute(store.db);
}

describe('POST /track when the database cannot write', () => {
  it('answers 503 with Retry-After when the store cannot write, stores nothing, and takes records again once it can', async () => {
    const store = await begin();
    expect((await track(endpoint!, Q.universalIn, message('u0', 'before'))).status).toBe(200);
    await diskFull(store, true);
    let refused;
    for (let i = 1; i <= 50 && refused === undefined; i++) {
      const res = await track(endpoint!, Q.universalIn, message(`u${i}`, `${i} ${'y'.repeat(3000)}`));
      if (res.status !== 200) refused = res;
    }
    expect(refused).toBeDefined();
    expect(refused!.status).toBe(503);
    expect(refused!.headers.get('retry-after')).toBe('1');
    expect(refused!.body).toEqual({ ok: false, error: 'The record could not be saved (the data file could not be written); it was not stored. Try again later.' });
    expect(log.filter((line) => line.startsWith('tracking endpoint: could not write the data file: '))).toHaveLength(1);
    const stored = await store.count();
    expect(await store.lastSeq()).toBe(stored);
    await diskFull(store, false);
    const after = await track(endpoint!, Q.universalIn, message('u1', 'room again'));
    expect(after).toMatchObject({ status: 200, body: { ok: true, id: stored + 1 } });
  });

  it('answers 503 with Retry-After when the store refuses the record for another reason, and says so in its log', async () => {
    const store = await begin();
    store.append = () => Promise.reject(new Error('the database said no'));
    const res = await track(endpoint!, Q.universalIn, message('u1', 'hi'));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(log[0]).toBe('tracking endpoint: could not write the data file: the database said no');
    expect(await store.count()).toBe(0);
  });
});

describe('reads when the database fails', () => {
  it('answers 503 with Retry-After when the database cannot be read now, and logs nothing', async () => {
    const store = await begin();
    store.record = () => Promise.reject(new StoreUnavailableError('The database cannot be reached.'));
    const res = await request(endpoint!, '/api/record?seq=1');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.body).toEqual({ ok: false, error: 'The database is not reachable right now; try again shortly.' });
    expect(log.filter((line) => line.startsWith('tracking endpoint: unexpected error'))).toEqual([]);
  });

  it('answers 503 when the database reports a passing failure of its own (SQLITE_BUSY)', async () => {
    const store = await begin();
    store.record = () => Promise.reject(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }));
    const res = await request(endpoint!, '/api/record?seq=1');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
  });

  it('answers 500 and logs the error with its stack when a read fails unexpectedly, and keeps answering', async () => {
    const store = await begin();
    const real = store.record.bind(store);
    store.record = () => Promise.reject(new TypeError('a bug in a query'));
    const res = await request(endpoint!, '/api/record?seq=1');
    expect(res.status).toBe(500);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(res.body).toEqual({ ok: false, error: 'The endpoint hit an unexpected error; the request was not processed. See the endpoint\'s log.' });
    expect(log.filter((line) => line.startsWith('tracking endpoint: unexpected error'))).toHaveLength(1);
    expect(log[0]).toMatch(/^tracking endpoint: unexpected error: TypeError: a bug in a query\n\s+at /);
    store.record = real;
    expect((await track(endpoint!, Q.universalIn, message('u1', 'hi'))).status).toBe(200);
    expect((await request(endpoint!, '/api/record?seq=1')).status).toBe(200);
  });

  it('answers /healthz with 503 and Retry-After while the database does not answer, 200 once it does', async () => {
    const store = await begin();
    const real = store.ping.bind(store);
    store.ping = () => Promise.reject(new Error('no answer'));
    const down = await request(endpoint!, '/healthz');
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect(down.body).toEqual({ ok: false, error: 'The database (sqlite) does not answer.' });
    store.ping = real;
    expect((await request(endpoint!, '/healthz')).body).toEqual({ ok: true, database: 'sqlite' });
  });
});
