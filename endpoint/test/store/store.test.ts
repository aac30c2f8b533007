/**
 * The store on both databases it supports, each real: a SQLite file in a temp folder, and a
 * database of its own on the PostgreSQL server (endpoint/test/helpers/postgres.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TrackingEndpointError, type StoredRecord, type TrackingEndpoint } from '../../src/index.js';
import { migrationsFor } from '../../src/store/migrations/index.js';
import { openStore } from '../../src/store/open.js';
import { RecordStore, type Backend, type NewRecord } from '../../src/store/store.js';
import { createTestDatabase, startDatabaseProxy, type DatabaseProxy, type TestDatabase } from '../helpers/postgres.js';
import { Q, message, request, start, tempDir, track } from '../helpers.js';

const silent = () => undefined;
const incoming = (text: string, userId = 'u1'): NewRecord => ({
  platform: 'universal', platformKind: 'universal', v: '10.1.1-rest', type: 'incoming', bot: 'abcdefabcdef', body: message(userId, text),
});
const texts = (records: StoredRecord[]) => records.map((r) => (r.body as { text: string }).text);

let pg: TestDatabase;
let folder: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  pg = await createTestDatabase();
  folder = await tempDir();
});
afterAll(async () => {
  await pg?.drop();
  await folder?.cleanup();
});

/** Each database, as a fresh place to keep records: a new SQLite file, or a new schema-free PostgreSQL database. */
const DATABASES: { name: string; fresh: () => Promise<string> }[] = [
  { name: 'SQLite', fresh: async () => join(folder.dir, `${Math.random().toString(36).slice(2)}.db`) },
  {
    name: 'PostgreSQL',
    fresh: async () => {
      const db = await createTestDatabase();
      cleanups.push(() => db.drop());
      return db.url;
    },
  },
];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe.each(DATABASES)('the store on $name', ({ fresh }) => {
  it('keeps every acknowledged record across a restart, and goes on numbering after the last', async () => {
    const database = await fresh();
    const first = await start({ database });
    for (const text of ['one', 'two', 'three']) expect((await track(first, Q.universalIn, message('u1', text))).status).toBe(200);
    await first.close();
    const second = await start({ database });
    try {
      expect(texts(await second.store.records())).toEqual(['one', 'two', 'three']);
      const res = await track(second, Q.universalIn, message('u1', 'four'));
      expect(res.body.id).toBeGreaterThan(Math.max(...(await second.store.records()).slice(0, 3).map((r) => r.seq)));
      expect((await request(second, '/api/users')).body.users[0]).toMatchObject({ userId: 'u1', messages: 4 });
    } finally {
      await second.close();
    }
  });

  it('creates the schema at the first start and migrates nothing twice', async () => {
    const database = await fresh();
    for (let i = 0; i < 2; i++) {
      const { store } = await openStore({ database, log: silent });
      try {
        const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(store.db);
        expect(rows.map((row) => row.name)).toEqual(Object.keys(migrationsFor(database.startsWith('postgres') ? 'postgres' : 'sqlite')));
      } finally {
        await store.close();
      }
    }
  });

  it('commits records that arrive together in one transaction, each acknowledged with its own number', async () => {
    const { store: opened } = await openStore({ database: await fresh(), log: silent });
    // The backend, counting its commits and what each held.
    const backend = (opened as unknown as { backend: Backend }).backend;
    const commits: number[] = [];
    const store = new RecordStore({ ...backend, commitRecords: (rows) => (commits.push(rows.length), backend.commitRecords(rows)) });
    try {
      const stored = await Promise.all(Array.from({ length: 1200 }, (_, i) => store.append(incoming(`m${i}`, `u${i % 7}`))));
      // As few transactions as the batch limit (500) allows: not one per record.
      expect(commits).toEqual([500, 500, 200]);
      const seqs = stored.map((r) => r.seq);
      expect(new Set(seqs).size).toBe(1200);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(await store.count()).toBe(1200);
      expect(texts(await store.records({ limit: 5000 }))).toEqual(stored.map((_, i) => `m${i}`));
      const second = await Promise.all(['x', 'y', 'z'].map((text) => store.append(incoming(text))));
      expect(commits).toEqual([500, 500, 200, 3]);
      expect(second.map((r) => r.seq)).toEqual([1201, 1202, 1203].map((n) => seqs[0] - 1 + n));
    } finally {
      await store.close();
    }
  });

  it('keeps a record the database refuses from failing the others of its batch', async () => {
    const { store: opened } = await openStore({ database: await fresh(), log: silent });
    // A backend that refuses any batch holding the text "poison", as a database refuses a bad row.
    const backend = (opened as unknown as { backend: Backend }).backend;
    const picky: Backend = {
      ...backend,
      commitRecords: async (rows) => {
        if (rows.some((row) => String(row.body).includes('poison'))) throw new Error('refused: poison');
        return backend.commitRecords(rows);
      },
    };
    const store = new RecordStore(picky);
    try {
      const results = await Promise.allSettled(['a', 'poison', 'b', 'c'].map((text) => store.append(incoming(text))));
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect(texts(await store.records())).toEqual(['a', 'b', 'c']);
    } finally {
      await store.close();
    }
  });

  it('imports an earlier version\'s NDJSON data once, without its page tokens, and leaves the file in place', async () => {
    const database = await fresh();
    const old = join(folder.dir, `old-${Math.random().toString(36).slice(2)}.ndjson`);
    const line = (seq: number, body: unknown, type = 'incoming', platform = 'universal') =>
      JSON.stringify({ seq, receivedAt: `2025-03-0${seq}T10:00:00.000Z`, platform, platformKind: platform === 'facebook' ? 'messenger' : 'universal', v: platform === 'facebook' ? '11.1.0-rest' : '10.1.1-rest', type, bot: 'abcdefabcdef', body });
    await writeFile(old, [
      line(1, message('ann', 'hello')),
      line(2, { json: { recipient: { id: 'psid' }, message: { text: 'hi' } }, qs: { access_token: 'EAA-secret-token' } }, 'outgoing', 'facebook'),
      '{"seq":3,"receivedAt":"2025-03-03T1', // torn by a crash
      line(4, message('ann', 'bye')),
    ].join('\n'));
    const { store, imported } = await openStore({ database, importFrom: old, log: silent });
    try {
      expect(imported).toMatchObject({ records: 3, skipped: 1 });
      const records = await store.records();
      expect(records.map((r) => r.receivedAt)).toEqual(['2025-03-01T10:00:00.000Z', '2025-03-02T10:00:00.000Z', '2025-03-04T10:00:00.000Z']);
      expect(JSON.stringify(records)).not.toContain('EAA-secret-token');
      expect((records[1].body as { qs: { access_token: string } }).qs.access_token).toBe('[access token removed by the endpoint]');
    } finally {
      await store.close();
    }
    const again = await openStore({ database, importFrom: old, log: silent });
    try {
      expect(again.imported).toBeUndefined();
      expect(await again.store.count()).toBe(3);
    } finally {
      await again.store.close();
    }
  });

  it('deletes what happened before the retention cutoff, and the figures over it', async () => {
    const endpoint = await start({ database: await fresh() });
    try {
      const at = (iso: string, text: string, user: string) => message(user, text, { platformJson: { timestamp: iso, conversation: { id: `c-${user}` } } });
      await track(endpoint, Q.universalIn, at('2025-01-10T10:00:00Z', 'old', 'gone'));
      await track(endpoint, Q.universalIn, at('2025-01-10T11:00:00Z', 'old too', 'kept'));
      await track(endpoint, Q.universalIn, at('2026-11-01T10:00:00Z', 'new', 'kept'));
      const deleted = await (endpoint.store as RecordStore).deleteBefore(Date.parse('2026-01-01T00:00:00Z'));
      expect(deleted).toBe(2);
      expect(texts(await endpoint.store.records())).toEqual(['new']);
      const users = (await request(endpoint, '/api/users')).body;
      expect(users.users.map((u: { userId: string }) => u.userId)).toEqual(['kept']);
      expect(users.users[0]).toMatchObject({ messages: 1, firstActivity: '2026-11-01T10:00:00.000Z' });
      expect((await request(endpoint, '/api/summary')).body).toMatchObject({ records: 1, messages: 1, users: 1 });
    } finally {
      await endpoint.close();
    }
  });
});

