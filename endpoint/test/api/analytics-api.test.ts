/**
 * The read side's chart data (`/api/timeseries`, `/api/intents`), single records
 * (`/api/record`), and filtering the user and conversation lists. The records are loaded from a
 * data file written beforehand, so their times are known.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { request, start, tempDir } from '../helpers.js';

const UNIVERSAL = { platform: 'universal', platformKind: 'universal', v: '10.1.1-rest', bot: 'abc123abc123' };
const TWITTER = { platform: 'twitter', platformKind: 'directMessage', v: '11.1.0-rest', bot: 'abc123abc123' };
const SMS = { platform: 'sms', platformKind: 'sms', v: '11.1.0-rest', bot: 'abc123abc123' };
const webchat = { channelId: 'webchat', conversation: { id: 'c1' } };

/** Records at known times: two on Jan 2 around 10:00, one at 12:30, two on Jan 3 at 01:00 (UTC). */
const RECORDS = [
  { ...UNIVERSAL, receivedAt: '2025-01-02T10:00:10.000Z', type: 'incoming', body: { text: 'hi', userId: 'u1', intent: { name: 'Greeting', inputs: [] }, platformJson: webchat } },
  { ...UNIVERSAL, receivedAt: '2025-01-02T10:00:30.000Z', type: 'outgoing', body: { text: 'hello', userId: 'u1', platformJson: webchat } },
  { ...UNIVERSAL, receivedAt: '2025-01-02T10:02:30.000Z', type: 'incoming', body: { text: 'sing', userId: 'u1', intent: { name: 'NotHandled', inputs: [] }, platformJson: webchat } },
  { ...TWITTER, receivedAt: '2025-01-02T10:02:40.000Z', type: 'event', body: { type: 'revenueEvent', name: 'buy', amount: 9.5, userId: 'u1', conversationId: 'c1' } },
  { ...TWITTER, receivedAt: '2025-01-02T10:02:50.000Z', type: 'event', body: { type: 'revenueEvent', name: 'tip', amount: 0.25, userId: 'u1', conversationId: 'c1' } },
  { ...TWITTER, receivedAt: '2025-01-02T12:30:00.000Z', type: 'incoming', body: { text: 'a pizza', userId: 'u2', intent: { name: 'Order', inputs: [{ name: 'what', value: 'pizza' }] } } },
  { ...SMS, receivedAt: '2025-01-03T01:00:05.000Z', type: 'incoming', body: { text: 'one more', userId: 'u3' } },
  { ...SMS, receivedAt: '2025-01-03T01:00:06.000Z', type: 'outgoing', body: { text: 'ordered', userId: 'u3', intent: { name: 'Order', inputs: [] } } },
].map((record, i) => ({ seq: i + 1, ...record }));

let endpoint: TrackingEndpoint;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  const temp = await tempDir();
  cleanup = temp.cleanup;
  const file = join(temp.dir, 'records.ndjson');
  await writeFile(file, RECORDS.map((r) => JSON.stringify(r)).join('\n') + '\n');
  endpoint = await start({ dataFile: file });
});
afterAll(async () => {
  await endpoint.close();
  await cleanup();
});

const zero = { incoming: 0, outgoing: 0, events: 0, notHandled: 0, revenue: 0 };

