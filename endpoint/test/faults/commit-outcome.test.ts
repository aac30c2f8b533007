/**
 * A commit whose answer is lost: the connection to PostgreSQL fails after the endpoint sent COMMIT
 * and before the answer came (a proxy in between makes it happen, endpoint/test/helpers/commit-proxy.ts).
 * The endpoint asks the database whether the records are there before it answers: 200 when the
 * commit landed, 503 when it did not, and 504 (never 503) when the database does not say in time.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { openStore } from '../../src/store/open.js';
import { CommitOutcomeUnknownError, StoreUnavailableError, type RecordStore } from '../../src/store/store.js';
import { startCommitProxy, type CommitProxy } from '../helpers/commit-proxy.js';
import { createTestDatabase, queryDatabase, TEST_SERVER_URL, type TestDatabase } from '../helpers/postgres.js';
import { Q, message, start, track } from '../helpers.js';
import { universal } from '../store/databases.js';

let db: TestDatabase;
let proxy: CommitProxy;
let endpoint: TrackingEndpoint | undefined;
let store: RecordStore | undefined;
let log: string[] = [];

beforeAll(async () => {
  const server = new URL(TEST_SERVER_URL);
  proxy = await startCommitProxy({ host: server.hostname, port: Number(server.port || 5432) });
});
afterAll(async () => {
  await proxy.close();
});
afterEach(async () => {
  proxy.restore();
  await endpoint?.close();
  await store?.close();
  await db.drop();
  endpoint = undefined;
  store = undefined;
  log = [];
});

async function begin(): Promise<TrackingEndpoint> {
  db = await createTestDatabase();
  endpoint = await start({ database: proxy.urlFor(db.url), log: (line) => log.push(line) });
  return endpoint;
}

/** How many stored records have `text` as their text. */
async function storedWith(text: string): Promise<number> {
  const rows = await queryDatabase<{ n: number }>(db.url, `select count(*)::int as n from records where body->>'text' = $1`, [text]);
  return rows[0].n;
}

describe('POST /track when the answer to its commit is lost', () => {
  it('answers 200 when the commit landed, and the record is stored once', async () => {
    await begin();
    const lost = proxy.next('lose-answer');
    const res = await track(endpoint!, Q.universalIn, message('u1', 'landed'));
    await lost;
    expect(res).toMatchObject({ status: 200, body: { ok: true } });
    expect(await storedWith('landed')).toBe(1);
    const rows = await queryDatabase<{ seq: number }>(db.url, `select seq::int from records where body->>'text' = 'landed'`);
    expect(res.body.id).toBe(rows[0].seq);
    expect(log.filter((line) => line.includes('the answer to a commit of 1 record(s) was lost'))).toHaveLength(1);
    expect(log.some((line) => line.endsWith('; they are stored.'))).toBe(true);
    // The endpoint goes on as before.
    expect((await track(endpoint!, Q.universalIn, message('u1', 'after'))).status).toBe(200);
    expect(await storedWith('after')).toBe(1);
  });

  it('answers 200 for every record of a batch whose commit landed', async () => {
    await begin();
    const lost = proxy.next('lose-answer');
    const texts = Array.from({ length: 12 }, (_, i) => `batch ${i}`);
    const answers = await Promise.all(texts.map((text, i) => track(endpoint!, Q.universalIn, message(`u${i}`, text))));
    await lost;
    expect(answers.map((answer) => answer.status)).toEqual(texts.map(() => 200));
    for (const text of texts) expect(await storedWith(text)).toBe(1);
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(texts.length);
  });

  it('answers 503 with Retry-After when the commit did not land, and the record is not stored', async () => {
    await begin();
    const dropped = proxy.next('drop-commit');
    const res = await track(endpoint!, Q.universalIn, message('u1', 'dropped'));
    await dropped;
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body.error).toContain('it was not stored');
    expect(await storedWith('dropped')).toBe(0);
    expect(log.some((line) => line.endsWith('; they were not stored.'))).toBe(true);
    const again = await track(endpoint!, Q.universalIn, message('u1', 'dropped'));
    expect(again.status).toBe(200);
    expect(await storedWith('dropped')).toBe(1);
  });

  it('answers 503 when the commit did not land, even if another record now has the number it was given', async () => {
    await begin();
    expect((await track(endpoint!, Q.universalIn, message('u1', 'first'))).status).toBe(200);
    const [first] = await queryDatabase<{ received_at: number; bot: string }>(db.url, 'select received_at::float8 as received_at, bot from records');
    const dropped = proxy.next('drop-commit', { refuseAfter: true });
    const answer = track(endpoint!, Q.universalIn, message('u1', 'mine'));
    await dropped;
    // As after a crash that lost the sequence's step: the same number, taken by another writer's record.
    const [{ seq }] = await queryDatabase<{ seq: number }>(db.url, 'select last_value::int as seq from record_seq');
    await queryDatabase(db.url, `insert into records (seq, received_at, occurred_at, type, bot, body) values ($1, $2, $2, 'incoming', $3, $4)`, [seq, first.received_at, first.bot, JSON.stringify({ text: 'theirs', userId: 'u2' })]);
    proxy.restore();
    const res = await answer;
    expect(res.status).toBe(503);
    expect(await storedWith('mine')).toBe(0);
  });

  it('answers 504, saying the record may be stored, when the database does not answer in time, and does not commit it again', async () => {
    await begin();
    const dropped = proxy.next('drop-commit', { refuseAfter: true });
    const sent = performance.now();
    const answer = track(endpoint!, Q.universalIn, message('u1', 'unknown'));
    await dropped;
    const res = await answer;
    expect(performance.now() - sent).toBeGreaterThanOrEqual(3_900);
    expect(res.status).toBe(504);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(res.body).toEqual({
      ok: false,
      error: 'The database did not confirm whether the record was stored (the connection to it was lost during the commit and it did not answer again in time): it may have been. Sending it again with the same Idempotency-Key stores it once; without one, it may store it twice.',
    });
    expect(log.some((line) => line.startsWith('tracking endpoint: a record may or may not be stored: The connection to the database was lost while the record was being committed, and the database did not answer within 4000 ms'))).toBe(true);
    proxy.restore();
    expect(await storedWith('unknown')).toBe(0);
  }, 15_000);
});

