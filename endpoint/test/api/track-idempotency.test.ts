/**
 * `Idempotency-Key` on POST /track: a record sent again with the key it was first sent with (a
 * client's retry after a 504 or a lost connection) is answered as the first was and stored once,
 * on SQLite and on PostgreSQL, one request after the other or many at once, on one endpoint or
 * two sharing a database. Keys are per bot; a record without one is stored each time it comes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import type { RecordStore } from '../../src/store/store.js';
import { KEY, Q, bothDatabases, message, start, track } from '../helpers.js';
import { createTestDatabase, queryDatabase } from '../helpers/postgres.js';

const OTHER_KEY = 'test-key-2';

let endpoints: TrackingEndpoint[] = [];
afterEach(async () => {
  await Promise.all(endpoints.map((endpoint) => endpoint.close()));
  endpoints = [];
});

async function begin(database: string): Promise<TrackingEndpoint> {
  const endpoint = await start({ database, dataFile: undefined, apiKeys: [KEY, OTHER_KEY] });
  endpoints.push(endpoint);
  return endpoint;
}

/** A key no other test uses (the databases are shared by the tests of a file). */
const freshKey = () => `key-${crypto.randomUUID()}`;

/** How many stored records have `text` as their text. */
async function storedWith(endpoint: TrackingEndpoint, text: string): Promise<number> {
  let count = 0;
  for (let after = 0; ; ) {
    const page = await endpoint.store.records({ after, limit: 1000 });
    if (page.length === 0) return count;
    count += page.filter((record) => (record.body as { text?: string }).text === text).length;
    after = page[page.length - 1].seq;
  }
}

describe.each(bothDatabases('idempotency.db'))('on $name', ({ database }) => {
  it('stores a record sent twice with one key once, and answers both 200 with its id (the second marked Idempotent-Replayed)', async () => {
    const endpoint = await begin(database());
    const key = freshKey();
    const text = `twice ${key}`;
    const first = await track(endpoint, Q.universalIn, message('u1', text), { 'Idempotency-Key': key });
    const second = await track(endpoint, Q.universalIn, message('u1', text), { 'Idempotency-Key': key });
    expect(first.status).toBe(200);
    expect(second).toMatchObject({ status: 200, body: { ok: true, id: first.body.id } });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await storedWith(endpoint, text)).toBe(1);
    expect((await endpoint.store.record(first.body.id))?.body).toEqual(message('u1', text));
  });

  it('stores a record sent 20 times at once with one key once, and answers each 200 with its id', async () => {
    const endpoint = await begin(database());
    const key = freshKey();
    const text = `at once ${key}`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => track(endpoint, Q.universalIn, message('u1', text), { 'Idempotency-Key': key })));
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    expect(await storedWith(endpoint, text)).toBe(1);
  });

  it('keeps keys per bot: two bots sending one key store two records', async () => {
    const endpoint = await begin(database());
    const key = freshKey();
    const text = `two bots ${key}`;
    const mine = await track(endpoint, Q.universalIn, message('u1', text), { 'Idempotency-Key': key });
    const theirs = await track(endpoint, { ...Q.universalIn, apiKey: OTHER_KEY }, message('u1', text), { 'Idempotency-Key': key });
    expect(mine.status).toBe(200);
    expect(theirs.status).toBe(200);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(await storedWith(endpoint, text)).toBe(2);
  });

  it('stores a record without a key each time it comes (as before keys)', async () => {
    const endpoint = await begin(database());
    const text = `no key ${freshKey()}`;
    const first = await track(endpoint, Q.universalIn, message('u1', text));
    const second = await track(endpoint, Q.universalIn, message('u1', text));
    expect(second.body.id).not.toBe(first.body.id);
    expect(await storedWith(endpoint, text)).toBe(2);
  });

  it('counts a record sent twice with one key once in the views', async () => {
    const endpoint = await begin(database());
    const key = freshKey();
    const userId = `views-${key}`;
    for (let i = 0; i < 3; i++) expect((await track(endpoint, Q.universalIn, message(userId, 'hello'), { 'Idempotency-Key': key })).status).toBe(200);
    expect((await track(endpoint, Q.universalIn, message(userId, 'and more'), { 'Idempotency-Key': freshKey() })).status).toBe(200);
    const store = endpoint.store as unknown as RecordStore;
    const entries = await store.db.selectFrom('entries').select('text').where('user_id', '=', userId).execute();
    expect(entries.map((entry) => entry.text).sort()).toEqual(['and more', 'hello']);
    const users = await store.db.selectFrom('users').select('messages').where('user_id', '=', userId).execute();
    expect(users).toEqual([{ messages: 2 }]);
  });
});

