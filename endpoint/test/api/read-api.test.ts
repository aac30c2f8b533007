import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingEndpoint, TranscriptEntry } from '../../src/index.js';
import { KEY, Q, message, request, start, track } from '../helpers.js';

let endpoint: TrackingEndpoint;

/** A conversation on several platforms, posted in this order. */
beforeAll(async () => {
  endpoint = await start();
  const posts: [Record<string, string>, unknown][] = [
    [Q.dmIn, message('ann', 'I want a pizza', { intent: { name: 'order', inputs: [{ name: 'size', value: 'large' }] }, platformJson: { conversation: { id: 'conv-a' } } })],
    [Q.dmOut, message('ann', 'Which crust?', { buttons: [{ id: 'thin', label: 'Thin', value: 'thin' }, { id: 'deep', label: 'Deep', value: 'deep' }], images: [{ url: 'https://img/crusts.png' }], platformJson: { conversation: { id: 'conv-a' } } })],
    [Q.dmIn, message('ann', 'Thin', { postback: { buttonClick: { buttonId: 'thin' } }, platformJson: { conversation: { id: 'conv-a' } } })],
    [Q.dmEvent, { name: 'purchase', type: 'revenueEvent', userId: 'ann', conversationId: 'conv-a', amount: 12.5, referenceNumber: 'R-1' }],
    [Q.dmEvent, { name: 'purchase', type: 'revenueEvent', userId: 'ann', amount: 0.1 }],
    [Q.fbIn, {
      object: 'page',
      entry: [{ id: 'page', time: 1, messaging: [
        { sender: { id: 'bob' }, recipient: { id: 'page' }, timestamp: 1, message: { mid: 'm1', text: 'hello page' }, intent: { name: 'greet', inputs: [] } },
        { sender: { id: 'bob' }, recipient: { id: 'page' }, timestamp: 2, message: { mid: 'm2', text: 'are you there?' } },
      ] }],
    }],
    [Q.fbOut, { json: { recipient: { id: 'bob' }, message: { text: 'Yes!' } }, responseBody: { recipient_id: 'bob', message_id: 'x' }, intent: { name: 'greet_back', inputs: [{ name: 'tone', value: 'warm' }] } }],
    [Q.universalIn, message('carl', 'survey answer: 5 stars', { intent: { name: 'order', inputs: [] } })],
    [Q.fbEvent, { name: 'share', type: 'shareEvent', userId: 'carl', sharedMessage: { text: 'look' } }],
  ];
  for (const [query, body] of posts) expect((await track(endpoint, query, body)).status).toBe(200);
});
afterAll(() => endpoint.close());

const strip = (entries: TranscriptEntry[]) => entries.map(({ seq: _s, time: _t, receivedAt: _r, ...rest }) => rest);

