/**
 * What the page shows, kept in the URL's hash so that a view can be bookmarked, shared, reloaded
 * and left with the back button: the view, the filter, the view's own choices, and the chosen
 * conversation or user (`#conversation=ID`, `#user=ID`, as before).
 *
 * The filter's dates are what the date fields show: `to` is the last day included. The read API
 * takes `to` as the first day left out, so `apiFilter` adds a day.
 */
import type { ActivityInterval } from '../../types.js';
import type { Params } from './api.js';

/** The views, in the order of the navigation. */
export const VIEWS = [
  { name: 'users', label: 'Users' },
  { name: 'flow', label: 'Conversation flow' },
  { name: 'messages', label: 'Messages' },
  { name: 'feedback', label: 'Feedback & AI' },
  { name: 'revenue', label: 'Revenue' },
  { name: 'conversations', label: 'Transcripts' },
] as const;

export type ViewName = (typeof VIEWS)[number]['name'];

/** What every view is narrowed to; `''` means any. Dates are `YYYY-MM-DD` (UTC), both included. */
export interface Filter {
  from: string;
  to: string;
  bot: string;
  platform: string;
  channel: string;
}

/** A conversation or a user whose transcript is open. */
export interface Selection {
  kind: 'conversation' | 'user';
  id: string;
}

/** Everything the hash holds. */
export interface PageState {
  view: ViewName;
  filter: Filter;
  /** Users view: active users per day, week or month. */
  interval: ActivityInterval;
  /** Flow view: the funnel's steps; `null` until chosen (the page proposes the most common path). */
  steps: string[] | null;
  /** Transcripts view: which list. */
  list: 'conversations' | 'users';
  /** Transcripts view: only conversations or users with a message of this intent. */
  intent: string;
  /** Transcripts view: search text and user. */
  q: string;
  who: string;
  selection?: Selection;
  /** The `seq` of a search result to show in its transcript. */
  at?: number;
}

export const EMPTY_FILTER: Filter = { from: '', to: '', bot: '', platform: '', channel: '' };

const VIEW_NAMES: readonly string[] = VIEWS.map((v) => v.name);
const INTERVALS: readonly string[] = ['day', 'week', 'month'];
const DATE = /^\d{4}-\d\d-\d\d$/;

/** Reads the state from a hash (`#view=users&bot=pizza…`); anything missing or unknown takes its default. */
export function parseHash(hash: string): PageState {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const get = (name: string) => p.get(name) ?? '';
  const date = (name: string) => (DATE.test(get(name)) ? get(name) : '');
  const conversation = p.get('conversation');
  const user = p.get('user');
  const selection: Selection | undefined = conversation !== null ? { kind: 'conversation', id: conversation } : user !== null ? { kind: 'user', id: user } : undefined;
  const view = VIEW_NAMES.includes(get('view')) ? (get('view') as ViewName) : selection ? 'conversations' : 'users';
  const steps = p.get('steps');
  const at = Number(get('at'));
  return {
    view,
    filter: { from: date('from'), to: date('to'), bot: get('bot'), platform: get('platform'), channel: get('channel') },
    interval: INTERVALS.includes(get('interval')) ? (get('interval') as ActivityInterval) : 'week',
    steps: steps === null ? null : steps.split(',').map((s) => s.trim()).filter(Boolean).slice(0, 10),
    list: get('list') === 'users' ? 'users' : 'conversations',
    intent: get('intent'),
    q: get('q'),
    who: get('who'),
    selection,
    at: Number.isSafeInteger(at) && at > 0 ? at : undefined,
  };
}

/** The hash for a state, leaving out what is at its default. */
export function toHash(state: PageState): string {
  const p = new URLSearchParams();
  p.set('view', state.view);
  for (const [name, value] of Object.entries(state.filter)) if (value) p.set(name, value);
  if (state.interval !== 'week') p.set('interval', state.interval);
  if (state.steps !== null) p.set('steps', state.steps.join(','));
  if (state.list !== 'conversations') p.set('list', state.list);
  if (state.intent) p.set('intent', state.intent);
  if (state.q) p.set('q', state.q);
  if (state.who) p.set('who', state.who);
  if (state.selection) p.set(state.selection.kind, state.selection.id);
  if (state.at !== undefined) p.set('at', String(state.at));
  return `#${p.toString()}`;
}

/** The day after a `YYYY-MM-DD` date. */
export function nextDay(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/** The filter as the read API's query parameters (`to` becomes the first day left out). */
export function apiFilter(filter: Filter): Params {
  return { from: filter.from || undefined, to: filter.to ? nextDay(filter.to) : undefined, bot: filter.bot || undefined, platform: filter.platform || undefined, channel: filter.channel || undefined };
}

/** True when something narrows the views. */
export function filtered(filter: Filter): boolean {
  return Object.values(filter).some((value) => value !== '');
}
