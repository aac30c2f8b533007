/**
 * Erasing one user (DELETE /api/users/{id}?bot=NAME) against the dataset with known answers
 * (test/helpers/dataset.ts), on SQLite and PostgreSQL: afterwards every view equals, figure for
 * figure, the same view of a fresh database loaded with the dataset without that user; the user's
 * transcript, search hits and export are empty; the other users and the other bot are unchanged.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { DATASET_KEY, OTHER_BOT_KEY, datasetPosts, type Post } from '../helpers/dataset.js';
import { createTestDatabase, queryDatabase, type TestDatabase } from '../helpers/postgres.js';
import { request, start, tempDir } from '../helpers.js';
import { userHash } from '../../src/store/store.js';

const KEYS = [`pizza=${DATASET_KEY}`, `support=${OTHER_BOT_KEY}`];
const ERASED = 'a1';
/** The records of a1 in the dataset: two orders (one rated: 6 records, one not: 5) and two browses (4 each). */
const ERASED_RECORDS = 19;

/** Every view, each for the pizza bot, for both bots, and over the dataset's four weeks. */
const VIEWS = [
  '/api/users?limit=100', '/api/conversations?limit=100', '/api/summary', '/api/timeseries?bucket=day&limit=100', '/api/timeseries?bucket=hour&limit=1000', '/api/intents',
  '/api/bots', '/api/analytics/active-users?interval=day', '/api/analytics/active-users?interval=week', '/api/analytics/active-users?interval=month',
  '/api/analytics/retention?from=2026-09-07', '/api/analytics/sessions', '/api/analytics/paths', '/api/analytics/funnel?steps=Greet,OrderPizza,event:purchase',
  '/api/analytics/funnel?steps=Greet,NotHandled', '/api/analytics/messages', '/api/analytics/messages?unhandled=true', '/api/analytics/buttons',
  '/api/analytics/feedback', '/api/analytics/revenue', '/api/search?q=pizza', '/api/search?q=hi', '/api/transcript?user=a2', '/api/transcript?conversation=b1-1',
].flatMap((view) => {
  const join = view.includes('?') ? '&' : '?';
  return [view, `${view}${join}bot=pizza`, `${view}${join}bot=support`, `${view}${join}bot=pizza&from=2026-09-07&to=2026-10-05&channel=webchat`];
});

/** A view without record numbers (`seq`) and times of receipt: the two databases numbered and received their records differently. */
function withoutSeq(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSeq);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'seq' && key !== 'receivedAt').map(([key, item]) => [key, withoutSeq(item)]));
  return value;
}

