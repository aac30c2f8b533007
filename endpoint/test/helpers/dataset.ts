/**
 * A generated dataset with known answers, spread over four weeks: a pizza bot's users arrive in
 * weekly cohorts, some come back, they order (button click, purchase) or ask something the bot
 * does not understand, and rate some replies. Every figure the analytics views show can be worked
 * out by hand from the list of visits below; endpoint/test/read/analytics.test.ts states each one.
 *
 * Records are sent over HTTP like any client's, each with the time it happened in
 * `platformJson.timestamp` (events in `extraInfo.timestamp`), so they land on the right day.
 */

/** Monday 2026-09-07, 00:00 UTC: the first week of the dataset. */
export const WEEK0 = Date.parse('2026-09-07T00:00:00Z');
const DAY = 86_400_000;
const HOUR = 3_600_000;
const MINUTE = 60_000;

export const DATASET_KEY = 'pizza-key-1';
export const OTHER_BOT_KEY = 'support-key-2';

/** One visit: a user's session in a conversation. */
export interface Visit {
  user: string;
  name?: string;
  week: number;
  day: number;
  hour: number;
  flow: 'order' | 'browse';
  conversation: string;
  channel?: string;
  currency?: string;
  amount?: number;
  feedback?: { reaction: 'like' | 'dislike'; comment?: string };
}

/**
 * The visits, in the order they are sent. Users a1-a4 are new in week 0, b1-b2 in week 1, c1 in
 * week 2; a1 and a2 come back in week 1, a1 and b1 in week 2, a2 in week 3. a1's second visit on
 * day 0 is in the same conversation two hours later: a session of its own.
 */
export const VISITS: Visit[] = [
  { user: 'a1', name: 'Ann', week: 0, day: 0, hour: 9, flow: 'order', conversation: 'a1-1', feedback: { reaction: 'like', comment: 'Fast!' } },
  { user: 'a1', name: 'Ann', week: 0, day: 0, hour: 11, flow: 'browse', conversation: 'a1-1' },
  { user: 'a2', week: 0, day: 1, hour: 10, flow: 'order', conversation: 'a2-1', feedback: { reaction: 'like', comment: 'Great, thanks' } },
  { user: 'a3', week: 0, day: 2, hour: 10, flow: 'browse', conversation: 'a3-1', channel: 'msteams' },
  { user: 'a4', week: 0, day: 3, hour: 10, flow: 'order', conversation: 'a4-1', feedback: { reaction: 'dislike', comment: 'Cold pizza' } },
  { user: 'b1', name: 'Bea', week: 1, day: 0, hour: 10, flow: 'order', conversation: 'b1-1', feedback: { reaction: 'like' } },
  { user: 'b2', week: 1, day: 1, hour: 10, flow: 'browse', conversation: 'b2-1' },
  { user: 'a1', name: 'Ann', week: 1, day: 2, hour: 10, flow: 'order', conversation: 'a1-2' },
  { user: 'a2', week: 1, day: 3, hour: 10, flow: 'browse', conversation: 'a2-2' },
  { user: 'c1', week: 2, day: 0, hour: 10, flow: 'order', conversation: 'c1-1', currency: 'usd', amount: 12 },
  { user: 'a1', name: 'Ann', week: 2, day: 1, hour: 10, flow: 'browse', conversation: 'a1-3' },
  { user: 'b1', name: 'Bea', week: 2, day: 2, hour: 10, flow: 'order', conversation: 'b1-2' },
  { user: 'a2', week: 3, day: 0, hour: 10, flow: 'order', conversation: 'a2-3' },
];

/** A record to send: its query and body. */
export interface Post {
  query: Record<string, string>;
  body: unknown;
}

const DM = (type: string, apiKey = DATASET_KEY) => ({ platform: 'twitter', v: '11.1.0-rest', type, apiKey });

/** When a visit starts (ms). */
export function visitStart(visit: Visit): number {
  return WEEK0 + visit.week * 7 * DAY + visit.day * DAY + visit.hour * HOUR;
}

