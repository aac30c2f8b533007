/**
 * Who may read an endpoint's data, and what each reader sees. Two bots (pizza, support), three
 * readers (every bot; pizza only; an admin), on an endpoint exposed off loopback (it listens on
 * every interface and is reached at 127.0.0.1). Write keys read nothing; the pizza reader never
 * receives a byte of the support bot's data, on any read route, as JSON, as CSV or live.
 */
import http from 'node:http';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTrackingEndpoint, type TrackingEndpoint } from '../../src/index.js';
import { KeyPolicy } from '../../src/http/auth.js';
import { TrackingEndpointError } from '../../src/errors.js';
import { RequestLog } from '../../src/http/request-log.js';
import type { EndpointContext, Route } from '../../src/http/router.js';
import { closeServer, createEndpointServer, listen } from '../../src/http/server.js';
import { resolveOptions } from '../../src/options.js';
import type { RecordStore } from '../../src/store/store.js';

const PIZZA_KEY = 'pizza-write-key-1';
const SUPPORT_KEY = 'support-write-key-2';
const ALL = 'reader-all-token-1';
const PIZZA_ONLY = 'reader-pizza-token-2';
const ADMIN = 'reader-admin-token-3';
const PIZZA_ADMIN = 'reader-pizza-admin-token-4';
const fingerprint = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 12);
/** What only the support bot's records hold: none of it may reach the pizza reader. */
const SUPPORT_SECRETS = ['support-user-9', 'Sabrina Supportova', 'wobbly-refund-phrase', 'support-conv-3', 'RefundIntent', 'refund_done', fingerprint(SUPPORT_KEY)];
const PIZZA_MARKS = ['pizza-user-7', 'pepperoni-phrase', 'OrderIntent'];

const q = (type: string, apiKey: string) => new URLSearchParams({ platform: 'twitter', v: '11.1.0-rest', type, apiKey });
const said = (user: string, text: string, conversation: string, extra: Record<string, unknown> = {}, name?: string) =>
  ({ text, userId: user, platformJson: { channelId: 'webchat', conversation: { id: conversation }, from: { id: user, ...(name ? { name } : {}) } }, ...extra });

/** Every read route (the page's own files hold no data), with the support bot's ids where a route takes one. */
const VIEWS = [
  '/api/users', '/api/conversations', '/api/summary', '/api/timeseries', '/api/intents',
  '/api/analytics/active-users', '/api/analytics/retention', '/api/analytics/sessions', '/api/analytics/paths', '/api/analytics/funnel?steps=RefundIntent,event:refund_done',
  '/api/analytics/messages', '/api/analytics/messages?unhandled=true', '/api/analytics/buttons', '/api/analytics/feedback', '/api/analytics/revenue',
  '/api/search?q=phrase', '/api/search?user=support-user-9', '/api/search?q=wobbly',
];
const ALSO = [
  '/api/transcript?user=support-user-9', '/api/transcript?conversation=support-conv-3', '/api/transcript?user=support-user-9&bot=support',
  '/api/bots', '/api/access', '/api/events',
];
const withCsv = (paths: string[]) => paths.flatMap((p) => [p, `${p}${p.includes('?') ? '&' : '?'}format=csv`]);

let endpoint: TrackingEndpoint;
let base: string;
let supportSeq: number;
let pizzaSeq: number;

