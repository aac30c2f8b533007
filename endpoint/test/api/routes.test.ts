/**
 * The route table: the index at `/api` (and `/` for clients that do not ask for HTML), `/healthz`,
 * `/api/bots`, and every route answering GET and HEAD alike.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { KEY, Q, message, request, start, track } from '../helpers.js';

let endpoint: TrackingEndpoint | undefined;
let log: string[] = [];
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
  log = [];
});

async function begin(options: Parameters<typeof start>[0] = {}): Promise<TrackingEndpoint> {
  endpoint = await start({ log: (line) => log.push(line), ...options });
  return endpoint;
}

/** What `GET /api` answers: every route with what it does, the filter and the export. */
const INDEX = {
  ok: true,
  service: 'botbuilder-conversation-analytics local tracking endpoint',
  routes: {
    'POST /track?platform=&v=&type=&apiKey=': 'record an incoming or outgoing message or an event (as the tracking spec describes)',
    'GET /': 'in a browser: transcripts and charts, updated live (off loopback: sign in with a reader token)',
    'GET /api/users': 'users, most recently active first (?limit=N, ?intent=I, and the filter)',
    'GET /api/conversations': 'conversations, most recently active first (?limit=N, ?intent=I, and the filter)',
    'GET /api/users/ID/export?bot=NAME': 'every record of one user, as received, as JSON Lines (GDPR art. 15)',
    'GET /api/backup': 'a consistent copy of the SQLite database, taken while it runs (admin readers of every bot; PostgreSQL: pg_dump)',
    'DELETE /api/users/ID?bot=NAME': 'erase one user: their records and every figure they added (GDPR art. 17; admin readers only)',
    'GET /api/transcript?user=ID': 'one user\'s messages and events in the order they happened (or ?conversation=ID; ?bot=B, ?limit=N, ?before=CURSOR to page back)',
    'GET /api/record?seq=N': 'one stored record as received, platformJson included',
    'GET /api/summary': 'counts by type, platform, channel, intent and event; revenue per currency (and the filter)',
    'GET /api/timeseries': 'messages in and out, events, NotHandled and revenue per bucket (?bucket=auto|minute|hour|day|week|month, ?limit=N, and the filter)',
    'GET /api/intents': 'messages per intent, most used first; incoming and NotHandled totals (?limit=N, and the filter)',
    'GET /api/bots': 'the bots that sent records, with the names given to their keys',
    'GET /api/analytics/active-users': 'active, new and returning users per day, week or month (?interval=day|week|month)',
    'GET /api/analytics/retention': 'weekly cohorts of new users and the share back in weeks 1 to 8',
    'GET /api/analytics/sessions': 'sessions (a user in a conversation, no gap over 30 minutes): count, length, messages each, per day',
    'GET /api/analytics/paths': 'the most common first steps of sessions: intents and events (?limit=N)',
    'GET /api/analytics/funnel?steps=A,B,event:C': 'users at each step, taken in order, with the drop-off',
    'GET /api/analytics/messages': 'what users say most, grouped by normalised text (?unhandled=true: what was NotHandled)',
    'GET /api/analytics/buttons': 'the buttons users clicked, most first',
    'GET /api/analytics/feedback': 'thumbs up and down per day and per intent, comments, the share of AI-generated replies',
    'GET /api/analytics/revenue': 'revenue by currency, per day, per user',
    'GET /api/search?q=TEXT&user=ID': 'messages that match, newest first (by when they happened)',
    'GET /api/events': 'server-sent events: a "records" event whenever records arrive',
    'GET /api/access': 'who is reading (the reader\'s name), the bots they may see, and whether they may erase',
    'GET /healthz': 'for load balancers: 200 when the database answers, else 503',
    'GET /metrics': 'for Prometheus: the endpoint\'s metrics in its text format (a reader of every bot, or --metrics-token)',
  },
  filter: '?bot=NAME|FINGERPRINT &platform=P &channel=C &from=2026-11-01 &to=2026-12-01 (to is exclusive; dates, date-times or epoch ms)',
  export: '?format=csv on every view, the lists and transcripts; ?table=NAME picks one table of a view that has several (sessions, intents, feedback, revenue)',
};

describe('GET /api', () => {
  it('lists every route with what it does, the filter every view takes, and the CSV export', async () => {
    const ep = await begin();
    const res = await request(ep, '/api');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(INDEX);
    expect((await request(ep, '/', { headers: { accept: 'application/json' } })).body).toEqual(INDEX);
  });

  it('answers every GET route it lists (none is missing from the table)', async () => {
    const ep = await begin();
    await track(ep, Q.universalIn, message('u1', 'hi'));
    const paths = Object.keys(INDEX.routes).filter((route) => route.startsWith('GET ')).map((route) => route.slice(4).replace('ID', 'u1').replace('bot=NAME', `bot=${createHash('sha256').update(KEY).digest('hex').slice(0, 12)}`).replace('=N', '=1').replace('TEXT', 'hi'));
    for (const path of paths) {
      const status = await new Promise<number>((resolve, reject) => {
        http.get(`${ep.url}${path}`, { headers: { accept: 'application/json' } }, (res) => {
          resolve(res.statusCode ?? 0);
          res.destroy();
        }).on('error', reject);
      });
      expect([path, status]).toEqual([path, 200]);
    }
  });

  it('answers it without logging anything', async () => {
    const ep = await begin();
    await request(ep, '/api');
    await ep.close();
    expect(log).toEqual([]);
  });
});

describe('HEAD', () => {
  it('answers HEAD on a read route as GET would, without a body', async () => {
    const ep = await begin();
    const get = await fetch(`${ep.url}/api/summary`);
    const head = await fetch(`${ep.url}/api/summary`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(await head.text()).toBe('');
  });

  it('is not allowed on /track, which says it takes POST only', async () => {
    const ep = await begin();
    const res = await fetch(`${ep.url}/track?${new URLSearchParams(Q.universalIn)}`, { method: 'HEAD' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('GET /healthz', () => {
  it('answers 200 with the kind of database while it answers', async () => {
    const ep = await begin();
    const res = await request(ep, '/healthz');
    expect(res).toMatchObject({ status: 200, body: { ok: true, database: 'sqlite' } });
  });

  it('answers whatever the Host (a load balancer checks it by address)', async () => {
    const ep = await begin();
    const status = await new Promise<number>((resolve, reject) => {
      http.get(`${ep.url}/healthz`, { headers: { host: 'lb-target.internal:8080' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });
    expect(status).toBe(200);
  });
});

describe('GET /api/bots', () => {
  it('lists the bots that sent records, with the name given to each key (null for a key without one) and their counts', async () => {
    const ep = await begin({ apiKeys: [`pizza=${KEY}`, 'unnamed-key-2'] });
    await track(ep, Q.universalIn, message('u1', 'hi'));
    await track(ep, Q.universalIn, message('u2', 'hi'));
    await track(ep, { ...Q.universalIn, apiKey: 'unnamed-key-2' }, message('u3', 'hi'));
    const res = await request(ep, '/api/bots');
    expect(res.status).toBe(200);
    expect(res.body.bots).toHaveLength(2);
    expect(res.body.bots).toEqual(expect.arrayContaining([
      { bot: expect.stringMatching(/^[0-9a-f]{12}$/), name: 'pizza', records: 2 },
      { bot: expect.stringMatching(/^[0-9a-f]{12}$/), name: null, records: 1 },
    ]));
  });
});
