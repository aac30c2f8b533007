/**
 * Every view as a CSV download (`?format=csv`): its file name, its columns, and its rows as the
 * JSON answer holds them. Over the generated dataset (endpoint/test/helpers/dataset.ts, whose figures
 * endpoint/test/read/analytics.test.ts works out), plus a few records of a bot whose key has no
 * name: a group conversation, a reply with several buttons and images.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { DATASET_KEY, OTHER_BOT_KEY, loadDataset } from '../helpers/dataset.js';
import { Q, request, start, track } from '../helpers.js';

const PLAIN_KEY = 'plain-key-3';
const PIZZA = 'bot=pizza&from=2026-09-07&to=2026-10-05';

let endpoint: TrackingEndpoint;
/** The fingerprint of PLAIN_KEY, a key given without a bot name. */
let plainBot: string;
beforeAll(async () => {
  endpoint = await start({ apiKeys: [`pizza=${DATASET_KEY}`, `support=${OTHER_BOT_KEY}`, PLAIN_KEY] });
  await loadDataset(endpoint.url);
  const plain = { ...Q.universalIn, apiKey: PLAIN_KEY };
  const group = (user: string, minute: number) => ({ timestamp: `2026-10-10T10:0${minute}:00.000Z`, conversation: { id: 'group-1' }, from: { id: user } });
  for (const [query, body] of [
    [plain, { text: 'hello all', userId: 'g1', platformJson: group('g1', 0) }],
    [plain, { text: 'hi g1', userId: 'g2', platformJson: group('g2', 1) }],
    [{ ...plain, type: 'outgoing' }, {
      text: 'Pick a crust, "thin" or deep', userId: 'g1', platformJson: group('g1', 2),
      buttons: [{ id: 'thin', label: 'Thin', value: 'thin' }, { id: 'deep', label: 'Deep', value: 'deep' }], images: [{ url: 'https://img/a.png' }, { url: 'https://img/b.png' }],
    }],
  ] as const) expect((await track(endpoint, query, body)).status).toBe(200);
  plainBot = (await request(endpoint, '/api/bots')).body.bots.find((b: { name: string | null }) => b.name === null).bot;
});
afterAll(() => endpoint.close());

/** GETs `path` as CSV: the download's file name and its lines (without the byte order mark and the last CRLF). */
async function csv(path: string): Promise<{ file: string | undefined; lines: string[] }> {
  const res = await fetch(`${endpoint.url}${path}${path.includes('?') ? '&' : '?'}format=csv`);
  expect(res.status, path).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  const text = Buffer.from(await res.arrayBuffer()).toString('utf8');
  expect(text.startsWith('\ufeff') && text.endsWith('\r\n'), path).toBe(true);
  const file = /^attachment; filename="(.*)"$/.exec(res.headers.get('content-disposition') ?? '')?.[1];
  return { file, lines: text.slice(1, -2).split('\r\n') };
}