async function post(apiKey: string, type: string, body: unknown): Promise<void> {
  const res = await fetch(`${base}/track?${q(type, apiKey)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect([res.status, res.status === 200 ? '' : await res.text()]).toEqual([200, '']);
}

/** What the main endpoint logged. */
const logged: string[] = [];

beforeAll(async () => {
  endpoint = await startTrackingEndpoint({
    port: 0, host: '0.0.0.0', database: false, log: (line) => logged.push(line), closeGraceMs: 200,
    apiKeys: [`pizza=${PIZZA_KEY}`, `support=${SUPPORT_KEY}`],
    readers: [`all=${ALL}`, `pz=${PIZZA_ONLY}:pizza`, `boss=${ADMIN}:*:admin`, `pzboss=${PIZZA_ADMIN}:pizza:admin`],
  });
  base = `http://127.0.0.1:${endpoint.port}`;
  await post(PIZZA_KEY, 'incoming', said('pizza-user-7', 'a pepperoni-phrase please', 'pizza-conv-1', { intent: { name: 'OrderIntent', inputs: [] } }, 'Paolo'));
  await post(SUPPORT_KEY, 'incoming', said('support-user-9', 'a wobbly-refund-phrase', 'support-conv-3', { intent: { name: 'RefundIntent', inputs: [] } }, 'Sabrina Supportova'));
  await post(SUPPORT_KEY, 'event', { type: 'revenueEvent', name: 'refund_done', userId: 'support-user-9', conversationId: 'support-conv-3', amount: 12.5, metadata: { currency: 'EUR' } });
  await post(PIZZA_KEY, 'outgoing', said('pizza-user-7', 'your pepperoni-phrase is coming', 'pizza-conv-1'));
  const records = await endpoint.store.records();
  supportSeq = records.find((r) => r.bot === fingerprint(SUPPORT_KEY))!.seq;
  pizzaSeq = records.find((r) => r.bot === fingerprint(PIZZA_KEY))!.seq;
});
afterAll(() => endpoint.close());

/** GETs `path` with a token (or other headers); the status and the body as text (a stream: what came in `streamMs`). */
function get(path: string, token: string | Record<string, string> | null, streamMs = 150): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = typeof token === 'string' ? { authorization: `Bearer ${token}` } : (token ?? {});
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { headers: { accept: 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      if (res.headers['content-type']?.startsWith('text/event-stream')) {
        setTimeout(() => {
          resolve({ status: res.statusCode ?? 0, text });
          req.destroy();
        }, streamMs);
      }
    });
    req.on('error', reject);
  });
}

describe('write keys read nothing', () => {
  it('answers every read route 401 "reading needs a reader token" to a write key, as a Bearer header or ?apiKey=', async () => {
    for (const path of withCsv([...VIEWS, ...ALSO, `/api/record?seq=${pizzaSeq}`])) {
      for (const key of [PIZZA_KEY, SUPPORT_KEY]) {
        const res = await get(path, key);
        expect([path, res.status]).toEqual([path, 401]);
        expect(JSON.parse(res.text).error).toMatch(/reading needs a reader token/i);
        expect(res.text).not.toContain(key);
      }
      const sep = path.includes('?') ? '&' : '?';
      expect([path, (await get(`${path}${sep}apiKey=${PIZZA_KEY}`, null)).status]).toEqual([path, 401]);
      expect([path, (await get(path, null)).status]).toEqual([path, 401]);
    }
  });

  it('refuses a wrong token, or the right one under another scheme than Bearer', async () => {
    for (const headers of [{ authorization: 'Bearer not-a-token' }, { authorization: `Bearer ${ALL}x` }, { authorization: `Apikey ${ALL}` }, { authorization: `Basic ${Buffer.from(`${ALL}:`).toString('base64')}` }]) {
      const res = await get('/api/summary', headers);
      expect(res.status).toBe(401);
      expect(JSON.parse(res.text)).toEqual({ ok: false, error: expect.stringContaining('Authorization: Bearer') });
    }
  });

  it('still takes records with the write key, and answers /api and /healthz to anyone', async () => {
    expect((await get('/api', null)).status).toBe(200);
    expect((await get('/healthz', null)).status).toBe(200);
  });
});

describe('a reader of every bot, and the admin', () => {
  it('reads every route, the support bot\'s data included (spaces around the token ignored)', async () => {
    let all = '';
    for (const path of withCsv([...VIEWS, ...ALSO.filter((p) => p !== '/api/events'), `/api/record?seq=${supportSeq}`])) {
      const res = await get(path, path.endsWith('csv') ? ADMIN : ALL);
      expect([path, res.status]).toEqual([path, 200]);
      all += res.text;
    }
    expect((await get('/api/summary', { authorization: `Bearer   ${ALL}  ` })).status).toBe(200);
    for (const secret of [...SUPPORT_SECRETS, ...PIZZA_MARKS]) expect([secret, all.includes(secret)]).toEqual([secret, true]);
  });

  it('says who is reading at /api/access', async () => {
    expect(JSON.parse((await get('/api/access', ALL)).text)).toEqual({ reader: 'all', bots: null, admin: false });
    expect(JSON.parse((await get('/api/access', ADMIN)).text)).toEqual({ reader: 'boss', bots: null, admin: true });
    expect(JSON.parse((await get('/api/access', PIZZA_ONLY)).text)).toEqual({ reader: 'pz', bots: [{ bot: fingerprint(PIZZA_KEY), name: 'pizza' }], admin: false });
  });
});