describe('GET /api/timeseries', () => {
  it('counts messages in and out, events, NotHandled and revenue per minute, filling empty minutes with zeros', async () => {
    const { status, body } = await request(endpoint, '/api/timeseries?bucket=minute&limit=10000');
    expect(status).toBe(200);
    expect(body.bucket).toBe('minute');
    expect(body.points).toHaveLength(15 * 60 + 1); // 10:00 on Jan 2 to 01:00 on Jan 3
    expect(body.points[0]).toEqual({ start: '2025-01-02T10:00:00.000Z', ...zero, incoming: 1, outgoing: 1 });
    expect(body.points[1]).toEqual({ start: '2025-01-02T10:01:00.000Z', ...zero });
    expect(body.points[2]).toEqual({ start: '2025-01-02T10:02:00.000Z', incoming: 1, outgoing: 0, events: 2, notHandled: 1, revenue: 9.75 });
    expect(body.points.at(-1)).toEqual({ start: '2025-01-03T01:00:00.000Z', ...zero, incoming: 1, outgoing: 1 });
  });

  it('keeps the latest buckets when there are more than limit (default 60)', async () => {
    const { body } = await request(endpoint, '/api/timeseries?bucket=minute');
    expect(body.points).toHaveLength(60);
    expect(body.points[0].start).toBe('2025-01-03T00:01:00.000Z');
    expect(body.points.at(-1).start).toBe('2025-01-03T01:00:00.000Z');
  });

  it('sums hours and days (UTC)', async () => {
    const hours = (await request(endpoint, '/api/timeseries?bucket=hour')).body;
    expect(hours.points).toHaveLength(16);
    expect(hours.points[0]).toEqual({ start: '2025-01-02T10:00:00.000Z', incoming: 2, outgoing: 1, events: 2, notHandled: 1, revenue: 9.75 });
    expect(hours.points[2]).toEqual({ start: '2025-01-02T12:00:00.000Z', ...zero, incoming: 1 });
    const days = (await request(endpoint, '/api/timeseries?bucket=day')).body;
    expect(days.points).toEqual([
      { start: '2025-01-02T00:00:00.000Z', incoming: 3, outgoing: 1, events: 2, notHandled: 1, revenue: 9.75 },
      { start: '2025-01-03T00:00:00.000Z', ...zero, incoming: 1, outgoing: 1 },
    ]);
  });

  it('sums weeks (from Monday) and calendar months from the days', async () => {
    const all = { incoming: 4, outgoing: 2, events: 2, notHandled: 1, revenue: 9.75 };
    expect((await request(endpoint, '/api/timeseries?bucket=week')).body).toEqual({ bucket: 'week', points: [{ start: '2024-12-30T00:00:00.000Z', ...all }] });
    expect((await request(endpoint, '/api/timeseries?bucket=month')).body).toEqual({ bucket: 'month', points: [{ start: '2025-01-01T00:00:00.000Z', ...all }] });
    // Over a range: every week from its start to the latest activity, empty ones with zeros.
    const weeks = (await request(endpoint, '/api/timeseries?bucket=week&from=2024-12-20&to=2025-01-10')).body;
    expect(weeks.points.map((p: { start: string; incoming: number }) => [p.start.slice(0, 10), p.incoming])).toEqual([['2024-12-16', 0], ['2024-12-23', 0], ['2024-12-30', 4]]);
  });

  it('shows the whole range with bucket=auto: weeks, then months, when the days do not fit in limit', async () => {
    // Two days of records, one bar: their week.
    expect((await request(endpoint, '/api/timeseries?limit=1')).body).toMatchObject({ bucket: 'week', points: [{ start: '2024-12-30T00:00:00.000Z', incoming: 4 }] });
    // Three weeks and a bit do not fit in two bars: December and January.
    const months = (await request(endpoint, '/api/timeseries?limit=2&from=2024-12-20&to=2025-01-10')).body;
    expect(months.bucket).toBe('month');
    expect(months.points.map((p: { start: string; incoming: number; outgoing: number }) => [p.start.slice(0, 10), p.incoming + p.outgoing])).toEqual([['2024-12-01', 0], ['2025-01-01', 6]]);
    // Days when they fit.
    expect((await request(endpoint, '/api/timeseries?limit=2&bucket=auto&from=2025-01-02&to=2025-01-04')).body.bucket).toBe('day');
  });

  it('picks the smallest bucket that shows everything within limit with bucket=auto (the default)', async () => {
    expect((await request(endpoint, '/api/timeseries')).body.bucket).toBe('hour');
    expect((await request(endpoint, '/api/timeseries?limit=1000')).body.bucket).toBe('minute');
    expect((await request(endpoint, '/api/timeseries?limit=10')).body.bucket).toBe('day');
  });

  it('answers no points when nothing is stored', async () => {
    const empty = await start();
    try {
      expect((await request(empty, '/api/timeseries')).body).toEqual({ bucket: 'minute', points: [] });
    } finally {
      await empty.close();
    }
  });

  it('answers 400 for an unknown bucket or a limit out of range', async () => {
    expect((await request(endpoint, '/api/timeseries?bucket=year')).status).toBe(400);
    expect((await request(endpoint, '/api/timeseries?limit=0')).status).toBe(400);
    const tooMany = await request(endpoint, '/api/timeseries?limit=10001');
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatch(/from 1 to 10000/);
  });
});

