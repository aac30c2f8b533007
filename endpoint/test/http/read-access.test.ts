/**
 * Who may read an endpoint's data. On loopback, anyone on the machine; exposed off loopback
 * (`host: '0.0.0.0'`), only a reader with one of its keys, given as `Authorization: Bearer KEY`
 * or `?apiKey=KEY`. The endpoint listens on every interface and is reached at 127.0.0.1.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { KEY, Q, message, start } from '../helpers.js';

/** Every route that reads tracked data (the page's own files hold none). */
const READ_ROUTES = [
  '/api/users', '/api/conversations', '/api/transcript?user=u1', '/api/record?seq=1', '/api/summary', '/api/timeseries', '/api/intents', '/api/bots',
  '/api/analytics/active-users', '/api/analytics/retention', '/api/analytics/sessions', '/api/analytics/paths', '/api/analytics/funnel?steps=a',
  '/api/analytics/messages', '/api/analytics/buttons', '/api/analytics/feedback', '/api/analytics/revenue', '/api/search?q=hi', '/api/events',
];

let wide: TrackingEndpoint;
let base: string;
beforeAll(async () => {
  wide = await start({ host: '0.0.0.0', apiKeys: [KEY, 'second-key-2'] });
  base = `http://127.0.0.1:${wide.port}`;
});
afterAll(() => wide.close());

/** GETs `path` with `headers`; the status, the headers and the body as text (a stream is not read). */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { headers: { accept: 'application/json', ...headers } }, (res) => {
      if (res.headers['content-type']?.startsWith('text/event-stream')) {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: '' });
        req.destroy();
        return;
      }
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
  });
}

describe('reading an endpoint exposed off loopback', () => {
  it('refuses a wrong key to read an endpoint exposed off loopback (401), saying how to give one', async () => {
    for (const headers of [{ authorization: 'Bearer not-a-key' }, { authorization: `Bearer ${KEY}x` }, {}] as Record<string, string>[]) {
      const res = await get('/api/summary', headers);
      expect(res.status).toBe(401);
      expect(JSON.parse(res.text)).toEqual({ ok: false, error: expect.stringContaining('Authorization: Bearer') });
    }
    expect((await get('/api/summary?apiKey=not-a-key')).status).toBe(401);
  });

  it('refuses the right key sent under another scheme than Bearer (401)', async () => {
    // "Apikey " is as long as "Bearer ": only the scheme tells them apart.
    expect((await get('/api/summary', { authorization: `Apikey ${KEY}` })).status).toBe(401);
    expect((await get('/api/summary', { authorization: `Basic ${Buffer.from(`${KEY}:`).toString('base64')}` })).status).toBe(401);
  });

  it('reads with any of its keys, as a Bearer header (spaces around the key ignored) or ?apiKey=', async () => {
    expect((await get('/api/summary', { authorization: `Bearer ${KEY}` })).status).toBe(200);
    expect((await get('/api/summary', { authorization: 'Bearer second-key-2' })).status).toBe(200);
    expect((await get('/api/summary', { authorization: `Bearer   ${KEY}` })).status).toBe(200);
    expect((await get(`/api/summary?apiKey=${KEY}`)).status).toBe(200);
  });

  it('refuses every read route without a key (401), and answers each with the key', async () => {
    for (const path of READ_ROUTES) {
      expect([path, (await get(path)).status]).toEqual([path, 401]);
      expect([path, (await get(path, { authorization: `Bearer ${KEY}` })).status]).not.toEqual([path, 401]);
    }
  });

  it('still takes records with the key in the query, and answers /api and /healthz to anyone', async () => {
    const res = await fetch(`${base}/track?${new URLSearchParams(Q.universalIn)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message('u1', 'hi')) });
    expect(res.status).toBe(200);
    expect((await get('/api')).status).toBe(200);
    expect((await get('/healthz')).status).toBe(200);
  });
});

describe('reading on loopback', () => {
  it('needs no key, and a wrong one does not stop it', async () => {
    const local = await start();
    try {
      const url = `${local.url}/api/summary`;
      expect((await fetch(url)).status).toBe(200);
      expect((await fetch(url, { headers: { authorization: 'Bearer not-a-key' } })).status).toBe(200);
    } finally {
      await local.close();
    }
  });
});