describe('a reader scoped to the pizza bot', () => {
  it('never receives a byte of the support bot\'s data, on any read route, JSON or CSV', async () => {
    for (const path of withCsv([...VIEWS, ...ALSO, `/api/record?seq=${supportSeq}`])) {
      const res = await get(path, PIZZA_ONLY);
      expect([path, res.status]).not.toEqual([path, 401]);
      expect([path, res.status]).not.toEqual([path, 403]);
      // What the request itself names (the funnel's steps, the user asked for) is echoed, never found.
      const echoed = (secret: string) => path.includes(secret) && !res.text.replace(/"steps":\[[^\]]*\]|"name":"(RefundIntent|event:refund_done)"/g, '').includes(secret);
      for (const secret of SUPPORT_SECRETS) if (!path.includes(secret)) expect([path, secret, res.text.includes(secret)]).toEqual([path, secret, false]);
      for (const secret of SUPPORT_SECRETS) if (path.includes(secret) && !path.includes('format=csv')) expect([path, secret, echoed(secret) || !res.text.includes(secret)]).toEqual([path, secret, true]);
    }
  });

  it('sees every view as the all-bots reader sees it filtered to pizza: no count of the other bot anywhere', async () => {
    for (const path of withCsv(VIEWS)) {
      const sep = path.includes('?') ? '&' : '?';
      const mine = await get(path, PIZZA_ONLY);
      const filtered = await get(`${path}${sep}bot=pizza`, ALL);
      expect([path, mine.status, mine.text]).toEqual([path, filtered.status, filtered.text]);
    }
    const summary = JSON.parse((await get('/api/summary', PIZZA_ONLY)).text);
    expect(summary).toMatchObject({ records: 2, users: 1, conversations: 1 });
  });

  it('asking for the other bot gets empty answers, never 403: lists, views, search, transcripts and records', async () => {
    const users = JSON.parse((await get('/api/users?bot=support', PIZZA_ONLY)).text);
    expect(users).toEqual({ total: 0, users: [] });
    expect(JSON.parse((await get(`/api/users?bot=${fingerprint(SUPPORT_KEY)}`, PIZZA_ONLY)).text)).toEqual({ total: 0, users: [] });
    expect(JSON.parse((await get('/api/summary?bot=support', PIZZA_ONLY)).text)).toMatchObject({ records: 0, users: 0 });
    expect(JSON.parse((await get('/api/search?q=phrase&bot=support', PIZZA_ONLY)).text)).toEqual({ results: [], more: false });
    const transcript = await get('/api/transcript?user=support-user-9', PIZZA_ONLY);
    const never = await get('/api/transcript?user=nobody-at-all', PIZZA_ONLY);
    expect([transcript.status, transcript.text]).toEqual([404, never.text]);
    const record = await get(`/api/record?seq=${supportSeq}`, PIZZA_ONLY);
    const missing = await get('/api/record?seq=99999', PIZZA_ONLY);
    expect(record.status).toBe(404);
    expect(record.text).toBe(missing.text.replace('99999', String(supportSeq)));
    expect((await get(`/api/record?seq=${pizzaSeq}`, PIZZA_ONLY)).status).toBe(200);
    expect(JSON.parse((await get('/api/bots', PIZZA_ONLY)).text)).toEqual({ bots: [{ bot: fingerprint(PIZZA_KEY), name: 'pizza', records: 2 }] });
    expect(JSON.parse((await get('/api/bots', ALL)).text).bots).toHaveLength(2);
  });

  it('is told live only of its bot\'s records: no event for the other bot\'s, its own last seq and count', async () => {
    const chunks: string[] = [];
    const req = http.get(`${base}/api/events`, { headers: { authorization: `Bearer ${PIZZA_ONLY}` } });
    const res = await new Promise<http.IncomingMessage>((resolve) => req.on('response', resolve));
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => chunks.push(chunk));
    const events = () => chunks.join('').split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as { lastSeq: number; records: number });
    try {
      await expect.poll(() => events().length).toBe(1);
      const before = (await endpoint.store.records()).filter((r) => r.bot === fingerprint(PIZZA_KEY));
      expect(events()[0]).toEqual({ lastSeq: Math.max(...before.map((r) => r.seq)), records: before.length });
      await post(SUPPORT_KEY, 'incoming', said('support-user-9', 'a wobbly-refund-phrase again', 'support-conv-3'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(events()).toHaveLength(1);
      await post(PIZZA_KEY, 'incoming', said('pizza-user-7', 'one more pepperoni-phrase', 'pizza-conv-1'));
      await expect.poll(() => events().length).toBe(2);
      const after = (await endpoint.store.records()).filter((r) => r.bot === fingerprint(PIZZA_KEY));
      expect(events()[1]).toEqual({ lastSeq: Math.max(...after.map((r) => r.seq)), records: after.length });
      for (const secret of SUPPORT_SECRETS) expect(chunks.join('')).not.toContain(secret);
    } finally {
      req.destroy();
    }
  });
});

