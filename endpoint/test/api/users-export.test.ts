/**
 * GET /api/users/{id}/export?bot=NAME: every record of a user as received, as JSON Lines, streamed
 * page by page with backpressure (a user with 20,000 records of 1 kB), and the route's refusals;
 * DELETE /api/users/{id}: the refusals (not an admin reader, no bot, not a user path).
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { openStore } from '../../src/store/open.js';
import { EXPORT_PAGE } from '../../src/store/store.js';
import { KEY, Q, message, request, start, tempDir, track } from '../helpers.js';

const BOT = createHash('sha256').update(KEY).digest('hex').slice(0, 12);
const BIG = 20_000;
const PAD = 'x'.repeat(1000);

describe('exporting a user with 20,000 records', () => {
  let folder: Awaited<ReturnType<typeof tempDir>>;
  let endpoint: TrackingEndpoint;
  beforeAll(async () => {
    folder = await tempDir();
    const database = join(folder.dir, 'export.db');
    const { store } = await openStore({ database, log: () => undefined });
    async function* records() {
      for (let i = 0; i < BIG + 50; i++) {
        const body = { text: `${i} ${PAD}`, userId: i % 401 === 400 ? 'someone-else' : 'big/user é' };
        yield { record: { platform: 'universal', platformKind: 'universal' as const, v: '10.1.1-rest' as const, type: 'incoming' as const, bot: BOT, body, receivedAt: new Date(Date.UTC(2026, 8, 7) + i * 1000).toISOString() }, json: JSON.stringify(body) };
      }
    }
    await store.importOnce('export-test', records());
    await store.close();
    endpoint = await start({ database });
  }, 120_000);
  afterAll(async () => {
    await endpoint?.close();
    await folder?.cleanup();
  });

  it('streams every record of the user, in order, as received; reading each page only when the client takes the one before', async () => {
    const path = `/api/users/${encodeURIComponent('big/user é')}/export?bot=${BOT}`;
    const lines = await new Promise<string[]>((resolve, reject) => {
      http.get(`${endpoint.url}${path}`, (res) => {
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
        expect(res.headers['content-length']).toBeUndefined();
        let text = '';
        let appended = false;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          if (appended) return;
          appended = true;
          // The response has begun: stop taking it, store one more record of the user, then go on.
          res.pause();
          track(endpoint, Q.universalIn, message('big/user é', 'the very last one')).then((answer) => {
            expect(answer.status).toBe(200);
            res.resume();
          }, reject);
        });
        res.on('end', () => resolve(text.split('\n')));
        res.on('error', reject);
      }).on('error', reject);
    });
    expect(lines.pop()).toBe(''); // every line ends with a newline
    const records = lines.map((line) => JSON.parse(line));
    // Every record of the user, the one stored after the response began included: it was read from the database after.
    const own = BIG + 50 - Math.floor((BIG + 50) / 401);
    expect(records).toHaveLength(own + 1);
    expect(records.at(-1).body).toEqual({ text: 'the very last one', userId: 'big/user é' });
    expect(records.every((r, i) => i === 0 || r.seq > records[i - 1].seq)).toBe(true);
    expect(records.every((r) => r.body.userId === 'big/user é' && r.bot === BOT)).toBe(true);
    expect(records[0]).toEqual((await request(endpoint, `/api/record?seq=${records[0].seq}`)).body.record);
    expect(records.length).toBeGreaterThan(10 * EXPORT_PAGE);
  }, 60_000);

  it('answers 404 for a user the bot does not know, or a bot that holds nothing; 400 without a bot', async () => {
    expect((await request(endpoint, `/api/users/nobody/export?bot=${BOT}`)).status).toBe(404);
    expect((await request(endpoint, '/api/users/someone-else/export?bot=000000000000')).status).toBe(404);
    const noBot = await request(endpoint, '/api/users/someone-else/export');
    expect(noBot.status).toBe(400);
    expect(noBot.body.problems[0]).toMatchObject({ path: 'bot', received: 'missing' });
    expect((await request(endpoint, '/api/users/someone-else/export?bot=%20')).status).toBe(400);
  });

  it('gives nothing at other paths under /api/users, and still lists users at /api/users', async () => {
    for (const path of ['/api/users/someone-else', '/api/users/someone-else/export/more', '/api/users/%E0%A4%A/export', '/api/users//export']) {
      const res = await request(endpoint, `${path}?bot=${BOT}`);
      expect(res.status, path).toBe(404);
      expect(res.body.error).toContain('/api/users/{id}/export?bot=NAME');
    }
    const list = await request(endpoint, '/api/users');
    expect(list.status).toBe(200);
    expect(list.body.users.map((u: { userId: string }) => u.userId).sort()).toEqual(['big/user é', 'someone-else']);
  });

  it('refuses erasing at a path that is not a user, and without a bot', async () => {
    for (const path of ['/api/users/someone-else/export', '/api/users//']) {
      const res = await request(endpoint, `${path}?bot=${BOT}`, { method: 'DELETE' });
      expect(res.status, path).toBe(404);
      expect(res.body.error).toContain('DELETE /api/users/{id}?bot=NAME');
    }
    const noBot = await request(endpoint, '/api/users/someone-else', { method: 'DELETE' });
    expect(noBot.status).toBe(400);
    expect((await request(endpoint, '/api/users', { method: 'DELETE' })).status).toBe(404);
  });
});

describe('erasing off loopback with a write key', () => {
  let endpoint: TrackingEndpoint;
  beforeAll(async () => {
    endpoint = await start({ host: '0.0.0.0' });
  });
  afterAll(() => endpoint?.close());

  it('is refused: 401, a write key reads and erases nothing; nothing is erased', async () => {
    await track(endpoint, Q.universalIn, message('u1', 'hello'));
    const res = await request(endpoint, `/api/users/u1?bot=${BOT}`, { method: 'DELETE', headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/reader token/);
    expect(await endpoint.store.count()).toBe(1);
    // The export is a read: a write key cannot take it either.
    const exported = await fetch(`${endpoint.url}/api/users/u1/export?bot=${BOT}`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(exported.status).toBe(401);
    expect(await exported.text()).not.toContain('hello');
  });
});