describe('the analytics views as CSV', () => {
  it('active users: start, active, new, returning per interval', async () => {
    expect(await csv(`/api/analytics/active-users?interval=week&${PIZZA}`)).toEqual({
      file: 'active-users-week.csv',
      lines: ['start,active,new,returning', '2026-09-07T00:00:00.000Z,4,4,0', '2026-09-14T00:00:00.000Z,4,2,2', '2026-09-21T00:00:00.000Z,3,1,2', '2026-09-28T00:00:00.000Z,1,0,1'],
    });
    expect((await csv(`/api/analytics/active-users?${PIZZA}`)).file).toBe('active-users-day.csv');
  });

  it('retention: each weekly cohort, its users and the share back in weeks 1 to 8', async () => {
    expect(await csv(`/api/analytics/retention?${PIZZA}`)).toEqual({
      file: 'retention.csv',
      lines: [
        'week,users,week 1,week 2,week 3,week 4,week 5,week 6,week 7,week 8',
        '2026-09-07T00:00:00.000Z,4,0.5,0.25,0.25,0,0,0,0,0',
        '2026-09-14T00:00:00.000Z,2,0.5,0,0,0,0,0,0,0',
        '2026-09-21T00:00:00.000Z,1,0,0,0,0,0,0,0,0',
      ],
    });
  });

  it('sessions: how many started each day, and with ?table=summary the figures', async () => {
    const { file, lines } = await csv(`/api/analytics/sessions?${PIZZA}`);
    expect(file).toBe('sessions.csv');
    expect(lines.slice(0, 3)).toEqual(['day,sessions', '2026-09-07T00:00:00.000Z,2', '2026-09-08T00:00:00.000Z,1']);
    expect((await csv(`/api/analytics/sessions?table=per-day&${PIZZA}`)).file).toBe('sessions-per-day.csv');
    // 13 sessions of 7 users, 4 messages each; 3060 s in all; the middle one 4 min.
    expect(await csv(`/api/analytics/sessions?table=summary&${PIZZA}`)).toEqual({
      file: 'sessions-summary.csv',
      lines: ['figure,value', 'sessions,13', 'users,7', 'messages per session,4', 'average length (s),235.4', 'median length (s),240'],
    });
  });

  it('paths: the steps joined with " > ", sessions and share', async () => {
    expect(await csv(`/api/analytics/paths?${PIZZA}`)).toEqual({
      file: 'paths.csv',
      lines: ['path,sessions,share', 'Greet > OrderPizza > event:purchase,8,0.6154', 'Greet > NotHandled,5,0.3846'],
    });
  });

  it('funnel: users, drop-off and conversion at each step', async () => {
    expect(await csv(`/api/analytics/funnel?steps=Greet,OrderPizza,event:purchase&${PIZZA}`)).toEqual({
      file: 'funnel.csv',
      lines: ['step,users,drop-off,conversion', 'Greet,7,0,1', 'OrderPizza,5,0.2857,0.7143', 'event:purchase,5,0,0.7143'],
    });
  });

  it('messages: what users say most, or what was not understood, in files named for which', async () => {
    const top = await csv(`/api/analytics/messages?${PIZZA}`);
    expect(top.file).toBe('top-messages.csv');
    expect(top.lines).toEqual(['text,count,share,intent', 'Hi,8,0.3077,Greet', 'Order,8,0.3077,OrderPizza', 'Hi there,5,0.1923,Greet', 'Weather tomorrow?,5,0.1923,NotHandled']);
    expect(await csv(`/api/analytics/messages?unhandled=true&${PIZZA}`)).toEqual({ file: 'unhandled-messages.csv', lines: ['text,count,share,intent', 'Weather tomorrow?,5,1,NotHandled'] });
  });

  it('buttons: id, label, clicks and their share of all clicks', async () => {
    expect(await csv(`/api/analytics/buttons?${PIZZA}`)).toEqual({ file: 'buttons.csv', lines: ['button,label,clicks,share', 'order,Order,8,1'] });
  });

  it('feedback: each comment with its time, user, name, reaction, intent and the reply it rates', async () => {
    expect(await csv(`/api/analytics/feedback?${PIZZA}`)).toEqual({
      file: 'feedback.csv',
      lines: [
        'time,user,name,reaction,intent,comment,reply',
        '2026-09-10T10:05:00.000Z,a4,,dislike,OrderPizza,Cold pizza,reply-4',
        '2026-09-08T10:05:00.000Z,a2,,like,OrderPizza,"Great, thanks",reply-2',
        '2026-09-07T09:05:00.000Z,a1,Ann,like,OrderPizza,Fast!,reply-0',
      ],
    });
  });

  it('feedback with ?table=: the figures, the ratings per day and per intent', async () => {
    expect((await csv(`/api/analytics/feedback?table=comments&${PIZZA}`)).file).toBe('feedback-comments.csv');
    // 3 up and 1 down; 8 of the 26 replies AI-generated.
    expect(await csv(`/api/analytics/feedback?table=summary&${PIZZA}`)).toEqual({
      file: 'feedback-summary.csv',
      lines: ['figure,value', 'thumbs up,3', 'thumbs down,1', 'liked,0.75', 'replies,26', 'AI-generated replies,8', 'AI-generated share,0.3077'],
    });
    const days = await csv(`/api/analytics/feedback?table=per-day&${PIZZA}`);
    expect(days.file).toBe('feedback-per-day.csv');
    expect(days.lines[0]).toBe('day,up,down');
    expect(days.lines.filter((line) => !line.endsWith(',0,0'))).toEqual([
      'day,up,down', '2026-09-07T00:00:00.000Z,1,0', '2026-09-08T00:00:00.000Z,1,0', '2026-09-10T00:00:00.000Z,0,1', '2026-09-14T00:00:00.000Z,1,0',
    ]);
    expect(await csv(`/api/analytics/feedback?table=per-intent&${PIZZA}`)).toEqual({ file: 'feedback-per-intent.csv', lines: ['intent,up,down,liked', 'OrderPizza,3,1,0.75'] });
  });

  it('revenue: per day and currency, the total and the number of events; with ?table= the totals per currency and per user', async () => {
    const { file, lines } = await csv(`/api/analytics/revenue?${PIZZA}`);
    expect(file).toBe('revenue.csv');
    expect(lines.slice(0, 2)).toEqual(['day,currency,total,count', '2026-09-07T00:00:00.000Z,EUR,10,1']);
    expect(lines).toContain('2026-09-21T00:00:00.000Z,USD,12,1');
    expect(await csv(`/api/analytics/revenue?table=by-currency&${PIZZA}`)).toEqual({ file: 'revenue-by-currency.csv', lines: ['currency,total,count', 'EUR,70,7', 'USD,12,1'] });
    expect(await csv(`/api/analytics/revenue?table=per-user&${PIZZA}`)).toEqual({
      file: 'revenue-per-user.csv',
      lines: ['user,name,bot,currency,total,count', 'a1,Ann,pizza,EUR,20,2', 'a2,,pizza,EUR,20,2', 'b1,Bea,pizza,EUR,20,2', 'c1,,pizza,USD,12,1', 'a4,,pizza,EUR,10,1'],
    });
  });

  it('answers 400 naming the tables for a table a view does not have', async () => {
    const res = await request(endpoint, '/api/analytics/revenue?format=csv&table=per-week');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      ok: false, error: 'table must be one of per-day, by-currency, per-user.', problems: [{ path: 'table', expected: 'per-day, by-currency, per-user', received: '"per-week"' }],
    });
    expect((await request(endpoint, '/api/analytics/feedback?table=x')).status).toBe(400);
  });

  it('search: each match with its time, user, name, conversation, direction, text, intent and seq', async () => {
    const { file, lines } = await csv(`/api/search?q=pizza&user=a1&${PIZZA}`);
    expect(file).toBe('search.csv');
    expect(lines[0]).toBe('time,user,name,conversation,direction,text,intent,seq');
    expect(lines.slice(1).map((line) => line.replace(/,\d+$/, ',SEQ'))).toEqual([
      '2026-09-22T10:03:00.000Z,a1,Ann,a1-3,outgoing,"Sorry, I only know about pizza.",,SEQ',
      '2026-09-16T10:03:00.000Z,a1,Ann,a1-2,outgoing,Your pizza is on its way.,,SEQ',
      '2026-09-16T10:01:00.000Z,a1,Ann,a1-2,outgoing,Hello! Want a pizza?,,SEQ',
      '2026-09-07T11:03:00.000Z,a1,Ann,a1-1,outgoing,"Sorry, I only know about pizza.",,SEQ',
      '2026-09-07T09:03:00.000Z,a1,Ann,a1-1,outgoing,Your pizza is on its way.,,SEQ',
      '2026-09-07T09:01:00.000Z,a1,Ann,a1-1,outgoing,Hello! Want a pizza?,,SEQ',
    ]);
    const weather = await csv(`/api/search?q=weather&user=a1&${PIZZA}`);
    expect(weather.lines[1]).toMatch(/^2026-09-22T10:02:00\.000Z,a1,Ann,a1-3,incoming,Weather tomorrow\?,NotHandled,\d+$/);
  });
});

