/**
 * The read API's query parameters: the filter every view takes (`bot`, `platform`, `channel`,
 * `from`, `to`), `limit`, and each view's own (`interval`, `bucket`, `steps`, `q`, `seq`,
 * `before`…): what each takes, and the 400 that names it when it is not valid.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { KEY, Q, request, start, track } from '../helpers.js';

const TIME_EXPECTED = 'a date (2026-11-01), a date-time (2026-11-01T09:30:00Z) or epoch milliseconds';

let endpoint: TrackingEndpoint;
/** One message a day at 10:00 UTC on Nov 1, 2 and 3, 2026, from users d1, d2, d3 (bot "pizza"). */
beforeAll(async () => {
  endpoint = await start({ apiKeys: [`pizza=${KEY}`] });
  for (const day of [1, 2, 3]) {
    const body = { text: `message ${day}`, userId: `d${day}`, intent: { name: `Intent${day}`, inputs: [] }, platformJson: { timestamp: `2026-11-0${day}T10:00:00.000Z`, channelId: 'webchat' } };
    expect((await track(endpoint, Q.universalIn, body)).status).toBe(200);
  }
});
afterAll(() => endpoint.close());

const records = async (query: string) => {
  const res = await request(endpoint, `/api/summary?${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.records as number;
};

describe('from and to', () => {
  it('take a date, a date-time in UTC or with an offset, or epoch milliseconds; to is exclusive', async () => {
    expect(await records('')).toBe(3);
    expect(await records('from=2026-11-02')).toBe(2);
    expect(await records('to=2026-11-02')).toBe(1);
    expect(await records('from=2026-11-02&to=2026-11-03')).toBe(1);
    expect(await records('from=2026-11-02T00:00:00Z')).toBe(2);
    expect(await records('from=2026-11-02T11:00:00.000Z')).toBe(1);
    expect(await records('from=2026-11-02 11:00Z')).toBe(1);
    expect(await records(`from=${encodeURIComponent('2026-11-02T12:00:00+01:00')}`)).toBe(1);
    expect(await records(`from=${encodeURIComponent('2026-11-02T12:00+0100')}`)).toBe(1);
    expect(await records('to=2026-11-02T07:00:00-04:00')).toBe(2);
    expect(await records(`from=${Date.parse('2026-11-03T00:00:00Z')}`)).toBe(1);
    expect(await records(`to=${Date.parse('2026-11-01T00:00:00Z')}`)).toBe(0);
    // A date-time without an offset is the endpoint's local time: taken, whatever it means here.
    expect((await request(endpoint, '/api/summary?from=2026-11-02T10:00')).status).toBe(200);
  });

  it('are ignored when empty, as are the other filter parameters', async () => {
    expect(await records('from=&to=&bot=&platform=&channel=&intent=')).toBe(3);
  });

  it.each([
    'yesterday', 'Mon 2026-11-02', '12026-11-02', '2026-11-022', '2026-1-02', '2026-13-45', '2026-11-02T25:00Z', '2026-11-02T10:00 Z',
    '2026-11-02T', '1234567890123456', 'x123', '123x', '-5',
  ])('refuse %j (400), naming the parameter and the forms it takes', async (value) => {
    const res = await request(endpoint, `/api/summary?from=${encodeURIComponent(value)}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, error: 'The from parameter is not valid; see problems.', problems: [{ path: 'from', expected: TIME_EXPECTED, received: JSON.stringify(value) }] });
  });

  it('show at most 40 characters of a value they refuse, and name both when both are wrong', async () => {
    const long = `2026-${'x'.repeat(60)}`;
    const res = await request(endpoint, `/api/summary?from=${long}&to=nope`);
    expect(res.body).toEqual({
      ok: false,
      error: 'The from and to parameters are not valid; see problems.',
      problems: [{ path: 'from', expected: TIME_EXPECTED, received: JSON.stringify(long.slice(0, 40)) }, { path: 'to', expected: TIME_EXPECTED, received: '"nope"' }],
    });
  });

  it('refuse a to at or before from (400)', async () => {
    for (const query of ['from=2026-11-02&to=2026-11-02', 'from=2026-11-02&to=2026-11-01']) {
      const res = await request(endpoint, `/api/summary?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.problems).toEqual([{ path: 'to', expected: 'a time after from', received: 'a time at or before from' }]);
    }
  });

  it('are checked by every view, which answers 400 for a bad one', async () => {
    for (const path of [
      '/api/users', '/api/conversations', '/api/summary', '/api/timeseries', '/api/intents', '/api/analytics/active-users', '/api/analytics/retention', '/api/analytics/sessions',
      '/api/analytics/paths', '/api/analytics/funnel?steps=a', '/api/analytics/messages', '/api/analytics/buttons', '/api/analytics/feedback', '/api/analytics/revenue', '/api/search?q=a',
    ]) {
      const res = await request(endpoint, `${path}${path.includes('?') ? '&' : '?'}to=soon`);
      expect([path, res.status, res.body.problems?.[0]?.path]).toEqual([path, 400, 'to']);
    }
  });
});

describe('bot, platform, channel and intent', () => {
  it('narrow to a bot by its name or fingerprint, a platform, a channel, and (in the lists) an intent', async () => {
    const bot = (await request(endpoint, '/api/bots')).body.bots[0].bot;
    expect(await records('bot=pizza')).toBe(3);
    expect(await records(`bot=${bot}`)).toBe(3);
    expect(await records('bot=other')).toBe(0);
    expect(await records('platform=universal')).toBe(3);
    expect(await records('platform=sms')).toBe(0);
    expect(await records('channel=webchat')).toBe(3);
    expect(await records('channel=msteams')).toBe(0);
    expect((await request(endpoint, '/api/users?intent=Intent2')).body.users.map((u: { userId: string }) => u.userId)).toEqual(['d2']);
  });

  it('take a platform, channel or intent that is also the name of a bot as that value, not as the bot', async () => {
    const named = await start({ apiKeys: [`webchat=${KEY}`, `universal=other-key-2`, `Intent1=other-key-3`] });
    try {
      const body = { text: 'hi', userId: 'n1', intent: { name: 'Intent1', inputs: [] }, platformJson: { channelId: 'webchat' } };
      expect((await track(named, Q.universalIn, body)).status).toBe(200);
      for (const query of ['channel=webchat', 'platform=universal', 'intent=Intent1']) {
        expect((await request(named, `/api/users?${query}`)).body.users.map((u: { userId: string }) => u.userId), query).toEqual(['n1']);
      }
      expect((await request(named, '/api/users?bot=webchat')).body.users.map((u: { userId: string }) => u.userId)).toEqual(['n1']);
      expect((await request(named, '/api/users?bot=universal')).body.users).toEqual([]);
    } finally {
      await named.close();
    }
  });
});

describe('limit', () => {
  it('takes a whole number from 1 to the view\'s maximum', async () => {
    expect((await request(endpoint, '/api/users?limit=1')).body.users).toHaveLength(1);
    for (const [path, max] of [
      ['/api/analytics/paths', 1000], ['/api/analytics/messages', 1000], ['/api/analytics/buttons', 1000], ['/api/analytics/revenue', 1000],
      ['/api/search?q=message', 200], ['/api/timeseries', 10000], ['/api/transcript?user=d1', 50000],
    ] as const) {
      const sep = path.includes('?') ? '&' : '?';
      expect([path, (await request(endpoint, `${path}${sep}limit=${max}`)).status]).toEqual([path, 200]);
      const over = await request(endpoint, `${path}${sep}limit=${max + 1}`);
      expect([path, over.status, over.body]).toEqual([path, 400, {
        ok: false, error: `limit must be a whole number from 1 to ${max}.`, problems: [{ path: 'limit', expected: `a whole number from 1 to ${max}`, received: JSON.stringify(String(max + 1)) }],
      }]);
    }
  });

  it('says what limit it was given: /api/transcript?limit=100000 received "100000"', async () => {
    expect((await request(endpoint, '/api/transcript?user=d1&limit=100000')).body.problems).toEqual([{ path: 'limit', expected: 'a whole number from 1 to 50000', received: '"100000"' }]);
    expect((await request(endpoint, `/api/users?limit=${'9'.repeat(30)}`)).body.problems).toEqual([{ path: 'limit', expected: 'a whole number greater than 0', received: JSON.stringify('9'.repeat(20)) }]);
  });

  it.each(['0', '-1', '1.5', 'ten', '', '9007199254740993'])('refuses limit=%j in every view that takes one (400)', async (value) => {
    for (const path of [
      '/api/users', '/api/conversations', '/api/transcript?user=d1', '/api/timeseries', '/api/intents', '/api/analytics/paths', '/api/analytics/messages',
      '/api/analytics/buttons', '/api/analytics/revenue', '/api/search?q=message',
    ]) {
      const res = await request(endpoint, `${path}${path.includes('?') ? '&' : '?'}limit=${value}`);
      expect([path, res.status, res.body.problems]).toEqual([path, 400, [expect.objectContaining({ path: 'limit', received: JSON.stringify(value) })]]);
    }
  });

  it('says "greater than 0" where a view has no maximum', async () => {
    for (const path of ['/api/users', '/api/conversations', '/api/intents']) {
      expect((await request(endpoint, `${path}?limit=0`)).body).toEqual({
        ok: false, error: 'limit must be a whole number greater than 0.', problems: [{ path: 'limit', expected: 'a whole number greater than 0', received: '"0"' }],
      });
    }
  });
});

describe('each view\'s own parameters', () => {
  it('active users: interval is day (the default), week or month; anything else is 400', async () => {
    expect((await request(endpoint, '/api/analytics/active-users')).body.interval).toBe('day');
    expect((await request(endpoint, '/api/analytics/active-users?interval=month')).body.points).toEqual([{ start: '2026-11-01T00:00:00.000Z', active: 3, new: 3, returning: 0 }]);
    const res = await request(endpoint, `/api/analytics/active-users?interval=${'fortnight'.repeat(3)}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, error: 'interval must be day, week or month.', problems: [{ path: 'interval', expected: 'day, week or month', received: JSON.stringify('fortnight'.repeat(3).slice(0, 20)) }] });
  });

  it('timeseries: an unknown bucket is 400, naming the buckets', async () => {
    const res = await request(endpoint, `/api/timeseries?bucket=${'w'.repeat(30)}`);
    expect(res.body).toEqual({
      ok: false, error: 'bucket must be auto, minute, hour, day, week or month.', problems: [{ path: 'bucket', expected: 'auto, minute, hour, day, week or month', received: JSON.stringify('w'.repeat(20)) }],
    });
  });

  it('funnel: takes steps=A,B and step= repeated, trimmed, empty ones left out; 1 to 10 steps', async () => {
    const steps = async (query: string) => (await request(endpoint, `/api/analytics/funnel?${query}`)).body.steps?.map((s: { step: string; users: number }) => `${s.step}:${s.users}`);
    expect(await steps('steps=Intent1,Intent2')).toEqual(['Intent1:1', 'Intent2:0']);
    expect(await steps('step=%20Intent3%20&step=&steps=,Intent1,,')).toEqual(['Intent3:1', 'Intent1:0']);
    expect(await steps(`steps=${Array(10).fill('Intent1').join(',')}`)).toHaveLength(10);
    for (const [query, count] of [['steps=%20,,', 0], [`steps=${Array(11).fill('a').join(',')}`, 11], ['', 0]] as const) {
      const res = await request(endpoint, `/api/analytics/funnel?${query}`);
      expect(res.body).toEqual({
        ok: false,
        error: 'Give the funnel\'s steps, 1 to 10 intents or events: ?steps=Greet,OrderPizza,event:purchase',
        problems: [{ path: 'steps', expected: '1 to 10 comma-separated intent names or event:NAME', received: `${count} steps` }],
      });
    }
  });

  it('messages: unhandled=true gives only what was not understood; any other value, what users say', async () => {
    expect((await request(endpoint, '/api/analytics/messages')).body.total).toBe(3);
    expect((await request(endpoint, '/api/analytics/messages?unhandled=yes')).body.total).toBe(3);
    expect((await request(endpoint, '/api/analytics/messages?unhandled=true')).body).toEqual({ total: 0, messages: [] });
  });

  it('search: takes q, user or both, trimmed; neither is 400', async () => {
    const found = async (query: string) => (await request(endpoint, `/api/search?${query}`)).body.results.map((r: { userId: string }) => r.userId);
    expect(await found('q=%20message%202%20')).toEqual(['d2']);
    expect(await found('user=%20d3%20')).toEqual(['d3']);
    expect(await found('q=message&user=d1')).toEqual(['d1']);
    expect(await found('q=%20%20&user=d1')).toEqual(['d1']);
    for (const query of ['', 'q=%20%20', 'q=&user=']) {
      expect((await request(endpoint, `/api/search?${query}`)).body).toEqual({
        ok: false, error: 'Give ?q=TEXT (words in a message), ?user=ID_OR_NAME, or both.', problems: [{ path: 'q', expected: 'text to look for', received: 'missing' }],
      });
    }
  });

  it('record: seq is a whole number above 0; 404 naming it when there is none', async () => {
    expect((await request(endpoint, '/api/record?seq=1')).body.record.seq).toBe(1);
    for (const [query, received] of [['', 'missing'], ['seq=0', 'something else'], ['seq=-2', 'something else'], ['seq=abc', 'something else'], ['seq=1e300', 'something else']]) {
      expect((await request(endpoint, `/api/record?${query}`)).body).toEqual({
        ok: false, error: 'Give ?seq=N, the seq of a transcript entry.', problems: [{ path: 'seq', expected: 'a whole number > 0', received }],
      });
    }
    expect((await request(endpoint, '/api/record?seq=99')).body).toEqual({ ok: false, error: 'No record with seq 99.' });
  });

  it('transcript: exactly one of user and conversation; before is a seq above 0; 404 saying where to look', async () => {
    for (const [query, received] of [['', 'missing'], ['user=d1&conversation=d1', 'given with conversation']]) {
      expect((await request(endpoint, `/api/transcript?${query}`)).body).toEqual({
        ok: false,
        error: 'Give exactly one of ?user=ID or ?conversation=ID (the ids are listed by /api/users and /api/conversations).',
        problems: [{ path: 'user', expected: 'a user id, or conversation instead', received }],
      });
    }
    for (const before of ['0', '-1', '1.5', '0:1', '3:', 'x'.repeat(30)]) {
      const res = await request(endpoint, `/api/transcript?user=d1&before=${before}`);
      expect(res.body).toEqual({
        ok: false, error: 'before must be the seq of an entry (a whole number above 0, or SEQ:IDX as a transcript\'s `before` gives it), to page back from it.',
        problems: [{ path: 'before', expected: 'a whole number > 0, or SEQ:IDX', received: JSON.stringify(before.slice(0, 20)) }],
      });
    }
    expect((await request(endpoint, '/api/transcript?user=d1&before=1')).body.entries).toEqual([]);
    expect((await request(endpoint, '/api/transcript?user=d1&before=2')).body.entries.map((e: { text: string }) => e.text)).toEqual(['message 1']);
    expect((await request(endpoint, '/api/transcript?user=nobody')).body).toEqual({ ok: false, error: 'No records for this user; /api/users lists the users seen.' });
    expect((await request(endpoint, '/api/transcript?conversation=nowhere')).body).toEqual({ ok: false, error: 'No records for this conversation; /api/conversations lists them.' });
  });

  it('transcript: bot narrows it to one bot, by name or fingerprint', async () => {
    const bot = (await request(endpoint, '/api/bots')).body.bots[0].bot;
    expect((await request(endpoint, '/api/transcript?user=d1&bot=pizza')).body.total).toBe(1);
    expect((await request(endpoint, `/api/transcript?conversation=d1&bot=${bot}`)).body).toMatchObject({ userId: null, conversationId: 'd1', total: 1 });
    expect((await request(endpoint, '/api/transcript?user=d1&bot=other')).status).toBe(404);
    expect((await request(endpoint, '/api/transcript?user=d1&bot=')).body.total).toBe(1);
  });
});
