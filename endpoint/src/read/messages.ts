/**
 * What users say and click: top messages (grouped by normalised text), what the bot did not
 * understand (NotHandled), and clicked buttons; from the message and click counts the store keeps.
 */
import { sql } from 'kysely';
import type { RecordStore } from '../store/store.js';
import { DAY, NOT_HANDLED_INTENT, type ReadFilter } from './filter.js';
import { byDimensions, byRange, round } from './periods.js';
import type { ButtonsResponse, MessagesResponse } from '../types.js';

/**
 * What users said most (grouped by normalised text), or only what was marked `NotHandled`: from
 * the all-time totals when no range is asked, else from the per-day counts. The ranking groups
 * only the keys and their counts, reading them by key from an index (no sorting of the rows, most
 * of which are texts said once); the text and intent shown are then read for the keys ranked.
 */
export async function topMessages(store: RecordStore, filter: ReadFilter, limit: number, unhandled: boolean): Promise<MessagesResponse> {
  const open = filter.from === undefined && filter.to === undefined;
  const base = () => (open
    ? byDimensions(store.db.selectFrom('message_totals as m'), filter, 'm')
    : byRange(byDimensions(store.db.selectFrom('daily_messages as m'), filter, 'm'), filter, 'm.day', DAY))
    .$if(unhandled, (q: any) => q.where('m.intent', '=', NOT_HANDLED_INTENT));
  // One pass: the keys ranked by count, each row carrying the sum over every key (a window over the groups).
  const ranked = await base().select(['m.text_key', (eb: any) => eb.fn.sum('m.count').as('n'), sql<number>`sum(sum(${sql.ref('m.count')})) over ()`.as('total')])
    .groupBy('m.text_key').orderBy('n', 'desc').orderBy('m.text_key').limit(limit).execute() as unknown as { text_key: string; n: unknown; total: unknown }[];
  const shown = new Map<string, { text: unknown; intent: unknown }>();
  if (ranked.length > 0) {
    const rows = await base().where('m.text_key', 'in', ranked.map((row) => row.text_key))
      .select(['m.text_key', (eb: any) => eb.fn.max('m.text').as('text'), (eb: any) => eb.fn.max('m.intent').as('intent')]).groupBy('m.text_key').execute() as unknown as { text_key: string; text: unknown; intent: unknown }[];
    for (const row of rows) shown.set(row.text_key, row);
  }
  const all = Number(ranked[0]?.total ?? 0);
  const byCount = (a: { n: unknown; text_key: string }, b: { n: unknown; text_key: string }) => Number(b.n) - Number(a.n) || (a.text_key < b.text_key ? -1 : a.text_key > b.text_key ? 1 : 0);
  return {
    total: all,
    messages: ranked.sort(byCount).map((row) => {
      const { text, intent } = shown.get(row.text_key) ?? { text: '', intent: null };
      return { text: String(text), key: row.text_key, count: Number(row.n), share: all === 0 ? 0 : round(Number(row.n) / all), intent: intent ? String(intent) : null };
    }),
  };
}

/**
 * The buttons users clicked, most clicked first, each with its label as the bot offered it (the
 * label it was last offered with, `button_labels`), else what the user's message said with the
 * click (from the per-day click counts).
 */
export async function clickedButtons(store: RecordStore, filter: ReadFilter, limit: number): Promise<ButtonsResponse> {
  const base = () => byRange(byDimensions(store.db.selectFrom('daily_clicks as c'), filter, 'c'), filter, 'c.day', DAY);
  const [total, rows] = await Promise.all([
    base().select((eb) => eb.fn.sum<number>('c.clicks').as('n')).executeTakeFirstOrThrow(),
    base().leftJoin('button_labels as l', (join) => join.onRef('l.bot', '=', 'c.bot').onRef('l.button', '=', 'c.button'))
      .select(['c.button', (eb) => eb.fn.sum<number>('c.clicks').as('n'), (eb) => eb.fn.max('c.label').as('said'), (eb) => eb.fn.max('l.label').as('offered')])
      .groupBy('c.button').orderBy('n', 'desc').orderBy('c.button').limit(limit).execute(),
  ]);
  // Stryker disable next-line ArrowFunction,ConditionalExpression,LogicalOperator,ArithmeticOperator,EqualityOperator,UnaryOperator: the databases return this order already (clicks, then the button by code units: SQLite's BINARY and the C collation of the test server); the sort only re-orders ties under another PostgreSQL collation
  const byClicks = (a: { n: unknown; button: string }, b: { n: unknown; button: string }) => Number(b.n) - Number(a.n) || (a.button < b.button ? -1 : a.button > b.button ? 1 : 0);
  const label = (row: { said: unknown; offered: unknown }) => (row.offered ? String(row.offered) : row.said ? String(row.said) : null);
  // Stryker disable next-line MethodExpression: as above, the order the databases return
  return { total: Number(total.n ?? 0), buttons: rows.sort(byClicks).map((row) => ({ button: row.button, label: label(row), clicks: Number(row.n) })) };
}