describe('the lists, the summary and the charts as CSV', () => {
  it('users: with their names, and the bot by its name, or its fingerprint when its key has none', async () => {
    const pizza = await csv('/api/users?bot=pizza&limit=2');
    expect(pizza).toEqual({
      file: 'users.csv',
      lines: [
        'user,name,bot,platform,channel,first activity,last activity,messages,events,conversations',
        'a2,,pizza,twitter,webchat,2026-09-08T10:00:00.000Z,2026-09-28T10:04:00.000Z,12,3,3',
        'b1,Bea,pizza,twitter,webchat,2026-09-14T10:00:00.000Z,2026-09-23T10:04:00.000Z,8,3,2',
      ],
    });
    const plain = await csv(`/api/users?bot=${plainBot}`);
    expect(plain.lines.slice(1).map((line) => line.split(',').slice(0, 3))).toEqual([['g1', '', plainBot], ['g2', '', plainBot]]);
    const json = await request(endpoint, '/api/users?bot=pizza&limit=1');
    expect(json.body.users[0].botName).toBe('pizza');
    expect((await request(endpoint, `/api/users?bot=${plainBot}`)).body.users[0].botName).toBeUndefined();
  });

  it('conversations: their users separated by spaces, and the bot by its name or fingerprint', async () => {
    expect(await csv('/api/conversations?bot=pizza&limit=1')).toEqual({
      file: 'conversations.csv',
      lines: ['conversation,users,bot,platform,channel,first activity,last activity,messages,events', 'a2-3,a2,pizza,twitter,webchat,2026-09-28T10:00:00.000Z,2026-09-28T10:04:00.000Z,4,1'],
    });
    expect((await csv(`/api/conversations?bot=${plainBot}`)).lines[1]).toBe(`group-1,g1 g2,${plainBot},universal,,2026-10-10T10:00:00.000Z,2026-10-10T10:02:00.000Z,3,0`);
    expect((await request(endpoint, '/api/conversations?bot=pizza&limit=1')).body.conversations[0].botName).toBe('pizza');
  });

  it('transcript: every field of each entry, buttons by label and images by address', async () => {
    const order = await csv('/api/transcript?conversation=a1-1');
    expect(order.file).toBe('transcript-a1-1.csv');
    expect(order.lines[0]).toBe('time,direction,user,name,conversation,text,intent,buttons,clicked,images,event,amount,currency,platform,channel,seq');
    expect(order.lines.slice(1, 7).map((line) => line.replace(/,\d+$/, ',SEQ'))).toEqual([
      '2026-09-07T09:00:00.000Z,incoming,a1,Ann,a1-1,Hi,Greet,,,,,,,twitter,webchat,SEQ',
      '2026-09-07T09:01:00.000Z,outgoing,a1,Ann,a1-1,Hello! Want a pizza?,,Order,,,,,,twitter,webchat,SEQ',
      '2026-09-07T09:02:00.000Z,incoming,a1,Ann,a1-1,Order,OrderPizza,,order,,,,,twitter,webchat,SEQ',
      '2026-09-07T09:03:00.000Z,outgoing,a1,Ann,a1-1,Your pizza is on its way.,,,,,,,,twitter,webchat,SEQ',
      '2026-09-07T09:04:00.000Z,event,a1,,a1-1,,,,,,purchase,10,EUR,twitter,,SEQ',
      '2026-09-07T09:05:00.000Z,event,a1,,a1-1,,,,,,feedback,,,twitter,,SEQ',
    ]);
    const group = await csv('/api/transcript?user=g1');
    expect(group.file).toBe('transcript-g1.csv');
    expect(group.lines[2].replace(/,\d+$/, ',SEQ')).toBe('2026-10-10T10:02:00.000Z,outgoing,g1,,group-1,"Pick a crust, ""thin"" or deep",,Thin | Deep,,https://img/a.png https://img/b.png,,,,universal,,SEQ');
  });

  it('summary: every figure the JSON holds, one a line, with revenue per currency (EUR 70 and USD 12 never added)', async () => {
    const { file, lines } = await csv('/api/summary?bot=pizza');
    expect(file).toBe('summary.csv');
    expect(lines).toEqual([
      'figure,name,value', 'records,,64', 'messages,,52', 'events,,12', 'users,,7', 'conversations,,12',
      'first,,2026-09-07T09:00:00.000Z', 'last,,2026-09-28T10:04:00.000Z',
      'by type,event,12', 'by type,incoming,26', 'by type,outgoing,26', 'by platform,twitter,64', 'by channel,msteams,4', 'by channel,webchat,60',
      'by intent,Greet,13', 'by intent,NotHandled,5', 'by intent,OrderPizza,8',
      'by event type,customEvent,4', 'by event type,revenueEvent,8', 'by event name,feedback,4', 'by event name,purchase,8',
      'revenue events,,8', 'revenue,EUR,70', 'revenue,USD,12',
    ]);
    expect(lines.join('\n')).not.toContain('82');
  });

  it('timeseries: each bucket\'s messages in and out, events, NotHandled and revenue, in a file named for the bucket', async () => {
    expect(await csv(`/api/timeseries?bucket=day&limit=2&${PIZZA}`)).toEqual({
      file: 'timeseries-day.csv',
      // EUR and USD in the range: no revenue figure, as they are never added.
      lines: ['start,incoming,outgoing,events,not handled,revenue', '2026-09-27T00:00:00.000Z,0,0,0,0,', '2026-09-28T00:00:00.000Z,2,2,1,0,'],
    });
    // The whole range in at most 2 buckets: the month of September.
    expect(await csv(`/api/timeseries?limit=2&${PIZZA}`)).toEqual({
      file: 'timeseries-month.csv',
      lines: ['start,incoming,outgoing,events,not handled,revenue', '2026-09-01T00:00:00.000Z,26,26,12,5,'],
    });
    // One currency: its sum.
    expect((await csv('/api/timeseries?bucket=week&bot=pizza&from=2026-09-07&to=2026-09-20')).lines.slice(1)).toEqual(['2026-09-07T00:00:00.000Z,10,10,6,2,30', '2026-09-14T00:00:00.000Z,8,8,3,2,20']);
  });

  it('intents: incoming, outgoing and the recognizer\'s confidence; with ?table=summary the NotHandled share', async () => {
    expect(await csv(`/api/intents?${PIZZA}`)).toEqual({
      file: 'intents.csv',
      lines: ['intent,incoming,outgoing,confidence', 'Greet,13,0,0.8231', 'OrderPizza,8,0,0.8', 'NotHandled,5,0,0.3'],
    });
    expect(await csv(`/api/intents?table=summary&${PIZZA}`)).toEqual({
      file: 'intents-summary.csv',
      lines: ['figure,value', 'incoming messages,26', 'not handled,5', 'not handled share,0.1923', 'intents,3'],
    });
  });
});

