/**
 * What users thought of the answers: thumbs up and down from feedback events per day and per
 * intent, the latest comments, and the share of replies marked AI-generated.
 */
import { sql } from 'kysely';
import type { RecordStore } from '../store/store.js';
import { counts } from './charts.js';
import type { ReadFilter } from './filter.js';
import { bucketOf, buckets, byDimensions, byRange, iso, round } from './periods.js';
import type { FeedbackResponse } from '../types.js';

/** Most feedback comments returned. */
const MAX_COMMENTS = 100;

/**
 * Thumbs up and down from feedback events, per day and per intent (of the rated reply, else of
 * the user's message it answered: found as each feedback is stored), with the latest comments;
 * and the share of replies marked AI-generated.
 */
export async function feedback(store: RecordStore, filter: ReadFilter): Promise<FeedbackResponse> {
  const events = () => byRange(byDimensions(store.db.selectFrom('entries as e'), filter, 'e'), filter, 'e.occurred_at').where('e.reaction', 'is not', null);
  const day = bucketOf(store, sql.ref('e.occurred_at'), 'day');
  const [groups, comments, ai] = await Promise.all([
    // One pass over the ratings: per day, intent and reaction; summed three ways below.
    events().select([day.as('at'), 'e.rated_intent', 'e.reaction', (eb) => eb.fn.countAll<number>().as('n')]).groupBy([day, 'e.rated_intent', 'e.reaction']).execute(),
    events().where('e.comment', 'is not', null)
      // Events carry no name: the user's, as the store knows it.
      .leftJoin('users as u', (join) => join.onRef('u.bot', '=', 'e.bot').onRef('u.user_id', '=', 'e.user_id'))
      .select(['e.occurred_at', 'e.user_id', 'u.name as user_name', 'e.reaction', 'e.comment', 'e.rated_intent', 'e.reply_to'])
      .orderBy('e.occurred_at', 'desc').orderBy('e.seq', 'desc').limit(MAX_COMMENTS).execute(),
    counts(store, filter).where('direction', '=', 'outgoing')
      .select((eb) => [eb.fn.sum<number>('entries').as('replies'), eb.fn.sum<number>('ai_generated').as('ai')]).executeTakeFirstOrThrow(),
  ]);
  let up = 0;
  let down = 0;
  const byDay = new Map<number, { up: number; down: number }>();
  const byIntent = new Map<string | null, { up: number; down: number }>();
  for (const row of groups) {
    const n = Number(row.n);
    const liked = row.reaction === 'like';
    const d = byDay.get(Number(row.at)) ?? { up: 0, down: 0 };
    const i = byIntent.get(row.rated_intent) ?? { up: 0, down: 0 };
    byDay.set(Number(row.at), d);
    byIntent.set(row.rated_intent, i);
    if (liked) {
      up += n;
      d.up += n;
      i.up += n;
    } else {
      down += n;
      d.down += n;
      i.down += n;
    }
  }
  const replyCount = Number(ai.replies ?? 0);
  const aiCount = Number(ai.ai ?? 0);
  return {
    up,
    down,
    perDay: buckets([...byDay.keys()], filter, 'day').map((start) => ({ start: iso(start), ...(byDay.get(start) ?? { up: 0, down: 0 }) })),
    perIntent: [...byIntent.entries()].map(([intent, c]) => ({ intent, ...c }))
      .sort((a, b) => b.up + b.down - (a.up + a.down) || String(a.intent).localeCompare(String(b.intent))),
    comments: comments.map((e) => ({
      time: iso(Number(e.occurred_at)), userId: e.user_id, userName: e.user_name, reaction: e.reaction as 'like' | 'dislike',
      comment: e.comment as string, intent: e.rated_intent, replyTo: e.reply_to,
    })),
    ai: { replies: replyCount, aiGenerated: aiCount, share: replyCount === 0 ? 0 : round(aiCount / replyCount) },
  };
}
