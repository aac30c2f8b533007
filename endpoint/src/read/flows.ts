/**
 * Where conversations go: the most common paths through intents and events (from the per-day path
 * counts the store keeps), and funnels over steps the user picks (from the entries, through
 * covering indexes).
 */
import type { RecordStore } from '../store/store.js';
import { EVENT_STEP_PREFIX } from '../store/sessions.js';
import { DAY, type ReadFilter } from './filter.js';
import { byDimensions, byRange, round } from './periods.js';
import type { FunnelResponse, PathsResponse } from '../types.js';

/** The most common paths: sessions (started within the filter) grouped by their first steps, from the per-day path counts. */
export async function paths(store: RecordStore, filter: ReadFilter, limit: number): Promise<PathsResponse> {
  const base = () => byRange(byDimensions(store.db.selectFrom('session_paths as p'), filter, 'p'), filter, 'p.day', DAY);
  const [total, rows] = await Promise.all([
    base().select((eb) => eb.fn.sum<number>('p.sessions').as('n')).executeTakeFirstOrThrow(),
    base().select(['p.path', (eb) => eb.fn.sum<number>('p.sessions').as('n')]).groupBy('p.path').having((eb) => eb.fn.sum('p.sessions'), '>', 0)
      .orderBy('n', 'desc').orderBy('p.path').limit(limit).execute(),
  ]);
  const sessions = Number(total.n ?? 0);
  const found = rows.map((row) => ({ steps: JSON.parse(row.path) as string[], sessions: Number(row.n), share: sessions === 0 ? 0 : round(Number(row.n) / sessions) }));
  // Ties in the order the steps read (the databases' collations differ on punctuation).
  const label = (steps: string[]) => steps.join(' > ');
  return { sessions, paths: found.sort((a, b) => b.sessions - a.sessions || (label(a.steps) < label(b.steps) ? -1 : label(a.steps) > label(b.steps) ? 1 : 0)) };
}

/** The entries a funnel step matches: an incoming message with the intent, or an event (`event:NAME`). */
function stepCondition(step: string) {
  return step.startsWith(EVENT_STEP_PREFIX)
    ? { direction: undefined, column: 'event_name' as const, value: step.slice(EVENT_STEP_PREFIX.length) } // only events have a name
    : { direction: 'incoming' as const, column: 'intent' as const, value: step };
}

/**
 * A funnel: the users who took the first step within the filter, then of those the users who took
 * the second at or after their first, and so on; with the drop-off between steps.
 */
export async function funnel(store: RecordStore, filter: ReadFilter, steps: readonly string[]): Promise<FunnelResponse> {
  const counts: number[] = [];
  // One query: each step a CTE that keeps, per user, the first time they took it after the previous step.
  let query: any = store.db;
  steps.forEach((step, i) => {
    const { direction, column, value } = stepCondition(step);
    query = query.with(`s${i}`, (db: any) => {
      // The covering indexes (intent, direction, bot, user_id, occurred_at) and (event_name, bot, user_id, occurred_at) answer each step.
      let q = byRange(byDimensions(db.selectFrom('entries as e'), filter, 'e'), filter, 'e.occurred_at').where(`e.${column}`, '=', value);
      if (direction !== undefined) q = q.where('e.direction', '=', direction);
      if (i > 0) q = q.innerJoin(`s${i - 1} as p`, (join: any) => join.onRef('p.bot', '=', 'e.bot').onRef('p.user_id', '=', 'e.user_id').onRef('e.occurred_at', '>=', 'p.t'));
      return q.select(['e.bot', 'e.user_id', (eb: any) => eb.fn.min('e.occurred_at').as('t')]).groupBy(['e.bot', 'e.user_id']);
    });
  });
  if (steps.length > 0) {
    const row = await query.selectNoFrom((eb: any) => steps.map((_, i) => eb.selectFrom(`s${i}`).select((c: any) => c.fn.countAll().as('n')).as(`n${i}`))).executeTakeFirstOrThrow();
    steps.forEach((_, i) => counts.push(Number(row[`n${i}`] ?? 0)));
  }
  return {
    steps: steps.map((step, i) => ({
      step,
      users: counts[i],
      dropOff: i === 0 || counts[i - 1] === 0 ? 0 : round(1 - counts[i] / counts[i - 1]),
      conversion: counts[0] === 0 ? 0 : round(counts[i] / counts[0]),
    })),
  };
}
