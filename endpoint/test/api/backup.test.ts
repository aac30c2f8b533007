/**
 * `GET /api/backup`: a running SQLite endpoint is backed up through itself (its file is locked and
 * its newest commits are in the write-ahead log, so copying the file is no backup): a consistent
 * copy, also while records keep coming, that another endpoint opens with every record; admin
 * readers of every bot only; PostgreSQL answers 501 (pg_dump).
 */
import Database from 'better-sqlite3';
import { readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { backupFileName } from '../../src/api/backup.js';
import type { RecordStore } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { KEY, Q, message, start, tempDir, track } from '../helpers.js';

const ADMIN = 'admin-token-1';
const READER = 'reader-token-1';
const PIZZA_ADMIN = 'pizza-admin-token-1';
const readers = [`ops=${ADMIN}:admin`, `web=${READER}`, `pz=${PIZZA_ADMIN}:pizza:admin`];

let folder: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  folder = await tempDir();
});
afterAll(() => folder.cleanup());

const endpoints: TrackingEndpoint[] = [];
afterEach(async () => {
  await Promise.all(endpoints.splice(0).map((e) => e.close()));
});
async function begin(options: Parameters<typeof start>[0]): Promise<TrackingEndpoint> {
  const endpoint = await start(options);
  endpoints.push(endpoint);
  return endpoint;
}

/** The endpoint's store as the routes see it (its public type leaves out `backup`). */
const storeOf = (endpoint: TrackingEndpoint) => endpoint.store as unknown as RecordStore;