describe('SQLite', () => {
  it('is the default: .tracking-data/tracking.db under the working directory, and imports the earlier default data file', async () => {
    const { dir, cleanup } = await tempDir();
    // The working directory as the endpoint sees it (process.chdir is not allowed in test workers).
    const cwd = vi.spyOn(process, 'cwd').mockReturnValue(dir);
    try {
      await mkdir(join(dir, '.tracking-data'));
      await writeFile(join(dir, '.tracking-data', 'records.ndjson'), `${JSON.stringify({ seq: 1, receivedAt: '2025-01-01T00:00:00.000Z', platform: 'sms', platformKind: 'sms', v: '11.1.0-rest', type: 'incoming', bot: 'abcdefabcdef', body: message('u', 'from before') })}\n`);
      const endpoint = await start({ database: undefined, dataFile: undefined });
      try {
        expect(endpoint.database).toEqual({ kind: 'sqlite', location: join(dir, '.tracking-data', 'tracking.db') });
        expect(endpoint.imported).toMatchObject({ records: 1 });
        expect(texts(await endpoint.store.records())).toEqual(['from before']);
      } finally {
        await endpoint.close();
      }
    } finally {
      cwd.mockRestore();
      await cleanup();
    }
  });

  it('refuses a second endpoint on the same file, saying what to do', async () => {
    const database = join(folder.dir, 'shared.db');
    const first = await start({ database });
    try {
      const second = start({ database });
      await expect(second).rejects.toThrow(TrackingEndpointError);
      await expect(second).rejects.toThrow(/in use by another tracking endpoint.*PostgreSQL/s);
      expect((await track(first, Q.universalIn, message('u1', 'still mine'))).status).toBe(200);
    } finally {
      await first.close();
    }
    const third = await start({ database });
    await third.close();
  });

  it('answers 503 with Retry-After on a full disk, stores nothing it refused, says why in its log and at /healthz, and takes records again once there is room', async () => {
    const database = join(folder.dir, `full-${Math.random().toString(36).slice(2)}.db`);
    const log: string[] = [];
    const endpoint = await start({ database, log: (line) => log.push(line) });
    let stored = 0;
    try {
      const db = (endpoint.store as RecordStore).db;
      expect((await request(endpoint, '/healthz')).status).toBe(200);
      const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(db);
      // The database may not grow past what it holds now: as when the disk is full (SQLITE_FULL).
      await sql.raw(`pragma max_page_count = ${rows[0].page_count}`).execute(db);
      const answers = [];
      for (let i = 0; i < 40; i++) answers.push(await track(endpoint, Q.universalIn, message(`u${i}`, `x${i} ${'y'.repeat(2000)}`)));
      const refused = answers.filter((a) => a.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      expect(Number(refused[0].headers.get('retry-after'))).toBeGreaterThan(0);
      const acknowledged = answers.filter((a) => a.status === 200).map((a) => a.body.id);
      expect((await endpoint.store.records({ limit: 100 })).map((r) => r.seq)).toEqual(acknowledged);
      // The log gives SQLite's own reason, as the database's failure to write (not a rollback that hides it).
      const written = log.filter((line) => line.startsWith('tracking endpoint: could not write the data file: '));
      expect(written.length).toBe(refused.length);
      expect(written[0]).toBe('tracking endpoint: could not write the data file: The database cannot store records now: database or disk is full');
      expect(log.join('\n')).not.toMatch(/cannot rollback/);
      // A load balancer hears that this endpoint cannot take records.
      const health = await request(endpoint, '/healthz');
      expect(health.status).toBe(503);
      expect(health.headers.get('retry-after')).not.toBeNull();
      expect(health.body.error).toMatch(/^The database cannot store records: none has been stored since \d{4}-.+Z \(database or disk is full\)\.$/);
      await sql.raw('pragma max_page_count = 1073741823').execute(db);
      expect((await track(endpoint, Q.universalIn, message('u1', 'room again'))).status).toBe(200);
      expect((await request(endpoint, '/healthz')).body).toEqual({ ok: true, database: 'sqlite' });
      stored = await endpoint.store.count();
      expect(stored).toBe(acknowledged.length + 1);
      expect((await request(endpoint, '/api/summary')).body.records).toBe(stored);
    } finally {
      await endpoint.close();
    }
    // What a restart finds is exactly what was acknowledged: no refused record turns up later.
    const again = await start({ database });
    try {
      expect(await again.store.count()).toBe(stored);
    } finally {
      await again.close();
    }
  });

  it('when the disk fills before the views are built: reads answer from the views as they stand, /healthz says why, and all is built once there is room', async () => {
    const database = join(folder.dir, `full-views-${Math.random().toString(36).slice(2)}.db`);
    const log: string[] = [];
    const endpoint = await start({ database, log: (line) => log.push(line) });
    try {
      const store = endpoint.store as RecordStore;
      const projection = (store as unknown as { projection: { plan(): unknown } }).projection;
      const plan = projection.plan.bind(projection);
      projection.plan = () => ({ limit: 0, share: 0 });
      for (let i = 0; i < 30; i++) expect((await track(endpoint, Q.universalIn, message(`u${i}`, `x${i} ${'y'.repeat(2000)}`))).status).toBe(200);
      const backend = (store as unknown as { backend: Backend }).backend;
      const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(backend.db);
      await sql.raw(`pragma max_page_count = ${rows[0].page_count}`).execute(backend.db);
      projection.plan = plan;
      expect((await request(endpoint, '/api/summary')).status).toBe(200);
      expect(log).toContain('tracking endpoint: cannot add records to the views now (database or disk is full); reads answer from the views as they stand, and this is tried again.');
      expect(log.join('\n')).not.toMatch(/cannot rollback/);
      const health = await request(endpoint, '/healthz');
      expect(health.status).toBe(503);
      expect(health.body.error).toMatch(/^The database cannot write: records stored since .+ are not in the views yet \(database or disk is full\)\.$/);
      // Tried again at each read and by itself, and said once.
      expect(log.filter((line) => line.startsWith('tracking endpoint: cannot add records to the views now')).length).toBe(1);
      await sql.raw('pragma max_page_count = 1073741823').execute(backend.db);
      expect((await request(endpoint, '/api/summary')).body.records).toBe(30);
      expect((await request(endpoint, '/healthz')).status).toBe(200);
      expect(log).toContain('tracking endpoint: records are added to the views again.');
    } finally {
      await endpoint.close();
    }
  });
});

describe('PostgreSQL', () => {
  let proxy: DatabaseProxy;
  beforeAll(async () => {
    proxy = await startDatabaseProxy();
  });
  afterAll(() => proxy?.close());

  it('refuses to start when the database cannot be reached, naming the URL without its password and what to check', async () => {
    const unreachable = 'postgres://bot:s3cret-pw@127.0.0.1:1/tracking';
    const failure = start({ database: unreachable }).then(() => 'started', (error: Error) => error);
    const error = (await failure) as Error;
    expect(error).toBeInstanceOf(TrackingEndpointError);
    expect(error.message).toContain('postgres://bot:***@127.0.0.1:1/tracking');
    expect(error.message).not.toContain('s3cret-pw');
    expect(error.message).toMatch(/server is running/);
  });

  it('answers 503 with Retry-After while the database is away, never a crash or a lost acknowledged record, and recovers by itself', async () => {
    const endpoint = await start({ database: proxy.urlFor(pg.url) });
    try {
      expect((await track(endpoint, Q.universalIn, message('u1', 'before'))).status).toBe(200);
      proxy.cut();
      const during = await track(endpoint, Q.universalIn, message('u1', 'during'));
      expect(during.status).toBe(503);
      expect(during.headers.get('retry-after')).not.toBeNull();
      const health = await request(endpoint, '/healthz');
      expect(health.status).toBe(503);
      expect((await request(endpoint, '/api/summary')).status).toBe(503);
      proxy.restore();
      let after = await track(endpoint, Q.universalIn, message('u1', 'after'));
      for (let i = 0; i < 20 && after.status !== 200; i++) after = await track(endpoint, Q.universalIn, message('u1', 'after'));
      expect(after.status).toBe(200);
      expect((await request(endpoint, '/healthz')).body).toEqual({ ok: true, database: 'postgres' });
      expect(texts(await endpoint.store.records())).toEqual(['before', 'after']);
    } finally {
      await endpoint.close();
    }
  });

  it('runs several endpoints on one database: each accepts, each reads everything, and each live page hears of what the others stored', async () => {
    const database = (await createTestDatabase());
    cleanups.push(() => database.drop());
    const [a, b] = await Promise.all([start({ database: database.url }), start({ database: database.url })]);
    try {
      const stream = await fetch(`${b.url}/api/events`);
      const reader = stream.body!.getReader();
      const seen: string[] = [];
      const events = (async () => {
        const decoder = new TextDecoder();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          seen.push(decoder.decode(value));
        }
      })();
      await expect.poll(() => seen.join('').includes('"records":0')).toBe(true);
      await Promise.all([
        track(a, Q.universalIn, message('ann', 'to a')),
        track(b, Q.universalIn, message('bob', 'to b')),
        track(a, Q.universalOut, message('ann', 'from a')),
      ]);
      for (const endpoint of [a, b]) {
        expect((await request(endpoint, '/api/summary')).body).toMatchObject({ records: 3, users: 2 });
        expect((await request(endpoint, '/api/transcript?user=ann')).body.entries.map((e: { text: string }) => e.text)).toEqual(['to a', 'from a']);
      }
      await expect.poll(() => seen.join('').includes('"records":3'), { timeout: 5_000 }).toBe(true);
      await reader.cancel();
      await events;
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('what nothing above the store knows', () => {
  it('gives the same answers on SQLite and PostgreSQL', async () => {
    const answers: unknown[] = [];
    for (const { fresh } of DATABASES) {
      const endpoint: TrackingEndpoint = await start({ database: await fresh() });
      try {
        const posts: [Record<string, string>, unknown][] = [
          [Q.dmIn, message('ann', 'Large pizza please', { intent: { name: 'Order', inputs: [{ name: 'size', value: 'L' }] }, platformJson: { timestamp: '2026-10-01T09:00:00Z', conversation: { id: 'c1' }, channelId: 'webchat', from: { id: 'ann', name: 'Ann' } } })],
          [Q.dmOut, message('ann', 'Thin or deep?', { buttons: [{ id: 'thin', label: 'Thin', value: 'thin' }], platformJson: { timestamp: '2026-10-01T09:00:02Z', conversation: { id: 'c1' } } })],
          [Q.dmEvent, { type: 'revenueEvent', name: 'purchase', userId: 'ann', conversationId: 'c1', amount: 12.5, metadata: { currency: 'eur' } }],
          [Q.fbIn, { object: 'page', entry: [{ id: 'p', time: 1, messaging: [{ sender: { id: 'bob' }, recipient: { id: 'p' }, timestamp: Date.parse('2026-10-02T08:00:00Z'), message: { mid: 'm', text: 'hi' } }] }] }],
          [Q.universalIn, message('carl', '???', { intent: { name: 'NotHandled', inputs: [] } })],
        ];
        for (const [query, body] of posts) expect((await track(endpoint, query, body)).status).toBe(200);
        const read = async (path: string) => (await request(endpoint, path)).body;
        answers.push(JSON.parse(JSON.stringify({
          summary: { ...(await read('/api/summary')), lastAt: 'now' },
          // ann's last activity is her revenue event, which carries no time of its own: when it was received.
          users: (await read('/api/users')).users.map((u: Record<string, unknown>) => ({ ...u, lastActivity: u.userId === 'bob' ? u.lastActivity : 'now', firstActivity: u.userId === 'carl' ? 'now' : u.firstActivity })),
          intents: await read('/api/intents'),
          days: (await read('/api/timeseries?bucket=day&to=2026-10-03')).points,
          ann: (await read('/api/transcript?user=ann')).entries.map((e: Record<string, unknown>) => ({ ...e, receivedAt: undefined, time: e.direction === 'event' ? 'now' : e.time })),
        })));
      } finally {
        await endpoint.close();
      }
    }
    expect(answers[1]).toEqual(answers[0]);
    expect((answers[0] as { users: { userId: string; name?: string }[] }).users.find((u) => u.userId === 'ann')?.name).toBe('Ann');
  });
});