describe('POST /track with an Idempotency-Key, when the answer to its commit is lost', () => {
  it('stores once a record answered 504 whose commit landed, when it is sent again with its key: 200 with the stored id', async () => {
    await begin();
    const lost = proxy.next('lose-answer', { refuseAfter: true });
    const answer = track(endpoint!, Q.universalIn, message('u1', 'landed, unknown'), { 'Idempotency-Key': 'retry-1' });
    await lost;
    expect((await answer).status).toBe(504);
    proxy.restore();
    const again = await track(endpoint!, Q.universalIn, message('u1', 'landed, unknown'), { 'Idempotency-Key': 'retry-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const rows = await queryDatabase<{ seq: number }>(db.url, `select seq::int from records where body->>'text' = 'landed, unknown'`);
    expect(rows).toEqual([{ seq: again.body.id }]);
  }, 15_000);

  it('stores once a record answered 504 whose commit did not land, when it is sent again with its key', async () => {
    await begin();
    const dropped = proxy.next('drop-commit', { refuseAfter: true });
    const answer = track(endpoint!, Q.universalIn, message('u1', 'dropped, unknown'), { 'Idempotency-Key': 'retry-2' });
    await dropped;
    expect((await answer).status).toBe(504);
    proxy.restore();
    const again = await track(endpoint!, Q.universalIn, message('u1', 'dropped, unknown'), { 'Idempotency-Key': 'retry-2' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(await storedWith('dropped, unknown')).toBe(1);
    const third = await track(endpoint!, Q.universalIn, message('u1', 'dropped, unknown'), { 'Idempotency-Key': 'retry-2' });
    expect(third.body.id).toBe(again.body.id);
    expect(await storedWith('dropped, unknown')).toBe(1);
  }, 15_000);
});

describe('the store, when the answer to a commit is lost', () => {
  async function open(commitCheckMs: number): Promise<RecordStore> {
    db = await createTestDatabase();
    ({ store } = await openStore({ database: proxy.urlFor(db.url), log: (line) => log.push(line), commitCheckMs }));
    return store;
  }

  it('rejects a batch with a CommitOutcomeUnknownError after its bound, commits none of it again, and stores the next records', async () => {
    const s = await open(300);
    const dropped = proxy.next('drop-commit', { refuseAfter: true });
    const started = performance.now();
    const appends = [1, 2, 3].map((i) => s.append(universal('incoming', { text: `unknown ${i}`, userId: 'u1' })).then(() => 'stored', (error: unknown) => error));
    await dropped;
    const outcomes = await Promise.all(appends);
    const waited = performance.now() - started;
    for (const outcome of outcomes) expect(outcome).toBeInstanceOf(CommitOutcomeUnknownError);
    expect((outcomes[0] as Error).message).toBe('The connection to the database was lost while the record was being committed, and the database did not answer within 300 ms whether it was stored: it may have been.');
    expect((outcomes[0] as Error).name).toBe('CommitOutcomeUnknownError');
    // The connection's own error, kept for whoever looks deeper.
    expect((outcomes[0] as Error).cause).toBeInstanceOf(Error);
    expect(log).toContainEqual(expect.stringMatching(/^tracking endpoint: the answer to a commit of 3 record\(s\) was lost \(.+\); the database did not answer within 300 ms whether they are stored\.$/));
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(waited).toBeLessThan(3_000);
    proxy.restore();
    expect(await queryDatabase(db.url, `select 1 from records where body->>'text' like 'unknown %'`)).toEqual([]);
    const next = await s.append(universal('incoming', { text: 'next', userId: 'u1' }));
    expect(next.seq).toBeGreaterThan(0);
    const health = await s.health();
    expect(health.ok).toBe(true);
  });

  it('counts against health while no record has been stored since', async () => {
    const s = await open(200);
    const dropped = proxy.next('drop-commit', { refuseAfter: true });
    const append = s.append(universal('incoming', { text: 'x', userId: 'u1' })).catch((error: unknown) => error);
    await dropped;
    expect(await append).toBeInstanceOf(CommitOutcomeUnknownError);
    proxy.restore();
    const health = await s.health();
    expect(health).toMatchObject({ ok: false });
    expect((health as { reason: string }).reason).toContain('did not answer within 200 ms');
  });

  it('finds a batch stored whose commit landed, when it held a key stored before: the others by their rows, that one by its key', async () => {
    const s = await open(3_000);
    const original = await s.append(universal('incoming', { text: 'original', userId: 'u1' }), undefined, 'seen');
    const lost = proxy.next('lose-answer');
    const appends = [
      s.append(universal('incoming', { text: 'new 1', userId: 'u1' }), undefined, 'fresh'),
      s.append(universal('incoming', { text: 'original', userId: 'u1' }), undefined, 'seen'),
      s.append(universal('incoming', { text: 'new 2', userId: 'u2' })),
    ];
    await lost;
    const stored = await Promise.all(appends);
    expect(stored[1]).toMatchObject({ seq: original.seq, duplicate: true });
    expect(stored[0].duplicate).toBeUndefined();
    expect(log).toContainEqual(expect.stringMatching(/^tracking endpoint: the answer to a commit of 2 record\(s\) was lost \(.+\); they are stored\.$/));
    const rows = await queryDatabase<{ seq: number; text: string }>(db.url, `select seq::int, body->>'text' as text from records order by seq`);
    expect(rows).toEqual([{ seq: original.seq, text: 'original' }, { seq: stored[0].seq, text: 'new 1' }, { seq: stored[2].seq, text: 'new 2' }]);
  });

  it('stores once a record whose outcome was unknown, appended again with its key', async () => {
    const s = await open(300);
    const lost = proxy.next('lose-answer', { refuseAfter: true });
    const first = s.append(universal('incoming', { text: 'unknown keyed', userId: 'u1' }), undefined, 'again').catch((error: unknown) => error);
    await lost;
    expect(await first).toBeInstanceOf(CommitOutcomeUnknownError);
    proxy.restore();
    const again = await s.append(universal('incoming', { text: 'unknown keyed', userId: 'u1' }), undefined, 'again');
    expect(again.duplicate).toBe(true);
    expect(await queryDatabase(db.url, `select seq::int as seq from records`)).toEqual([{ seq: again.seq }]);
  });

  it('rejects with a StoreUnavailableError when the commit did not land', async () => {
    const s = await open(2_000);
    const dropped = proxy.next('drop-commit');
    const append = s.append(universal('incoming', { text: 'gone', userId: 'u1' })).catch((error: unknown) => error);
    await dropped;
    expect(await append).toBeInstanceOf(StoreUnavailableError);
  });

  it('rejects with a StoreUnavailableError at once, asking nothing, when the database is away before the commit is sent', async () => {
    const s = await open(3_000);
    proxy.cut();
    const started = performance.now();
    const error = await s.append(universal('incoming', { text: 'before commit', userId: 'u1' })).then(() => 'stored', (reason: unknown) => reason);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toMatch(/^The database cannot store records now: /);
    // Nothing was sent to commit, so there is no outcome to look for: no wait for the commit check, no line about a lost answer.
    expect(performance.now() - started).toBeLessThan(2_500);
    expect(log.filter((line) => line.includes('answer to a commit'))).toEqual([]);
    proxy.restore();
    expect(await storedWith('before commit')).toBe(0);
    expect((await s.append(universal('incoming', { text: 'after', userId: 'u1' }))).seq).toBeGreaterThan(0);
  });

  it('waits for the database to answer again, within the bound, and resolves when the commit landed', async () => {
    const s = await open(3_000);
    const lost = proxy.next('lose-answer', { refuseAfter: true });
    const append = s.append(universal('incoming', { text: 'later', userId: 'u1' }));
    await lost;
    setTimeout(() => proxy.restore(), 500);
    const started = performance.now();
    const record = await append;
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
    const rows = await queryDatabase<{ seq: number }>(db.url, `select seq::int from records where body->>'text' = 'later'`);
    expect(rows).toEqual([{ seq: record.seq }]);
  });
});