async function post(endpoint: TrackingEndpoint, posts: readonly Post[]): Promise<void> {
  for (const { query, body } of posts) {
    const res = await fetch(`${endpoint.url}/track?${new URLSearchParams(query)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
  }
}

async function views(endpoint: TrackingEndpoint): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const view of VIEWS) {
    const res = await request(endpoint, view);
    // A transcript of a user the filter leaves out is a 404: compared as such.
    expect([200, 404], `${view}: ${JSON.stringify(res.body)}`).toContain(res.status);
    out[view] = { status: res.status, body: withoutSeq(res.body) };
  }
  return out;
}

interface Databases {
  name: string;
  /** The database to erase from, and the one loaded without the user. */
  make(): Promise<{ erased: string; expected: string; audit(): Promise<Record<string, unknown>[]>; cleanup(): Promise<void> }>;
}

const DATABASES: Databases[] = [
  {
    name: 'SQLite',
    async make() {
      const folder = await tempDir();
      const erased = join(folder.dir, 'erased.db');
      return {
        erased, expected: join(folder.dir, 'expected.db'), cleanup: folder.cleanup,
        async audit() {
          const db = new Database(erased, { readonly: true });
          try {
            return db.prepare('select * from erasures').all() as Record<string, unknown>[];
          } finally {
            db.close();
          }
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    async make() {
      const [erased, expected]: TestDatabase[] = await Promise.all([createTestDatabase(), createTestDatabase()]);
      return {
        erased: erased.url, expected: expected.url,
        audit: () => queryDatabase(erased.url, 'select * from erasures'),
        cleanup: async () => void (await Promise.all([erased.drop(), expected.drop()])),
      };
    },
  },
];

describe.each(DATABASES)('erasing a user of the known-answer dataset on $name', ({ make }) => {
  let dbs: Awaited<ReturnType<Databases['make']>>;
  let endpoint: TrackingEndpoint;
  let expected: TrackingEndpoint;
  let before: Record<string, unknown>;
  let erasure: { status: number; body: any };

  beforeAll(async () => {
    dbs = await make();
    endpoint = await start({ database: dbs.erased, apiKeys: KEYS });
    expected = await start({ database: dbs.expected, apiKeys: KEYS });
    await post(endpoint, datasetPosts());
    await post(expected, datasetPosts().filter((p) => (p.body as { userId?: string }).userId !== ERASED));
    before = await views(endpoint);
    erasure = await request(endpoint, `/api/users/${ERASED}?bot=pizza`, { method: 'DELETE' });
  }, 120_000);
  afterAll(async () => {
    await endpoint?.close();
    await expected?.close();
    await dbs?.cleanup();
  });

  it('answers what was erased: the records and entries of the user, and the hash the audit keeps', () => {
    expect(erasure.status).toBe(200);
    expect(erasure.body).toEqual({ ok: true, bot: expect.stringMatching(/^[0-9a-f]{12}$/), userHash: userHash(ERASED), records: ERASED_RECORDS, entries: ERASED_RECORDS });
  });

  it('leaves every view equal, figure for figure, to the dataset loaded without the user', async () => {
    const after = await views(endpoint);
    const fresh = await views(expected);
    for (const view of VIEWS) expect(after[view], view).toEqual(fresh[view]);
    // The erasure changed something to compare: the pizza bot's views did change.
    expect(after['/api/summary?bot=pizza']).not.toEqual(before['/api/summary?bot=pizza']);
    expect(Object.values(after).filter((view) => (view as { status: number }).status === 200).length).toBeGreaterThan(VIEWS.length - 10);
  });

  it('leaves the other bot and the other users as they were', async () => {
    const after = await views(endpoint);
    for (const view of VIEWS.filter((v) => (v.endsWith('bot=support') && !v.startsWith('/api/bots')) || v.includes('transcript?user=a2') || v.includes('conversation=b1-1'))) expect(after[view], view).toEqual(before[view]);
  });

  it('leaves nothing of the user: no transcript, no search hit, no export, no user row', async () => {
    expect((await request(endpoint, `/api/transcript?user=${ERASED}`)).status).toBe(404);
    const search = await request(endpoint, `/api/search?q=order&user=${ERASED}`);
    expect(search.status).toBe(200);
    expect(JSON.stringify(search.body)).not.toContain(`"${ERASED}"`);
    expect(JSON.stringify((await request(endpoint, '/api/search?q=order')).body)).toContain('"a2"');
    const exported = await request(endpoint, `/api/users/${ERASED}/export?bot=pizza`);
    expect(exported.status).toBe(404);
    const users = (await request(endpoint, '/api/users?limit=100')).body.users.map((u: { userId: string }) => u.userId);
    expect(users).not.toContain(ERASED);
    expect(users).toContain('a2');
    expect((await endpoint.store.count())).toBe(datasetPosts().length - ERASED_RECORDS);
  });

  it('is idempotent: a second erasure says 0 records and changes nothing', async () => {
    const first = await views(endpoint);
    const again = await request(endpoint, `/api/users/${ERASED}?bot=pizza`, { method: 'DELETE' });
    expect(again.body).toMatchObject({ ok: true, records: 0, entries: 0 });
    expect(await views(endpoint)).toEqual(first);
  });

  it('keeps an audit line per erasure with the hash of the user id, never the id (in the database, after the endpoint stops)', async () => {
    await endpoint.close(); // SQLite: the endpoint holds its file alone
    const rows = await dbs.audit();
    expect(rows.map((row) => ({ user: row.user_hash, records: Number(row.records), by: row.by }))).toEqual([
      { user: userHash(ERASED), records: ERASED_RECORDS, by: null },
      { user: userHash(ERASED), records: 0, by: null },
    ]);
    expect(JSON.stringify(rows)).not.toContain(`"${ERASED}"`);
    expect(Number(rows[0].at)).toBeGreaterThan(Date.now() - 120_000);
  });
});