describe('GET /api/transcript?user=ID', () => {
  it('lists a user\'s messages and events in the order received, normalised for display', async () => {
    const res = await request(endpoint, '/api/transcript?user=ann');
    expect(res.status).toBe(200);
    expect(res.body.userId).toBe('ann');
    expect(strip(res.body.entries)).toEqual([
      { platform: 'twitter', type: 'incoming', direction: 'incoming', userId: 'ann', conversationId: 'conv-a', text: 'I want a pizza', intent: { name: 'order', inputs: [{ name: 'size', value: 'large' }] } },
      { platform: 'twitter', type: 'outgoing', direction: 'outgoing', userId: 'ann', conversationId: 'conv-a', text: 'Which crust?', buttons: [{ id: 'thin', label: 'Thin', value: 'thin' }, { id: 'deep', label: 'Deep', value: 'deep' }], images: ['https://img/crusts.png'] },
      { platform: 'twitter', type: 'incoming', direction: 'incoming', userId: 'ann', conversationId: 'conv-a', text: 'Thin', clickedButton: 'thin' },
      { platform: 'twitter', type: 'event', direction: 'event', userId: 'ann', conversationId: 'conv-a', event: { name: 'purchase', type: 'revenueEvent', amount: 12.5, referenceNumber: 'R-1' } },
      { platform: 'twitter', type: 'event', direction: 'event', userId: 'ann', conversationId: 'ann', event: { name: 'purchase', type: 'revenueEvent', amount: 0.1 } },
    ]);
    const seqs = res.body.entries.map((e: TranscriptEntry) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  it('reads a messenger webhook per messaging item: the user is the sender, the intent is per item', async () => {
    const res = await request(endpoint, '/api/transcript?user=bob');
    expect(strip(res.body.entries)).toEqual([
      { platform: 'facebook', type: 'incoming', direction: 'incoming', userId: 'bob', conversationId: 'bob', text: 'hello page', intent: { name: 'greet', inputs: [] } },
      { platform: 'facebook', type: 'incoming', direction: 'incoming', userId: 'bob', conversationId: 'bob', text: 'are you there?' },
      { platform: 'facebook', type: 'outgoing', direction: 'outgoing', userId: 'bob', conversationId: 'bob', text: 'Yes!', intent: { name: 'greet_back', inputs: [{ name: 'tone', value: 'warm' }] } },
    ]);
  });

  it('gives the latest entries with ?limit, and pages back with ?before=SEQ, counting them all in total', async () => {
    const all = (await request(endpoint, '/api/transcript?user=ann')).body.entries.map((e: TranscriptEntry) => e.seq);
    const latest = await request(endpoint, '/api/transcript?user=ann&limit=2');
    expect(latest.body.total).toBe(5);
    expect(latest.body.entries.map((e: TranscriptEntry) => e.seq)).toEqual(all.slice(3));
    const earlier = await request(endpoint, `/api/transcript?user=ann&limit=2&before=${all[3]}`);
    expect(earlier.body.entries.map((e: TranscriptEntry) => e.seq)).toEqual(all.slice(1, 3));
    expect((await request(endpoint, '/api/transcript?user=ann&before=zero')).status).toBe(400);
  });

  it('gives one conversation\'s entries with ?conversation=ID', async () => {
    const res = await request(endpoint, '/api/transcript?conversation=conv-a');
    expect(res.body.entries.map((e: TranscriptEntry) => e.text ?? e.event?.name)).toEqual(['I want a pizza', 'Which crust?', 'Thin', 'purchase']);
  });

  it('answers 404 for a user never seen', async () => {
    const res = await request(endpoint, '/api/transcript?user=nobody');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatch(/\/api\/users/);
  });

  it('pages back from one entry of a record of several with ?before=SEQ:IDX; SEQ alone is the record\'s first entry; any seq or idx of up to 15 and 6 digits is a cursor', async () => {
    const entries: TranscriptEntry[] = (await request(endpoint, '/api/transcript?user=bob')).body.entries;
    const webhook = entries[0].seq;
    expect(entries[1].seq).toBe(webhook);
    const texts = async (before: string) => {
      const res = await request(endpoint, `/api/transcript?user=bob&before=${before}`);
      expect(res.status, before).toBe(200);
      return res.body.entries.map((e: TranscriptEntry) => e.text);
    };
    expect(await texts(`${webhook}:1`)).toEqual(['hello page']);
    expect(await texts(`${webhook}:0`)).toEqual([]);
    expect(await texts(`${webhook}`)).toEqual([]);
    expect(await texts(`${entries[2].seq}`)).toEqual(['hello page', 'are you there?']);
    // A cursor past every record: every entry is before it.
    expect(await texts('123456789012345')).toEqual(['hello page', 'are you there?', 'Yes!']);
    expect(await texts(`${webhook}:123456`)).toEqual(['hello page', 'are you there?']);
    for (const bad of ['1234567890123456', `${webhook}:1234567`, `${webhook}:x`, `${webhook}:`, '0', '0:1']) {
      const res = await request(endpoint, `/api/transcript?user=bob&before=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error, bad).toContain('before must be the seq of an entry');
    }
  });

  it('answers 400 without ?user or ?conversation', async () => {
    expect((await request(endpoint, '/api/transcript')).status).toBe(400);
  });
});

describe('GET /api/users and /api/conversations', () => {
  it('lists users with platform, message and event counts, most recently active first', async () => {
    const res = await request(endpoint, '/api/users');
    expect(res.body.total).toBe(3);
    const byId = Object.fromEntries(res.body.users.map((u: { userId: string }) => [u.userId, u]));
    expect(byId.ann).toMatchObject({ platform: 'twitter', messages: 3, events: 2, conversations: 2 });
    expect(byId.bob).toMatchObject({ platform: 'facebook', messages: 3, events: 0, conversations: 1 });
    expect(byId.carl).toMatchObject({ platform: 'facebook', messages: 1, events: 1 });
    const times = res.body.users.map((u: { lastActivity: string }) => u.lastActivity);
    expect(times).toEqual([...times].sort().reverse());
    expect(byId.carl.lastActivity >= byId.ann.lastActivity).toBe(true);
  });

  it('shortens the list with ?limit but still reports the total', async () => {
    const res = await request(endpoint, '/api/users?limit=1');
    expect(res.body).toMatchObject({ total: 3, users: [expect.any(Object)] });
    expect(res.body.users).toHaveLength(1);
    expect((await request(endpoint, '/api/users?limit=zero')).status).toBe(400);
  });

  it('takes conversation ids from platformJson.conversation.id, the event\'s conversationId, else the user id', async () => {
    const res = await request(endpoint, '/api/conversations');
    const byId = Object.fromEntries(res.body.conversations.map((c: { conversationId: string }) => [c.conversationId, c]));
    expect(Object.keys(byId).sort()).toEqual(['ann', 'bob', 'carl', 'conv-a']);
    expect(byId['conv-a']).toMatchObject({ userIds: ['ann'], platform: 'twitter', messages: 3, events: 1 });
    expect(byId.ann).toMatchObject({ messages: 0, events: 1 });
    expect(byId.bob).toMatchObject({ platform: 'facebook', messages: 3 });
  });

  it("puts a messenger event in its user's messenger conversation, whatever conversationId it carries", async () => {
    const own = await start();
    try {
      const webhook = { object: 'page', entry: [{ id: 'page', time: 1, messaging: [{ sender: { id: 'dora' }, recipient: { id: 'page' }, timestamp: 1, message: { mid: 'm', text: 'hi' } }] }] };
      expect((await track(own, Q.fbIn, webhook)).status).toBe(200);
      expect((await track(own, Q.fbEvent, { name: 'liked', type: 'shareEvent', userId: 'dora', conversationId: 'dora-page' })).status).toBe(200);
      const res = await request(own, '/api/conversations');
      expect(res.body.conversations).toEqual([expect.objectContaining({ conversationId: 'dora', messages: 1, events: 1 })]);
    } finally {
      await own.close();
    }
  });
});

describe('GET /api/summary', () => {
  it('counts records by type and platform, messages by intent, events by type, and totals revenue', async () => {
    const res = await request(endpoint, '/api/summary');
    expect(res.body).toEqual({
      records: 9, messages: 7, events: 3, users: 3, conversations: 4,
      byType: { incoming: 4, outgoing: 2, event: 3 },
      byPlatform: { twitter: 5, facebook: 3, universal: 1 },
      byIntent: { order: 2, greet: 1, greet_back: 1 },
      byEventType: { revenueEvent: 2, shareEvent: 1 },
      byEventName: { purchase: 2, share: 1 },
      // No record here names a channel.
      byChannel: {},
      revenue: { total: 12.6, count: 2, byCurrency: { unknown: 12.6 } },
      firstAt: expect.any(String), lastAt: expect.any(String),
    });
  });
});

describe('GET /api/summary with revenue in several currencies', () => {
  it('totals revenue per currency and never adds different currencies: total is null, byCurrency holds each', async () => {
    const shop = await start();
    try {
      await track(shop, Q.dmEvent, { name: 'purchase', type: 'revenueEvent', userId: 'eva', amount: 20, metadata: { currency: 'EUR' } });
      await track(shop, Q.dmEvent, { name: 'purchase', type: 'revenueEvent', userId: 'eva', amount: 15.5, metadata: { currency: 'USD' } });
      await track(shop, Q.dmEvent, { name: 'purchase', type: 'revenueEvent', userId: 'eva', amount: 7 });
      expect((await request(shop, '/api/summary')).body.revenue).toEqual({ total: null, count: 3, byCurrency: { EUR: 20, USD: 15.5, unknown: 7 } });
    } finally {
      await shop.close();
    }
  });
});

describe('read access', () => {
  it('needs no key on loopback', async () => {
    expect((await request(endpoint, '/api/summary')).status).toBe(200);
  });

  it('refuses a request addressed to another host name (DNS rebinding)', async () => {
    // fetch will not set Host; node:http will.
    const status = await new Promise<number>((resolve, reject) => {
      http.get(`${endpoint.url}/api/summary`, { headers: { host: 'evil.example:80' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });
    expect(status).toBe(403);
  });

  it('answers other methods on read routes with 405 and Allow: GET, HEAD', async () => {
    const res = await request(endpoint, '/api/summary', { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });

  it('lists the routes at /', async () => {
    const res = await request(endpoint, '/');
    expect(Object.keys(res.body.routes)).toContain('GET /api/summary');
  });

  it('needs a reader token when listening beyond loopback; a write key reads nothing', async () => {
    const wide = await start({ host: '0.0.0.0', readers: ['ops=reader-token-1'] });
    try {
      const base = `http://127.0.0.1:${wide.port}`;
      expect((await fetch(`${base}/api/summary`)).status).toBe(401);
      expect((await fetch(`${base}/api/summary`, { headers: { authorization: 'Bearer reader-token-1' } })).status).toBe(200);
      expect((await fetch(`${base}/api/summary`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(401);
      expect((await fetch(`${base}/api/summary?apiKey=${KEY}`)).status).toBe(401);
    } finally {
      await wide.close();
    }
  });

  it('refuses to listen beyond loopback without any key', async () => {
    await expect(start({ host: '0.0.0.0', apiKeys: [] })).rejects.toThrow(/give at least one API key/);
  });
});

describe('messenger rich content', () => {
  it('shows quick replies as buttons, image attachments as images, and a postback as the clicked button', async () => {
    const rich = await start();
    try {
      await track(rich, Q.fbOut, {
        json: { recipient: { id: 'dee' }, message: { text: 'Pick one', quick_replies: [{ content_type: 'text', title: 'Red', payload: 'RED' }] } },
      });
      await track(rich, Q.fbOut, { json: { recipient: { id: 'dee' }, message: { attachment: { type: 'image', payload: { url: 'https://img/red.png' } } } } });
      await track(rich, Q.fbIn, {
        object: 'page',
        entry: [{ id: 'page', time: 1, messaging: [{ sender: { id: 'dee' }, recipient: { id: 'page' }, timestamp: 1, postback: { title: 'Red', payload: 'RED' } }] }],
      });
      const res = await request(rich, '/api/transcript?user=dee');
      expect(strip(res.body.entries)).toEqual([
        { platform: 'facebook', type: 'outgoing', direction: 'outgoing', userId: 'dee', conversationId: 'dee', text: 'Pick one', buttons: [{ id: 'RED', label: 'Red', value: 'RED' }] },
        { platform: 'facebook', type: 'outgoing', direction: 'outgoing', userId: 'dee', conversationId: 'dee', images: ['https://img/red.png'] },
        { platform: 'facebook', type: 'incoming', direction: 'incoming', userId: 'dee', conversationId: 'dee', text: 'Red', clickedButton: 'RED' },
      ]);
    } finally {
      await rich.close();
    }
  });
});