/** A request with a token as `Authorization: Bearer` (none: no header); the status and the body. */
async function send(method: 'GET' | 'DELETE', path: string, token: string | null): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}${path}`, { method, headers: token === null ? {} : { authorization: `Bearer ${token}` } });
  return { status: res.status, text: await res.text() };
}

describe('exports and erasure, for every kind of reader and for write keys', () => {
  const SUPPORT_FP = fingerprint(SUPPORT_KEY);
  const supportRecords = async () => (await endpoint.store.records()).filter((r) => r.bot === SUPPORT_FP).length;
  /** Every way of naming the support bot's user, and the pizza bot's. */
  const SUPPORT_EXPORTS = ['/api/users/support-user-9/export?bot=support', `/api/users/support-user-9/export?bot=${SUPPORT_FP}`];
  const PIZZA_EXPORT = '/api/users/pizza-user-7/export?bot=pizza';

  it('exports: write keys and no token get 401; the all-bots readers get both bots\' users; the pizza readers get the support user as if it never existed', async () => {
    for (const path of [...SUPPORT_EXPORTS, PIZZA_EXPORT]) {
      for (const token of [PIZZA_KEY, SUPPORT_KEY, null]) {
        const res = await send('GET', path, token);
        expect([path, token, res.status]).toEqual([path, token, 401]);
        for (const secret of [...SUPPORT_SECRETS, ...PIZZA_MARKS]) expect(res.text).not.toContain(secret);
      }
      for (const token of [ALL, ADMIN]) expect([path, token, (await send('GET', path, token)).status]).toEqual([path, token, 200]);
    }
    const full = await send('GET', SUPPORT_EXPORTS[0], ALL);
    const lines = full.text.trim().split('\n').map((line) => JSON.parse(line) as { bot: string; body: { userId?: string } });
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.every((r) => r.bot === SUPPORT_FP && r.body.userId === 'support-user-9')).toBe(true);
    expect(full.text).toContain('wobbly-refund-phrase');

    const never = await send('GET', '/api/users/nobody-at-all/export?bot=pizza', PIZZA_ONLY);
    expect(never.status).toBe(404);
    for (const token of [PIZZA_ONLY, PIZZA_ADMIN]) {
      for (const path of SUPPORT_EXPORTS) {
        const res = await send('GET', path, token);
        expect([path, token, res.status, res.text]).toEqual([path, token, 404, never.text]);
      }
      const own = await send('GET', PIZZA_EXPORT, token);
      expect(own.status).toBe(200);
      expect(own.text).toContain('pepperoni-phrase');
      for (const secret of SUPPORT_SECRETS) expect([token, secret, own.text.includes(secret)]).toEqual([token, secret, false]);
    }
  });

  it('erasure: write keys and no token get 401, readers without the admin right 403, and nothing is erased', async () => {
    const before = await supportRecords();
    expect(before).toBeGreaterThanOrEqual(2);
    for (const token of [PIZZA_KEY, SUPPORT_KEY, null]) {
      const res = await send('DELETE', '/api/users/support-user-9?bot=support', token);
      expect([token, res.status]).toEqual([token, 401]);
      expect(JSON.parse(res.text).error).toMatch(/reading needs a reader token/i);
    }
    for (const token of [ALL, PIZZA_ONLY]) {
      for (const path of ['/api/users/support-user-9?bot=support', '/api/users/pizza-user-7?bot=pizza']) {
        const res = await send('DELETE', path, token);
        expect([token, path, res.status]).toEqual([token, path, 403]);
        expect(JSON.parse(res.text)).toEqual({ ok: false, error: 'Erasing needs an admin reader.' });
      }
    }
    expect(await supportRecords()).toBe(before);
    expect((await send('GET', SUPPORT_EXPORTS[0], ALL)).status).toBe(200);
  });

  it('a user\'s routes say what is wrong in words: no bot (400, naming the field), a path that is not a user\'s (404, cut to 100 characters), a user the bot does not hold; an export is an attachment, not sniffed, not stored', async () => {
    const before = logged.length;
    for (const [method, path] of [['GET', '/api/users/pizza-user-7/export'], ['GET', '/api/users/pizza-user-7/export?bot=%20'], ['DELETE', '/api/users/pizza-user-7'], ['DELETE', '/api/users/pizza-user-7?bot=']] as const) {
      const res = await send(method, path, ADMIN);
      expect([method, path, res.status, JSON.parse(res.text)]).toEqual([method, path, 400, {
        ok: false, error: 'Give ?bot=NAME: the bot whose user this is (a name given with --key, or its fingerprint).',
        problems: [{ path: 'bot', expected: 'a bot name or fingerprint', received: 'missing' }],
      }]);
    }
    // Refused before anything is read or erased: nothing went wrong behind the answer.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logged.slice(before).filter((line) => !line.includes(' refused '))).toEqual([]);
    expect((await send('GET', PIZZA_EXPORT, ALL)).status).toBe(200);

    const long = `/api/users/pizza-user-7/${'x'.repeat(150)}`;
    const notHere = await send('GET', `${long}?bot=pizza`, ALL);
    expect([notHere.status, JSON.parse(notHere.text).error]).toEqual([404, `Nothing at ${long.slice(0, 100)}. A user's records are at GET /api/users/{id}/export?bot=NAME.`]);
    const notErasable = await send('DELETE', `${long}?bot=pizza`, ADMIN);
    expect([notErasable.status, JSON.parse(notErasable.text).error]).toEqual([404, `Nothing to erase at ${long.slice(0, 100)}. Erase a user with DELETE /api/users/{id}?bot=NAME.`]);
    // "export" is the one segment after the id: not one spread over two.
    expect((await send('GET', '/api/users/pizza-user-7/exp/ort?bot=pizza', ALL)).status).toBe(404);
    const nobody = await send('GET', '/api/users/nobody-at-all/export?bot=pizza', ALL);
    expect([nobody.status, JSON.parse(nobody.text).error]).toEqual([404, 'This bot holds no record of that user.']);

    // The bot as given, spaces around it ignored.
    const res = await fetch(`${base}/api/users/pizza-user-7/export?bot=%20pizza%20`, { headers: { authorization: `Bearer ${ALL}` } });
    expect(res.status).toBe(200);
    expect([res.headers.get('content-type'), res.headers.get('content-disposition'), res.headers.get('x-content-type-options'), res.headers.get('cache-control')])
      .toEqual(['application/x-ndjson; charset=utf-8', 'attachment; filename="user-records.jsonl"', 'nosniff', 'no-store']);
    expect(await res.text()).toContain('pepperoni-phrase');
    const spaced = await send('DELETE', '/api/users/support-user-9?bot=%20support%20', PIZZA_ADMIN);
    expect(JSON.parse(spaced.text)).toEqual({ ok: true, bot: 'support', userHash: '', records: 0, entries: 0 });
  });

  it('erasure: an admin of the pizza bot erases nothing of the support bot and learns nothing of it; the admin of every bot erases the user, once', async () => {
    const before = await supportRecords();
    for (const bot of ['support', SUPPORT_FP]) {
      const res = await send('DELETE', `/api/users/support-user-9?bot=${bot}`, PIZZA_ADMIN);
      const never = await send('DELETE', `/api/users/nobody-at-all?bot=${bot}`, PIZZA_ADMIN);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text)).toEqual({ ok: true, bot, userHash: '', records: 0, entries: 0 });
      expect(res.text).toBe(never.text);
    }
    expect(await supportRecords()).toBe(before);

    const erased = await send('DELETE', '/api/users/support-user-9?bot=support', ADMIN);
    expect(erased.status).toBe(200);
    expect(JSON.parse(erased.text)).toMatchObject({ ok: true, bot: SUPPORT_FP, records: before, userHash: createHash('sha256').update('support-user-9').digest('hex').slice(0, 16) });
    expect(erased.text).not.toContain('support-user-9');
    expect(await supportRecords()).toBe(0);
    expect((await send('GET', SUPPORT_EXPORTS[0], ADMIN)).status).toBe(404);
    expect(JSON.parse((await send('DELETE', '/api/users/support-user-9?bot=support', ADMIN)).text)).toMatchObject({ records: 0, entries: 0 });
    expect((await send('GET', PIZZA_EXPORT, ALL)).status).toBe(200);
  });
});

