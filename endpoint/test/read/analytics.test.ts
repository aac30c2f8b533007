/**
 * The analytics views against figures worked out by hand from the generated dataset
 * (endpoint/test/helpers/dataset.ts: its VISITS list says who came when and did what), on SQLite and on
 * PostgreSQL alike, through the read API over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { DATASET_KEY, OTHER_BOT_KEY, WEEK0, loadDataset } from '../helpers/dataset.js';
import { bothDatabases, request, start } from '../helpers.js';

const DAY = 86_400_000;
const week = (n: number) => new Date(WEEK0 + n * 7 * DAY).toISOString();
const day = (w: number, d: number) => new Date(WEEK0 + (w * 7 + d) * DAY).toISOString();
/** The pizza bot only (the dataset also holds one visit of another bot). */
const PIZZA = 'bot=pizza&from=2026-09-07&to=2026-10-05';

const DATABASES = bothDatabases('analytics.db');

describe.each(DATABASES)('the analytics views on $name', ({ database }) => {
  let endpoint: TrackingEndpoint;
  const get = async (path: string) => {
    const res = await request(endpoint, path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  beforeAll(async () => {
    endpoint = await start({ database: database(), apiKeys: [`pizza=${DATASET_KEY}`, `support=${OTHER_BOT_KEY}`] });
    await loadDataset(endpoint.url);
  });
  afterAll(() => endpoint?.close());

  it('counts active users per week, new and returning: 4 new in week 0; 2 new and 2 back in week 1; 1 new and 2 back in week 2; 1 back in week 3', async () => {
    const body = await get(`/api/analytics/active-users?interval=week&${PIZZA}`);
    expect(body.interval).toBe('week');
    expect(body.points).toEqual([
      { start: week(0), active: 4, new: 4, returning: 0 },
      { start: week(1), active: 4, new: 2, returning: 2 },
      { start: week(2), active: 3, new: 1, returning: 2 },
      { start: week(3), active: 1, new: 0, returning: 1 },
    ]);
    // Both bots: the other bot's one user is new in week 1.
    expect((await get('/api/analytics/active-users?interval=week&from=2026-09-07&to=2026-10-05')).points[1]).toEqual({ start: week(1), active: 5, new: 3, returning: 2 });
  });

  it('counts active users per day and per month, filling days without activity', async () => {
    const days = (await get(`/api/analytics/active-users?interval=day&bot=pizza`)).points;
    expect(days).toHaveLength(22); // Monday of week 0 to Monday of week 3
    expect(days[0]).toEqual({ start: day(0, 0), active: 1, new: 1, returning: 0 });
    expect(days[4]).toEqual({ start: day(0, 4), active: 0, new: 0, returning: 0 });
    expect(days[9]).toEqual({ start: day(1, 2), active: 1, new: 0, returning: 1 }); // a1 comes back
    expect(days.reduce((sum: number, p: { active: number }) => sum + p.active, 0)).toBe(12);
    expect((await get(`/api/analytics/active-users?interval=month&bot=pizza`)).points).toEqual([{ start: '2026-09-01T00:00:00.000Z', active: 7, new: 7, returning: 0 }]);
  });

  it('follows weekly cohorts: half of week 0\'s users back in week 1, a quarter in weeks 2 and 3; half of week 1\'s back the week after', async () => {
    const body = await get(`/api/analytics/retention?bot=pizza&from=2026-09-07`);
    expect(body.cohorts).toEqual([
      { week: week(0), users: 4, returned: [0.5, 0.25, 0.25, 0, 0, 0, 0, 0] },
      { week: week(1), users: 2, returned: [0.5, 0, 0, 0, 0, 0, 0, 0] },
      { week: week(2), users: 1, returned: [0, 0, 0, 0, 0, 0, 0, 0] },
    ]);
  });

  it('counts sessions: a new one after 30 minutes of quiet in the same conversation; 4 messages each; lengths of 3 to 5 minutes', async () => {
    const body = await get(`/api/analytics/sessions?${PIZZA}`);
    expect(body).toMatchObject({ sessions: 13, users: 7, messagesPerSession: 4, averageLengthSeconds: 235.4, medianLengthSeconds: 240 });
    expect(body.perDay[0]).toEqual({ start: day(0, 0), sessions: 2 });
    expect(body.perDay.reduce((sum: number, d: { sessions: number }) => sum + d.sessions, 0)).toBe(13);
  });

  it('ranks the paths through intents and events, ratings left out', async () => {
    const body = await get(`/api/analytics/paths?${PIZZA}`);
    expect(body.sessions).toBe(13);
    // A rating is not a step: the four rated orders follow the same path as the other four.
    expect(body.paths).toEqual([
      { steps: ['Greet', 'OrderPizza', 'event:purchase'], sessions: 8, share: 0.6154 },
      { steps: ['Greet', 'NotHandled'], sessions: 5, share: 0.3846 },
    ]);
  });

  it('runs a funnel over the steps asked for, in their order, with the drop-off between them', async () => {
    expect((await get(`/api/analytics/funnel?steps=Greet,OrderPizza,event:purchase&${PIZZA}`)).steps).toEqual([
      { step: 'Greet', users: 7, dropOff: 0, conversion: 1 },
      { step: 'OrderPizza', users: 5, dropOff: 0.2857, conversion: 0.7143 },
      { step: 'event:purchase', users: 5, dropOff: 0, conversion: 0.7143 },
    ]);
    // The order matters: a greeting counts only after the user's first order.
    expect((await get(`/api/analytics/funnel?step=OrderPizza&step=Greet&${PIZZA}`)).steps.map((s: { users: number }) => s.users)).toEqual([5, 3]);
    expect((await request(endpoint, '/api/analytics/funnel')).status).toBe(400);
  });

  it('ranks what users say, grouped by normalised text, and what the bot did not understand', async () => {
    expect(await get(`/api/analytics/messages?${PIZZA}`)).toEqual({
      total: 26,
      messages: [
        { text: 'Hi', key: 'hi', count: 8, share: 0.3077, intent: 'Greet' },
        { text: 'Order', key: 'order', count: 8, share: 0.3077, intent: 'OrderPizza' },
        { text: 'Hi there', key: 'hi there', count: 5, share: 0.1923, intent: 'Greet' },
        { text: 'Weather tomorrow?', key: 'weather tomorrow', count: 5, share: 0.1923, intent: 'NotHandled' },
      ],
    });
    expect(await get(`/api/analytics/messages?unhandled=true&${PIZZA}`)).toEqual({
      total: 5, messages: [{ text: 'Weather tomorrow?', key: 'weather tomorrow', count: 5, share: 1, intent: 'NotHandled' }],
    });
  });

  it('ranks clicked buttons and gives each intent its average confidence', async () => {
    expect(await get(`/api/analytics/buttons?${PIZZA}`)).toEqual({ total: 8, buttons: [{ button: 'order', label: 'Order', clicks: 8 }] });
    const intents = await get(`/api/intents?${PIZZA}`);
    expect(intents).toEqual({
      incomingMessages: 26, notHandled: 5, total: 3,
      intents: [
        { name: 'Greet', incoming: 13, outgoing: 0, confidence: 0.8231 },
        { name: 'OrderPizza', incoming: 8, outgoing: 0, confidence: 0.8 },
        { name: 'NotHandled', incoming: 5, outgoing: 0, confidence: 0.3 },
      ],
    });
  });

  it('counts thumbs up and down per day and per intent of the rated reply, with the comments newest first, and the share of AI-generated replies', async () => {
    const body = await get(`/api/analytics/feedback?${PIZZA}`);
    expect(body).toMatchObject({ up: 3, down: 1, ai: { replies: 26, aiGenerated: 8, share: 0.3077 } });
    expect(body.perIntent).toEqual([{ intent: 'OrderPizza', up: 3, down: 1 }]);
    expect(body.comments.map((c: { comment: string; reaction: string; userId: string; intent: string }) => [c.userId, c.reaction, c.comment, c.intent])).toEqual([
      ['a4', 'dislike', 'Cold pizza', 'OrderPizza'],
      ['a2', 'like', 'Great, thanks', 'OrderPizza'],
      ['a1', 'like', 'Fast!', 'OrderPizza'],
    ]);
    expect(body.perDay.filter((d: { up: number; down: number }) => d.up + d.down > 0)).toEqual([
      { start: day(0, 0), up: 1, down: 0 }, { start: day(0, 1), up: 1, down: 0 }, { start: day(0, 3), up: 0, down: 1 }, { start: day(1, 0), up: 1, down: 0 },
    ]);
  });

  it('keeps revenue apart by currency, per day and per user, with user names where known', async () => {
    const body = await get(`/api/analytics/revenue?${PIZZA}`);
    expect(body.byCurrency).toEqual([{ currency: 'EUR', total: 70, count: 7 }, { currency: 'USD', total: 12, count: 1 }]);
    expect(body.perUser).toEqual([
      { userId: 'a1', userName: 'Ann', bot: expect.any(String), currency: 'EUR', total: 20, count: 2 },
      { userId: 'a2', userName: null, bot: expect.any(String), currency: 'EUR', total: 20, count: 2 },
      { userId: 'b1', userName: 'Bea', bot: expect.any(String), currency: 'EUR', total: 20, count: 2 },
      { userId: 'c1', userName: null, bot: expect.any(String), currency: 'USD', total: 12, count: 1 },
      { userId: 'a4', userName: null, bot: expect.any(String), currency: 'EUR', total: 10, count: 1 },
    ]);
    expect(body.perDay[0]).toEqual({ start: day(0, 0), currency: 'EUR', total: 10, count: 1 });
  });

  it('gives events the channel of their conversation, so narrowing to a channel keeps its purchases and ratings', async () => {
    const webchat = await get(`/api/analytics/revenue?channel=webchat&bot=pizza`);
    expect(webchat.byCurrency).toEqual([{ currency: 'EUR', total: 70, count: 7 }, { currency: 'USD', total: 12, count: 1 }]);
    expect(await get('/api/analytics/revenue?channel=msteams')).toMatchObject({ byCurrency: [] }); // a3 on Teams only browsed
    expect((await get('/api/analytics/feedback?channel=webchat&bot=pizza'))).toMatchObject({ up: 3, down: 1 });
    expect((await get(`/api/analytics/funnel?steps=Greet,OrderPizza,event:purchase&channel=webchat&bot=pizza`)).steps.map((s: { users: number }) => s.users)).toEqual([6, 5, 5]);
  });

  it('sums up events by name, records by channel and revenue by currency', async () => {
    const summary = await get('/api/summary?bot=pizza');
    expect(summary.byEventName).toEqual({ feedback: 4, purchase: 8 });
    expect(summary.byChannel).toEqual({ msteams: 4, webchat: 60 });
    // EUR and USD are never added: no total across them.
    expect(summary.revenue).toEqual({ total: null, count: 8, byCurrency: { EUR: 70, USD: 12 } });
  });

  it('names the users who left comments, where records carry their names', async () => {
    const { comments } = await get(`/api/analytics/feedback?${PIZZA}`);
    expect(comments.map((c: { userId: string; userName: string | null }) => [c.userId, c.userName])).toEqual([['a4', null], ['a2', null], ['a1', 'Ann']]);
  });

  it('narrows every view by channel, platform and bot', async () => {
    expect((await get('/api/analytics/active-users?interval=week&channel=msteams')).points).toEqual([{ start: week(0), active: 1, new: 1, returning: 0 }]);
    expect((await get('/api/summary?bot=support')).records).toBe(4);
    expect((await get('/api/summary?bot=pizza')).records).toBe(64);
    expect((await get('/api/summary?platform=sms')).records).toBe(0);
    expect((await get('/api/users?bot=pizza')).users.find((u: { userId: string }) => u.userId === 'a1')).toMatchObject({ name: 'Ann', botName: 'pizza', messages: 16, events: 3 });
  });

  it('searches transcripts by text and by user id or name', async () => {
    const weather = await get('/api/search?q=WEATHER&bot=pizza');
    expect(weather.results).toHaveLength(5);
    expect(weather.results[0]).toMatchObject({ userId: 'a1', text: 'Weather tomorrow?', direction: 'incoming', time: '2026-09-22T10:02:00.000Z' });
    expect((await get('/api/search?q=weather')).results).toHaveLength(6);
    expect((await get('/api/search?user=Bea')).results.map((r: { direction: string }) => r.direction).sort()).toEqual([...Array(4).fill('incoming'), ...Array(4).fill('outgoing')]);
    expect((await get('/api/search?user=b1')).results).toHaveLength(11);
    expect((await get('/api/search?q=weather&limit=2')).more).toBe(true);
  });

  it('exports every view as CSV', async () => {
    const res = await fetch(`${endpoint.url}/api/analytics/active-users?interval=week&${PIZZA}&format=csv`);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="active-users-week.csv"');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]); // a byte order mark, so spreadsheets read UTF-8
    expect(bytes.subarray(3).toString('utf8')).toBe(`start,active,new,returning\r\n${week(0)},4,4,0\r\n${week(1)},4,2,2\r\n${week(2)},3,1,2\r\n${week(3)},1,0,1\r\n`);
    const transcript = await (await fetch(`${endpoint.url}/api/transcript?user=a4&format=csv`)).text();
    expect(transcript.split('\r\n')[0]).toBe('time,direction,user,name,conversation,text,intent,buttons,clicked,images,event,amount,currency,platform,channel,seq');
    expect(transcript).toContain(',event,a4,,a4-1,,,,,,feedback,,,twitter,,');
    for (const path of ['/api/analytics/retention', '/api/analytics/sessions', '/api/analytics/paths', '/api/analytics/funnel?steps=Greet', '/api/analytics/messages', '/api/analytics/buttons', '/api/analytics/feedback', '/api/analytics/revenue', '/api/search?q=hi', '/api/users', '/api/conversations', '/api/summary', '/api/timeseries', '/api/intents']) {
      const csv = await fetch(`${endpoint.url}${path}${path.includes('?') ? '&' : '?'}format=csv`);
      expect(csv.status, path).toBe(200);
      expect(csv.headers.get('content-type'), path).toBe('text/csv; charset=utf-8');
      expect((await csv.text()).split('\r\n').length, path).toBeGreaterThan(2);
    }
    expect((await request(endpoint, '/api/analytics/buttons?format=xml')).status).toBe(400);
  });
});