const backup = (endpoint: TrackingEndpoint, token?: string) => fetch(`${endpoint.url}/api/backup`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('GET /api/backup on SQLite', () => {
  it('gives a consistent copy of the running database, taken while records keep coming, that another endpoint opens', async () => {
    const data = join(folder.dir, 'running.db');
    const log: string[] = [];
    const endpoint = await begin({ database: data, apiKeys: [`pizza=${KEY}`], readers, log: (line) => log.push(line) });
    for (let i = 0; i < 50; i++) expect((await track(endpoint, Q.universalIn, message(`u${i % 5}`, `before ${i}`))).status).toBe(200);
    const during = Promise.all(Array.from({ length: 200 }, (_, i) => track(endpoint, Q.universalIn, message(`u${i % 7}`, `during ${i}`))));
    const res = await backup(endpoint, ADMIN);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.sqlite3');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="tracking-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.db"$/);
    const copy = join(folder.dir, 'copy.db');
    await writeFile(copy, Buffer.from(await res.arrayBuffer()));
    expect((await during).every((answer) => answer.status === 200)).toBe(true);
    const opened = new Database(copy, { readonly: true });
    let copied: number;
    try {
      expect(opened.pragma('integrity_check', { simple: true })).toBe('ok');
      copied = (opened.prepare('select count(*) as n from records').get() as { n: number }).n;
      // Every record acknowledged before the backup began, and whole records only.
      expect(copied).toBeGreaterThanOrEqual(50);
      expect(copied).toBeLessThanOrEqual(250);
      const seqs = (opened.prepare('select seq from records order by seq').all() as { seq: number }[]).map((r) => r.seq);
      expect(seqs).toEqual(Array.from({ length: copied }, (_, i) => i + 1));
    } finally {
      opened.close();
    }
    // Another endpoint opens the copy with every record it holds.
    const restored = await begin({ database: copy });
    expect(await restored.store.count()).toBe(copied);
    expect(log.filter((line) => line.includes('backup'))).toEqual([expect.stringMatching(/^tracking endpoint: backup of the database \(\d+ bytes\) taken by ops\.$/)]);
    // Nothing is left behind in the data folder.
    expect((await readdir(folder.dir)).filter((name) => name.startsWith('.tracking-backup-'))).toEqual([]);
  });

  it('is for admin readers of every bot only: a write key, a reader, an admin of one bot are refused', async () => {
    const endpoint = await begin({ database: join(folder.dir, 'access.db'), apiKeys: [`pizza=${KEY}`], readers });
    expect((await backup(endpoint)).status).toBe(401);
    expect((await backup(endpoint, KEY)).status).toBe(401);
    expect((await backup(endpoint, READER)).status).toBe(403);
    const scoped = await backup(endpoint, PIZZA_ADMIN);
    expect(scoped.status).toBe(403);
    expect(((await scoped.json()) as { error: string }).error).toBe('A backup holds every bot\'s data: it needs an admin reader of every bot (--reader NAME=TOKEN:admin).');
  });

  it('copies an in-memory database too', async () => {
    const endpoint = await begin({});
    await track(endpoint, Q.universalIn, message('u1', 'kept in memory'));
    const res = await backup(endpoint);
    expect(res.status).toBe(200);
    const copy = join(folder.dir, 'memory-copy.db');
    await writeFile(copy, Buffer.from(await res.arrayBuffer()));
    const opened = new Database(copy, { readonly: true });
    try {
      expect(opened.prepare('select body from records').all()).toEqual([{ body: JSON.stringify(message('u1', 'kept in memory')) }]);
    } finally {
      opened.close();
    }
  });
});

describe('GET /api/backup, the answer itself', () => {
  const leftovers = async (dir: string) => (await readdir(dir)).filter((name) => name.startsWith('.tracking-backup-'));

  it('says how long the file is and that it is not to be cached; HEAD gets the same headers and no body, and logs no backup', async () => {
    const log: string[] = [];
    const endpoint = await begin({ database: join(folder.dir, 'head.db'), log: (line) => log.push(line) });
    await track(endpoint, Q.universalIn, message('u1', 'one record'));
    const head = await fetch(`${endpoint.url}/api/backup`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('cache-control')).toBe('no-store');
    expect(head.headers.get('content-type')).toBe('application/vnd.sqlite3');
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    expect(log.filter((line) => line.includes('backup'))).toEqual([]);
    // GET: the body is as long as said, and the log names no reader when none is configured (on this machine).
    const res = await backup(endpoint);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.arrayBuffer();
    expect(body.byteLength).toBe(Number(res.headers.get('content-length')));
    // Said once the file is sent, and its temp folder removed after.
    await expect.poll(() => log.filter((line) => line.includes('backup'))).toEqual([`tracking endpoint: backup of the database (${body.byteLength} bytes) taken by a reader on this machine.`]);
    await expect.poll(() => leftovers(folder.dir)).toEqual([]);
  });

  it('makes an in-memory database\'s copy in the temp folder and leaves nothing there', async () => {
    const endpoint = await begin({});
    const before = await leftovers(tmpdir());
    const made: string[] = [];
    const backupOf = storeOf(endpoint).backup.bind(storeOf(endpoint));
    vi.spyOn(storeOf(endpoint), 'backup').mockImplementation(async (file: string) => {
      made.push(file);
      return backupOf(file);
    });
    expect((await backup(endpoint)).status).toBe(200);
    expect(made).toHaveLength(1);
    expect(made[0].startsWith(join(tmpdir(), '.tracking-backup-'))).toBe(true);
    await expect.poll(() => leftovers(tmpdir())).toEqual(before);
  });

  it('answers 503 with Retry-After when the copy cannot be made, logs why, and leaves nothing behind', async () => {
    const log: string[] = [];
    const dir = join(folder.dir, 'failing');
    await (await import('node:fs/promises')).mkdir(dir);
    const endpoint = await begin({ database: join(dir, 'failing.db'), log: (line) => log.push(line) });
    vi.spyOn(storeOf(endpoint), 'backup').mockRejectedValue(new Error('No space left on device'));
    const res = await backup(endpoint);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('10');
    expect(((await res.json()) as { error: string }).error).toBe('The backup could not be made (the disk may be full); nothing was sent. Try again later.');
    expect(log.filter((line) => line.startsWith('tracking endpoint: backup'))).toEqual(['tracking endpoint: backup failed: No space left on device']);
    await expect.poll(() => leftovers(dir)).toEqual([]);
  });
});

describe('GET /api/backup, a download cut short', () => {
  it('cuts the answer it had begun (no 503 after a 200), logs no backup and no failure, and leaves nothing behind', async () => {
    const log: string[] = [];
    const dir = join(folder.dir, 'cut');
    await (await import('node:fs/promises')).mkdir(dir);
    const endpoint = await begin({ database: join(dir, 'cut.db'), log: (line) => log.push(line) });
    // A copy far larger than the socket's buffers, so that the download is still going when cut.
    vi.spyOn(storeOf(endpoint), 'backup').mockImplementation((file: string) => writeFile(file, Buffer.alloc(64 * 1024 * 1024)));
    const abort = new AbortController();
    const res = await fetch(`${endpoint.url}/api/backup`, { signal: abort.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    await expect.poll(async () => (await readdir(dir)).filter((name) => name.startsWith('.tracking-backup-'))).toEqual([]);
    expect(log.filter((line) => line.startsWith('tracking endpoint: backup'))).toEqual([]);
    expect(log.filter((line) => line.includes('unexpected error'))).toEqual([]);
  });
});

describe('GET /api/backup on PostgreSQL', () => {
  let pg: TestDatabase;
  beforeAll(async () => {
    pg = await createTestDatabase();
  });
  afterAll(() => pg.drop());

  it('answers 501, pointing to pg_dump', async () => {
    const endpoint = await begin({ database: pg.url });
    const res = await backup(endpoint);
    expect(res.status).toBe(501);
    expect(((await res.json()) as { error: string }).error).toMatch(/back it up with pg_dump/);
  });
});

describe('backupFileName', () => {
  it('is the time the copy was made, without characters a file system refuses', () => {
    expect(backupFileName(new Date('2026-11-28T08:50:07.123Z'))).toBe('tracking-2026-11-28T08-50-07Z.db');
  });
});