describe('an auth proxy that names the user (--trust-proxy-user)', () => {
  let proxied: TrackingEndpoint;
  let at: string;
  beforeAll(async () => {
    proxied = await startTrackingEndpoint({
      port: 0, host: '0.0.0.0', database: false, log: () => undefined, closeGraceMs: 200,
      apiKeys: [`pizza=${PIZZA_KEY}`, `support=${SUPPORT_KEY}`],
      readers: [`all=${ALL}`],
      trustProxyUser: 'X-Forwarded-User',
      readerUsers: ['alice@example.com:pizza', 'bob', 'carol:*:admin'],
    });
    at = `http://127.0.0.1:${proxied.port}`;
    for (const [key, user, text] of [[PIZZA_KEY, 'pizza-user-7', 'pepperoni-phrase'], [SUPPORT_KEY, 'support-user-9', 'wobbly-refund-phrase']]) {
      await fetch(`${at}/track?${q('incoming', key)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(said(user, text, `${user}-c`)) });
    }
  });
  afterAll(() => proxied.close());
  const as = async (path: string, headers: Record<string, string>) => {
    const res = await fetch(`${at}${path}`, { headers });
    return { status: res.status, text: await res.text() };
  };

  it('refuses a request without the header (401), even with a reader token, and a user not listed (403)', async () => {
    expect((await as('/api/summary', {})).status).toBe(401);
    expect((await as('/api/summary', { authorization: `Bearer ${ALL}` })).status).toBe(401);
    expect((await as('/api/summary', { 'x-forwarded-user': '  ' })).status).toBe(401);
    const stranger = await as('/api/summary', { 'x-forwarded-user': 'mallory' });
    expect(stranger.status).toBe(403);
    expect(JSON.parse(stranger.text).error).toMatch(/no read access/);
  });

  it('gives each user their scope: alice sees pizza only, bob every bot, carol may erase', async () => {
    const alice = await as('/api/search?q=phrase', { 'x-forwarded-user': 'alice@example.com' });
    expect(alice.status).toBe(200);
    expect(alice.text).toContain('pepperoni-phrase');
    expect(alice.text).not.toContain('wobbly');
    expect((await as('/api/search?q=phrase', { 'x-forwarded-user': 'bob' })).text).toContain('wobbly');
    expect(JSON.parse((await as('/api/access', { 'x-forwarded-user': 'carol' })).text)).toEqual({ reader: 'carol', bots: null, admin: true });
    expect(JSON.parse((await as('/api/access', { 'x-forwarded-user': 'bob' })).text)).toEqual({ reader: 'bob', bots: null, admin: false });
    expect(proxied.access).toEqual({ readerCount: 4, proxyUserHeader: 'x-forwarded-user', open: false });
  });
});

describe('on loopback', () => {
  it('reads stay open with no reader configured, and need a token once one is', async () => {
    const open = await startTrackingEndpoint({ port: 0, database: false, log: () => undefined, apiKeys: [PIZZA_KEY] });
    const closed = await startTrackingEndpoint({ port: 0, database: false, log: () => undefined, apiKeys: [PIZZA_KEY], readers: [`r=${ALL}`] });
    try {
      expect((await fetch(`${open.url}/api/summary`)).status).toBe(200);
      expect(JSON.parse(await (await fetch(`${open.url}/api/access`)).text())).toEqual({ reader: null, bots: null, admin: true });
      expect(open.access.open).toBe(true);
      expect((await fetch(`${closed.url}/api/summary`)).status).toBe(401);
      expect((await fetch(`${closed.url}/api/summary`, { headers: { authorization: `Bearer ${PIZZA_KEY}` } })).status).toBe(401);
      expect((await fetch(`${closed.url}/api/summary`, { headers: { authorization: `Bearer ${ALL}` } })).status).toBe(200);
      expect(closed.access).toEqual({ readerCount: 1, proxyUserHeader: undefined, open: false });
    } finally {
      await Promise.all([open.close(), closed.close()]);
    }
  });
});

describe('reader options', () => {
  const names = new Map([[PIZZA_KEY, 'pizza'], [SUPPORT_KEY, 'support']]);
  const policy = (readers: string[], more: { trustProxyUser?: string; readerUsers?: string[] } = {}) => () => new KeyPolicy([PIZZA_KEY, SUPPORT_KEY], false, names, { readers, ...more });

  it('refuses a bad reader with a typed error naming it and what was expected, never the token', () => {
    const cases: [string[], RegExp][] = [
      [['ana=tok-secret-1:pizza,pasta'], /--reader "ana": the bot "pasta" is not a name given with --key NAME=KEY \(known: pizza, support\)/],
      [['ana='], /--reader "ana" has an empty token/],
      [['ana= :pizza'], /--reader "ana" has an empty token/],
      [['ana=tok-secret-1', 'ana=tok-secret-2'], /--reader "ana" is given twice/],
      [[`ana=${PIZZA_KEY}`], /--reader "ana": the token is one of the write keys/],
      [['ana=tok-secret-1', 'bea=tok-secret-1'], /--reader "bea": the token is another reader's/],
      [['tok-secret-1'], /--reader must be NAME=TOKEN .* without "="/],
      [['=tok-secret-1'], /--reader must be NAME=TOKEN .* without a valid name/],
      [['ana=tok-secret-1:pizza:admin:x'], /expected at most BOTS and admin/],
      [['ana= tok-secret-1'], /starts or ends with a space/],
    ];
    for (const [readers, message] of cases) {
      let error: unknown;
      try {
        policy(readers)();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TrackingEndpointError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toMatch(/tok-secret|write-key/);
    }
  });

  it('refuses a bad proxy header or user lines, and user lines without the header', () => {
    expect(policy([], { trustProxyUser: 'X Forwarded' })).toThrow(/--trust-proxy-user must be a header name/);
    expect(policy([], { readerUsers: ['alice'] })).toThrow(/--reader-user needs --trust-proxy-user/);
    expect(policy([], { trustProxyUser: 'X-User', readerUsers: ['alice', 'alice:pizza'] })).toThrow(/the user "alice" is given twice/);
    expect(policy([], { trustProxyUser: 'X-User', readerUsers: ['al ice'] })).toThrow(/--reader-user "al ice": the user name/);
    expect(policy([], { trustProxyUser: 'X-User', readerUsers: ['alice:pasta'] })).toThrow(/--reader-user alice: the bot "pasta"/);
  });

  it('takes * and admin alone, a list of bots, and names with no bot named', () => {
    const p = policy([`a=t1`, `b=t2:admin`, `c=t3:*`, `d=t4:pizza,support:admin`, `e=t5: pizza `])();
    const read = (token: string) => {
      const check = p.checkRead({ headers: { authorization: `Bearer ${token}` } } as never);
      return check.ok ? { ...check.access, bots: check.access.bots && [...check.access.bots] } : check.status;
    };
    expect(read('t1')).toEqual({ reader: 'a', bots: null, admin: false });
    expect(read('t2')).toEqual({ reader: 'b', bots: null, admin: true });
    expect(read('t3')).toEqual({ reader: 'c', bots: null, admin: false });
    expect(read('t4')).toEqual({ reader: 'd', bots: [fingerprint(PIZZA_KEY), fingerprint(SUPPORT_KEY)], admin: true });
    expect(read('t5')).toEqual({ reader: 'e', bots: [fingerprint(PIZZA_KEY)], admin: false });
    expect(read('t6')).toBe(401);
    expect(p.readerCount).toBe(5);
    expect(() => new KeyPolicy([PIZZA_KEY], false, new Map(), { readers: ['a=t1:pizza'] })).toThrow(/no key has a name/);
  });
});

describe('the router\'s side of read access (routes that erase, routes with a prefix)', () => {
  it('answers an admin route 403 to a reader without the right, runs it for an admin, and hands the access and the rest of the path to a prefix route', async () => {
    const options = resolveOptions({ port: 0, host: '0.0.0.0', database: false, apiKeys: [`pizza=${PIZZA_KEY}`], log: () => undefined });
    const keys = new KeyPolicy([PIZZA_KEY], false, new Map([[PIZZA_KEY, 'pizza']]), { readers: [`r=${ALL}:pizza`, `a=${ADMIN}:admin`] });
    const context: EndpointContext = { options, store: { isUnavailable: () => false } as unknown as RecordStore, keys, live: undefined as never, requests: new RequestLog(() => undefined, 0) };
    const seen: string[] = [];
    const routes = new Map<string, Route>([
      ['/api/users', { prefix: true, read: true, admin: true, methods: {
        DELETE: (_req, res, target) => {
          seen.push(`${target.path} ${target.access.reader} ${target.access.admin}`);
          res.end('erased');
        },
      } }],
      ['/api/users/x', { read: true, methods: { GET: (_req, res, target) => void res.end(`exact ${target.access.reader} ${[...target.access.bots ?? []].join(',')}`) } }],
      ['/open', { methods: { GET: (_req, res, target) => void res.end(`open ${target.access.reader} ${target.access.admin}`) } }],
    ]);
    const server = createEndpointServer(routes, context);
    const at = `http://127.0.0.1:${await listen(server, options)}`;
    try {
      const erase = (path: string, token?: string) => fetch(`${at}${path}`, { method: 'DELETE', headers: token ? { authorization: `Bearer ${token}` } : {} });
      const refused = await erase('/api/users/u-1', ALL);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: string }).error).toBe('Erasing needs an admin reader (--reader NAME=TOKEN:admin).');
      expect((await erase('/api/users/u-1')).status).toBe(401);
      expect((await erase('/api/users/u-1', PIZZA_KEY)).status).toBe(401);
      const done = await erase('/api/users/u-1/more', ADMIN);
      expect([done.status, await done.text()]).toEqual([200, 'erased']);
      expect(seen).toEqual(['/api/users/u-1/more a true']);
      expect((await erase('/api/users', ADMIN)).status).toBe(200);
      expect((await erase('/api/usersx', ADMIN)).status).toBe(404);
      // An exact route wins over a prefix; a route that does not read gets open access.
      expect(await (await fetch(`${at}/api/users/x`, { headers: { authorization: `Bearer ${ALL}` } })).text()).toBe(`exact r ${fingerprint(PIZZA_KEY)}`);
      expect(await (await fetch(`${at}/open`)).text()).toBe('open null true');
      const get = await fetch(`${at}/api/users/u-1`, { headers: { authorization: `Bearer ${ADMIN}` } });
      expect([get.status, get.headers.get('allow')]).toEqual([405, 'DELETE']);
    } finally {
      await closeServer(server, 200);
    }
  });
});
