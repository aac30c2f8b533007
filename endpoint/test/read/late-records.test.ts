/**
 * The known-answer dataset (endpoint/test/helpers/dataset.ts; endpoint/test/read/analytics.test.ts
 * states its figures) sent in another order than it happened: its visits shuffled, some records
 * held back and sent last (days and weeks late: a visit's first message, the message a rating is
 * about, a purchase, a reply), two visits newest first. Every analytics view, transcript and
 * search answers exactly what the dataset sent in order answers, on SQLite and on PostgreSQL; and
 * `import` of the dataset's messages sorted newest first gives the views of the same file sorted
 * oldest first.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { DATASET_KEY, OTHER_BOT_KEY, VISITS, datasetPosts, datasetVisits, loadDataset, sendPosts, type Post } from '../helpers/dataset.js';
import { request, start, tempDir } from '../helpers.js';
import { databases } from '../store/databases.js';
import { runCli } from '../cli/helpers.js';

const DBS = databases();
const KEYS = [`pizza=${DATASET_KEY}`, `support=${OTHER_BOT_KEY}`];
const PIZZA = 'bot=pizza&from=2026-09-07&to=2026-10-05';
const USERS = [...new Set([...VISITS.map((v) => v.user), 'z1'])];
const CONVERSATIONS = [...new Set([...VISITS.map((v) => v.conversation), 'z1-1'])];

/** Every view the read API has, over the dataset: the analytics views, lists, summaries, every transcript, searches. */
const VIEWS = [
  ...['week', 'day', 'month'].map((interval) => `/api/analytics/active-users?interval=${interval}&${PIZZA}`),
  '/api/analytics/active-users?interval=week&from=2026-09-07&to=2026-10-05', '/api/analytics/active-users?interval=week&channel=msteams',
  '/api/analytics/retention?bot=pizza&from=2026-09-07', '/api/analytics/retention',
  `/api/analytics/sessions?${PIZZA}`, '/api/analytics/sessions', '/api/analytics/sessions?channel=webchat',
  `/api/analytics/paths?${PIZZA}`, '/api/analytics/paths',
  `/api/analytics/funnel?steps=Greet,OrderPizza,event:purchase&${PIZZA}`, `/api/analytics/funnel?step=OrderPizza&step=Greet&${PIZZA}`,
  '/api/analytics/funnel?steps=Greet,OrderPizza,event:purchase&channel=webchat&bot=pizza', '/api/analytics/funnel?steps=Greet,NotHandled',
  `/api/analytics/messages?${PIZZA}`, `/api/analytics/messages?unhandled=true&${PIZZA}`, '/api/analytics/messages',
  `/api/analytics/buttons?${PIZZA}`, `/api/intents?${PIZZA}`, '/api/intents',
  `/api/analytics/feedback?${PIZZA}`, '/api/analytics/feedback?channel=webchat&bot=pizza',
  `/api/analytics/revenue?${PIZZA}`, '/api/analytics/revenue?channel=webchat&bot=pizza', '/api/analytics/revenue?channel=msteams',
  '/api/summary?bot=pizza', '/api/summary?bot=support', '/api/summary',
  '/api/timeseries?bucket=day&from=2026-09-07&to=2026-10-05', '/api/timeseries?bucket=hour&from=2026-09-07&to=2026-09-09',
  '/api/users?bot=pizza', '/api/users', '/api/conversations', '/api/conversations?bot=support',
  '/api/search?q=WEATHER&bot=pizza', '/api/search?q=weather', '/api/search?user=Bea', '/api/search?user=b1', '/api/search?q=hi', '/api/search?q=weather&limit=2',
  ...USERS.map((user) => `/api/transcript?user=${user}`), ...CONVERSATIONS.map((conversation) => `/api/transcript?conversation=${conversation}`),
  '/api/transcript?user=a1&limit=5',
];

/** An answer without what only says when and in which order records arrived (their numbers, when received, the cursors made of them). */
function happened(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(happened);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !['seq', 'receivedAt', 'before'].includes(key)).map(([key, v]) => [key, happened(v)]));
}

/** Every view's answer (200 each), as `happened` keeps it. */
async function answers(endpoint: TrackingEndpoint, views = VIEWS): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const path of views) {
    const res = await request(endpoint, path);
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    out[path] = happened(res.body);
  }
  return out;
}

/** A seeded shuffle (a linear congruential generator), so that a failure can be run again. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * The dataset in another order: the visits shuffled; held back and sent last, newest first: a1's
 * first message of all (weeks late), the message a4's rating is about (its OrderPizza), c1's
 * purchase, a2's last reply; b2's visit and the other bot's sent newest first.
 */