describe('the file name of a transcript download', () => {
  it('is made of the user or conversation id, with anything but letters, digits, dot and dash replaced, and cut to 60 characters', async () => {
    const odd = 'ann smith/€ <x>';
    await track(endpoint, { ...Q.universalIn, apiKey: PLAIN_KEY }, { text: 'hi', userId: odd });
    expect((await csv(`/api/transcript?user=${encodeURIComponent(odd)}`)).file).toBe('transcript-ann_smith_x_.csv');
    const long = `u${'1234567890'.repeat(7)}`;
    await track(endpoint, { ...Q.universalIn, apiKey: PLAIN_KEY }, { text: 'hi', userId: long });
    expect((await csv(`/api/transcript?user=${long}`)).file).toBe(`transcript-${long.slice(0, 60)}.csv`);
  });
});

describe('?format', () => {
  it('answers JSON by default and with format=json, and 400 naming the format for anything else', async () => {
    const json = await request(endpoint, '/api/analytics/buttons?format=json&bot=pizza');
    expect(json.body).toEqual({ total: 8, buttons: [{ button: 'order', label: 'Order', clicks: 8 }] });
    const res = await request(endpoint, `/api/analytics/buttons?format=${'x'.repeat(30)}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, error: 'format must be json or csv.', problems: [{ path: 'format', expected: 'json or csv', received: JSON.stringify('x'.repeat(20)) }] });
    expect((await request(endpoint, '/api/analytics/buttons?format=')).body.problems[0].received).toBe('""');
  });
});