describe('Idempotency-Key on PostgreSQL shared by two endpoints', () => {
  it('stores a record sent 20 times at once to two endpoints once, and answers each with its id', async () => {
    const db = await createTestDatabase();
    try {
      const one = await begin(db.url);
      const two = await begin(db.url);
      const key = freshKey();
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => track(i % 2 === 0 ? one : two, Q.universalIn, message('u1', 'shared'), { 'Idempotency-Key': key })));
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
      const rows = await queryDatabase<{ seq: number }>(db.url, `select seq::int from records where body->>'text' = 'shared'`);
      expect(rows).toHaveLength(1);
      expect(new Set(answers.map((answer) => answer.body.id))).toEqual(new Set([rows[0].seq]));
      expect(await queryDatabase(db.url, 'select idempotency_key from records')).toEqual([{ idempotency_key: key }]);
    } finally {
      await Promise.all(endpoints.splice(0).map((endpoint) => endpoint.close()));
      await db.drop();
    }
  });
});

describe('what a replay counts', () => {
  it('counts a masked record sent again with its key as masked once', async () => {
    const log: string[] = [];
    const endpoint = await start({ log: (line) => log.push(line), summaryIntervalMs: 0 });
    const body = message('u1', 'card 4111 1111 1111 1111');
    const first = await track(endpoint, Q.universalIn, body, { 'Idempotency-Key': 'masked-once' });
    const again = await track(endpoint, Q.universalIn, body, { 'Idempotency-Key': 'masked-once' });
    expect(again.body.id).toBe(first.body.id);
    await endpoint.close();
    expect(log.filter((line) => /records? accepted/.test(line))).toEqual(['tracking endpoint: since start: 2 records accepted (1 masked), 0 requests refused; records kept in memory only (lost on stop).']);
  });
});

describe('POST /track with an Idempotency-Key that is not valid', () => {
  const cases: [string, string, string][] = [
    ['empty', '', 'an empty value'],
    ['longer than 200 characters', 'k'.repeat(201), '201 characters'],
    ['holding a tab', 'a\tb', 'a character outside printable ASCII'],
    ['holding a letter outside ASCII', 'clé', 'a character outside printable ASCII'],
    ['200 characters, one a tab', `${'k'.repeat(100)}\t${'k'.repeat(99)}`, 'a character outside printable ASCII'],
  ];
  it.each(cases)('answers 400 naming the header and what it takes when it is %s, and stores nothing', async (_, key, received) => {
    const endpoint = await start();
    endpoints.push(endpoint);
    const answer = await track(endpoint, Q.universalIn, message('u1', 'refused'), { 'Idempotency-Key': key });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      ok: false,
      error: 'The Idempotency-Key header is not valid.',
      problems: [{ path: 'Idempotency-Key (header)', expected: '1 to 200 printable ASCII characters (such as a UUID), or no such header', received }],
    });
    expect(await endpoint.store.count()).toBe(0);
  });

  it('counts the refusal in the metrics as invalid_idempotency_key', async () => {
    const endpoint = await start();
    endpoints.push(endpoint);
    expect((await track(endpoint, Q.universalIn, message('u1', 'refused'), { 'Idempotency-Key': '' })).status).toBe(400);
    const text = await (await fetch(`${endpoint.url}/metrics`)).text();
    const refused = text.split('\n').filter((line) => line.startsWith('tracking_requests_refused_total{'));
    expect(refused).toEqual([expect.stringMatching(/^tracking_requests_refused_total\{status="400",reason="invalid_idempotency_key",bot="[0-9a-f]+"\} 1$/)]);
  });

  it('takes a key of 200 printable characters, spaces and symbols included', async () => {
    const endpoint = await start();
    endpoints.push(endpoint);
    const key = ` !~${'x'.repeat(194)}}{ `.slice(0, 200);
    const padded = `a${key.slice(1, -1)}z`;
    expect(padded).toHaveLength(200);
    const first = await track(endpoint, Q.universalIn, message('u1', 'edge'), { 'Idempotency-Key': padded });
    const again = await track(endpoint, Q.universalIn, message('u1', 'edge'), { 'Idempotency-Key': padded });
    expect(first.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(await endpoint.store.count()).toBe(1);
  });
});