function lateOrder(seed: number): { main: Post[]; late: Post[] } {
  const visits = datasetVisits();
  const late: Post[] = [];
  const hold = (visit: number, index: number) => late.push(...visits[visit].splice(index, 1));
  hold(0, 0); // a1, week 0: "Hi", the first record of the dataset
  hold(4, 2); // a4: "Order", which the dislike is about
  hold(9, 4); // c1: the USD purchase
  hold(12, 3); // a2, week 3: "Your pizza is on its way."
  visits[6].reverse(); // b2's browse visit
  visits[13].reverse(); // the other bot's
  return { main: shuffled(visits, seed).flat(), late: late.reverse() };
}

describe.each(DBS)('the known-answer dataset in any order of arrival, on $name', ({ fresh }) => {
  let inOrder: Record<string, unknown>;
  beforeAll(async () => {
    const endpoint = await start({ database: await fresh(), apiKeys: KEYS });
    try {
      await loadDataset(endpoint.url);
      inOrder = await answers(endpoint);
    } finally {
      await endpoint.close();
    }
  }, 60_000);

  it('the in-order answers are the known ones (a few of them, as analytics.test.ts states them all)', () => {
    expect(inOrder[`/api/analytics/paths?${PIZZA}`]).toMatchObject({ sessions: 13, paths: [{ steps: ['Greet', 'OrderPizza', 'event:purchase'], sessions: 8 }, { steps: ['Greet', 'NotHandled'], sessions: 5 }] });
    expect(inOrder[`/api/analytics/sessions?${PIZZA}`]).toMatchObject({ sessions: 13, users: 7, messagesPerSession: 4, averageLengthSeconds: 235.4, medianLengthSeconds: 240 });
    expect(inOrder[`/api/analytics/feedback?${PIZZA}`]).toMatchObject({ up: 3, down: 1, perIntent: [{ intent: 'OrderPizza', up: 3, down: 1 }] });
  });

  it.each([1, 2])('shuffled, with records days and weeks late (seed %i): every view, transcript and search answers as in order', async (seed) => {
    const { main, late } = lateOrder(seed);
    expect(main.length + late.length).toBe(datasetPosts().length);
    const endpoint = await start({ database: await fresh(), apiKeys: KEYS });
    try {
      // A read waits until the views hold what was sent: each late record is then built on its own, after the rest.
      await sendPosts(endpoint.url, main);
      expect((await request(endpoint, '/api/summary')).status).toBe(200);
      for (const post of late) {
        await sendPosts(endpoint.url, [post]);
        expect((await request(endpoint, '/api/summary')).status).toBe(200);
      }
      const got = await answers(endpoint);
      for (const path of VIEWS) expect(got[path], path).toEqual(inOrder[path]);
    } finally {
      await endpoint.close();
    }
  }, 60_000);
});

describe.each(DBS)('import of the dataset\'s messages newest first, on $name', ({ fresh }) => {
  let folder: { dir: string; cleanup: () => Promise<void> };
  beforeAll(async () => {
    folder = await tempDir();
  });
  afterAll(() => folder?.cleanup());

  /** The dataset's messages as JSON Lines rows of `import` (events have no row of their own there), oldest first. */
  const rows = datasetPosts().filter((post) => post.query.type !== 'event' && post.query.apiKey === DATASET_KEY).map(({ query, body }) => {
    const b = body as { text: string; userId: string; intent?: unknown; platformJson: { timestamp: string; conversation: { id: string } } };
    return { text: b.text, userId: b.userId, direction: query.type, conversationId: b.platformJson.conversation.id, timestamp: b.platformJson.timestamp, ...(b.intent === undefined ? {} : { intent: b.intent }) };
  });

  /** The other bot's records are not in the file. */
  const PIZZA_VIEWS = VIEWS.filter((path) => !path.includes('z1'));

  it('gives the views of the same file sorted oldest first, figure for figure', async () => {
    const results: Record<string, unknown>[] = [];
    for (const [name, order] of [['oldest first', rows], ['newest first', [...rows].reverse()]] as const) {
      const file = join(folder.dir, `${name.replace(' ', '-')}.jsonl`);
      await writeFile(file, order.map((row) => JSON.stringify(row)).join('\n'));
      const endpoint = await start({ database: await fresh(), apiKeys: KEYS });
      try {
        const result = await runCli(['import', file, '--url', endpoint.url, '--key', DATASET_KEY], {}, 60_000);
        expect(result.stdout, result.stderr).toContain(`${rows.length} sent, 0 refused, 0 failed`);
        results.push(await answers(endpoint, PIZZA_VIEWS));
      } finally {
        await endpoint.close();
      }
    }
    const [oldest, newest] = results;
    for (const path of PIZZA_VIEWS) expect(newest[path], path).toEqual(oldest[path]);
    // The sessions are the dataset's: 13 of the pizza bot's, on the same paths (events aside).
    expect(oldest[`/api/analytics/paths?${PIZZA}`]).toMatchObject({ sessions: 13, paths: [{ steps: ['Greet', 'OrderPizza'], sessions: 8 }, { steps: ['Greet', 'NotHandled'], sessions: 5 }] });
  }, 120_000);
});