describe('GET /api/intents', () => {
  it('counts messages per intent, most used first, and the incoming messages marked NotHandled', async () => {
    const { body } = await request(endpoint, '/api/intents');
    expect(body).toEqual({
      incomingMessages: 4,
      notHandled: 1,
      total: 3,
      intents: [
        // No record here carries a recognizer score: no confidence to show.
        { name: 'Order', incoming: 1, outgoing: 1, confidence: null },
        { name: 'Greeting', incoming: 1, outgoing: 0, confidence: null },
        { name: 'NotHandled', incoming: 1, outgoing: 0, confidence: null },
      ],
    });
    expect((await request(endpoint, '/api/intents?limit=1')).body).toMatchObject({ total: 3, intents: [{ name: 'Order' }] });
  });
});

describe('GET /api/record?seq=N', () => {
  it('answers one stored record as received, platformJson included', async () => {
    const { status, body } = await request(endpoint, '/api/record?seq=2');
    expect(status).toBe(200);
    // Stored as received, with when it happened: here the time it was received (the record gives none).
    expect(body.record).toEqual({ ...RECORDS[1], occurredAt: RECORDS[1].receivedAt });
  });

  it('answers 404 for a seq never stored and 400 without a whole seq', async () => {
    expect((await request(endpoint, '/api/record?seq=99')).status).toBe(404);
    expect((await request(endpoint, '/api/record?seq=1.5')).status).toBe(400);
    expect((await request(endpoint, '/api/record')).status).toBe(400);
  });
});

describe('filtering users and conversations', () => {
  const ids = (list: { userId?: string; conversationId?: string }[]) => list.map((item) => item.userId ?? item.conversationId).sort();

  it('keeps those seen on a platform, or with a message of an intent, or both', async () => {
    expect(ids((await request(endpoint, '/api/users?platform=twitter')).body.users)).toEqual(['u1', 'u2']);
    expect(ids((await request(endpoint, '/api/users?intent=NotHandled')).body.users)).toEqual(['u1']);
    expect(ids((await request(endpoint, '/api/users?platform=sms&intent=Order')).body.users)).toEqual(['u3']);
    expect(ids((await request(endpoint, '/api/conversations?intent=Greeting')).body.conversations)).toEqual(['c1']);
    const none = await request(endpoint, '/api/conversations?platform=facebook');
    expect(none.body).toEqual({ total: 0, conversations: [] });
  });

  it('gives each user and conversation the channel of its latest record that has one', async () => {
    const users = (await request(endpoint, '/api/users')).body.users;
    expect(users.find((u: { userId: string }) => u.userId === 'u1')).toMatchObject({ platform: 'twitter', channel: 'webchat' });
    expect(users.find((u: { userId: string }) => u.userId === 'u2')).toMatchObject({ channel: null });
    const transcript = (await request(endpoint, '/api/transcript?user=u1')).body.entries;
    expect(transcript[0]).toMatchObject({ channel: 'webchat', conversationId: 'c1' });
  });
});