/** The records of one visit, a minute apart. */
function visitPosts(visit: Visit, index: number): Post[] {
  const start = visitStart(visit);
  const at = (minute: number) => new Date(start + minute * MINUTE).toISOString();
  const from = { id: visit.user, ...(visit.name ? { name: visit.name } : {}) };
  const pj = (minute: number, extra: Record<string, unknown> = {}) => ({ timestamp: at(minute), channelId: visit.channel ?? 'webchat', conversation: { id: visit.conversation }, ...extra });
  const incoming = (minute: number, text: string, intent: { name: string; inputs: { name: string; value: string }[] }, extra: Record<string, unknown> = {}) =>
    ({ query: DM('incoming'), body: { text, userId: visit.user, intent, platformJson: pj(minute, { from }), ...extra } });
  const outgoing = (minute: number, text: string, extra: Record<string, unknown> = {}, platformJson: Record<string, unknown> = {}) =>
    ({ query: DM('outgoing'), body: { text, userId: visit.user, platformJson: pj(minute, { recipient: from, ...platformJson }), ...extra } });
  if (visit.flow === 'browse') {
    return [
      incoming(0, 'Hi there', { name: 'Greet', inputs: [{ name: 'score', value: '0.7' }] }),
      outgoing(1, 'Hello! Hungry?'),
      incoming(2, 'Weather tomorrow?', { name: 'NotHandled', inputs: [{ name: 'topIntent', value: 'None' }, { name: 'score', value: '0.3' }] }),
      outgoing(3, 'Sorry, I only know about pizza.'),
    ];
  }
  const replyId = `reply-${index}`;
  const posts: Post[] = [
    incoming(0, 'Hi', { name: 'Greet', inputs: [{ name: 'score', value: '0.9' }] }),
    outgoing(1, 'Hello! Want a pizza?', { buttons: [{ id: 'order', label: 'Order', value: 'order' }] }),
    incoming(2, 'Order', { name: 'OrderPizza', inputs: [{ name: 'score', value: '0.8' }] }, { postback: { buttonClick: { buttonId: 'order' } } }),
    outgoing(3, 'Your pizza is on its way.', {}, { id: replyId, entities: [{ type: 'https://schema.org/Message', '@type': 'Message', additionalType: ['AIGeneratedContent'] }] }),
    {
      query: DM('event'),
      body: { type: 'revenueEvent', name: 'purchase', userId: visit.user, conversationId: visit.conversation, amount: visit.amount ?? 10, metadata: { currency: visit.currency ?? 'EUR', timestamp: at(4) } },
    },
  ];
  if (visit.feedback) {
    posts.push({
      query: DM('event'),
      body: {
        type: 'customEvent', name: 'feedback', userId: visit.user, conversationId: visit.conversation,
        extraInfo: { reaction: visit.feedback.reaction, replyToId: replyId, timestamp: at(5), ...(visit.feedback.comment ? { feedbackText: visit.feedback.comment } : {}) },
      },
    });
  }
  return posts;
}

/** The records of each visit (VISITS, in order), then those of one visit of another bot (key OTHER_BOT_KEY) in week 1. */
export function datasetVisits(): Post[][] {
  const visits = VISITS.map((visit, i) => visitPosts(visit, i));
  const z = { user: 'z1', week: 1, day: 4, hour: 12, flow: 'browse' as const, conversation: 'z1-1' };
  visits.push(visitPosts(z, 99).map((post) => ({ ...post, query: { ...post.query, apiKey: OTHER_BOT_KEY } })));
  return visits;
}

/** Every record of the dataset, in the order sent; then one visit of another bot (key OTHER_BOT_KEY) in week 1. */
export function datasetPosts(): Post[] {
  return datasetVisits().flat();
}

/** Sends `posts` to the endpoint at `url`, one record at a time, in the order given; fails on any refusal. */
export async function sendPosts(url: string, posts: readonly Post[]): Promise<void> {
  for (const { query, body } of posts) {
    const res = await fetch(`${url}/track?${new URLSearchParams(query)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`the endpoint refused a dataset record (${res.status}): ${await res.text()}`);
  }
}

/** Sends the dataset to the endpoint at `url`, one record at a time (so each user's order holds); fails on any refusal. */
export async function loadDataset(url: string): Promise<number> {
  const posts = datasetPosts();
  await sendPosts(url, posts);
  return posts.length;
}
