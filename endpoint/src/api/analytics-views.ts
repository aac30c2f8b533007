/**
 * `/api/analytics/…` and `/api/search`: the views bot teams ask for first (users, retention,
 * sessions, paths, funnels, messages, buttons, feedback, revenue), each taking the filter
 * (`bot`, `platform`, `channel`, `from`, `to`) and `?format=csv`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { activeUsers, clickedButtons, feedback, funnel, paths, retention, revenue, sessionStats, topMessages } from '../read/analytics.js';
import { MAX_SEARCH_RESULTS, search } from '../read/lists.js';
import type { ReadFilter } from '../read/filter.js';
import { sendError } from '../http/respond.js';
import type { EndpointContext, Handler, Target } from '../http/router.js';
import { sendView } from './export.js';
import { badFilter, badLimit, filterParams, limitParam } from './params.js';
import type { ActivityInterval } from '../types.js';

const INTERVALS: readonly string[] = ['day', 'week', 'month'];
/** A share (0 to 1) as the views give them: 4 decimals. */
const share = (value: number) => Math.round(value * 10_000) / 10_000;
/** Most steps a funnel takes. */
const MAX_FUNNEL_STEPS = 10;

/** A view handler: the filter is parsed (400 when it is bad) before `run` gets it. */
function view(run: (res: ServerResponse, query: URLSearchParams, filter: ReadFilter, context: EndpointContext) => Promise<void> | void): Handler {
  return async (_req: IncomingMessage, res: ServerResponse, { query, access }: Target, context: EndpointContext) => {
    const parsed = filterParams(query, context.keys, access);
    if (!parsed.ok) return badFilter(res, parsed.problems);
    await run(res, query, parsed.filter, context);
  };
}

/** `GET /api/analytics/active-users?interval=day|week|month`: active, new and returning users per bucket. */
export const handleActiveUsers = view(async (res, query, filter, { store }) => {
  const interval = query.get('interval') ?? 'day';
  if (!INTERVALS.includes(interval)) {
    return sendError(res, 400, 'interval must be day, week or month.', [{ path: 'interval', expected: 'day, week or month', received: JSON.stringify(interval.slice(0, 20)) }]);
  }
  const body = await activeUsers(store, filter, interval as ActivityInterval);
  sendView(res, query, `active-users-${interval}`, body, () => ({ columns: ['start', 'active', 'new', 'returning'], rows: body.points.map((p) => [p.start, p.active, p.new, p.returning]) }));
});

/** `GET /api/analytics/retention`: weekly cohorts and the share of each that came back in weeks 1 to 8. */
export const handleRetention = view(async (res, query, filter, { store }) => {
  const body = await retention(store, filter);
  sendView(res, query, 'retention', body, () => ({
    columns: ['week', 'users', ...Array.from({ length: 8 }, (_, i) => `week ${i + 1}`)],
    rows: body.cohorts.map((c) => [c.week, c.users, ...c.returned]),
  }));
});

/**
 * `GET /api/analytics/sessions`: sessions, their length and messages, and how many started each
 * day. CSV tables: `per-day` (the default) and `summary` (the figures).
 */
export const handleSessions = view(async (res, query, filter, { store }) => {
  const body = await sessionStats(store, filter);
  sendView(res, query, 'sessions', body, {
    'per-day': () => ({ columns: ['day', 'sessions'], rows: body.perDay.map((d) => [d.start, d.sessions]) }),
    summary: () => ({
      columns: ['figure', 'value'],
      rows: [
        ['sessions', body.sessions], ['users', body.users], ['messages per session', body.messagesPerSession],
        ['average length (s)', body.averageLengthSeconds], ['median length (s)', body.medianLengthSeconds],
      ],
    }),
  });
});

/** `GET /api/analytics/paths?limit=N`: the most common first steps of sessions (default 20). */
export const handlePaths = view(async (res, query, filter, { store }) => {
  const limit = limitParam(query, 20, 1000);
  if (limit === undefined) return badLimit(res, query, 1000);
  const body = await paths(store, filter, limit);
  sendView(res, query, 'paths', body, () => ({ columns: ['path', 'sessions', 'share'], rows: body.paths.map((p) => [p.steps.join(' > '), p.sessions, p.share]) }));
});

/** `GET /api/analytics/funnel?steps=Greet,OrderPizza,event:purchase` (or `step=` repeated): users at each step, and the drop-off. */
export const handleFunnel = view(async (res, query, filter, { store }) => {
  const steps = [...query.getAll('step'), ...(query.get('steps') ?? '').split(',')].map((step) => step.trim()).filter((step) => step !== '');
  if (steps.length === 0 || steps.length > MAX_FUNNEL_STEPS) {
    return sendError(res, 400, `Give the funnel's steps, 1 to ${MAX_FUNNEL_STEPS} intents or events: ?steps=Greet,OrderPizza,event:purchase`, [
      { path: 'steps', expected: `1 to ${MAX_FUNNEL_STEPS} comma-separated intent names or event:NAME`, received: `${steps.length} steps` },
    ]);
  }
  const body = await funnel(store, filter, steps);
  sendView(res, query, 'funnel', body, () => ({ columns: ['step', 'users', 'drop-off', 'conversion'], rows: body.steps.map((s) => [s.step, s.users, s.dropOff, s.conversion]) }));
});

/** `GET /api/analytics/messages?limit=N&unhandled=true`: what users say most (or what was marked NotHandled), grouped by normalised text. */
export const handleMessages = view(async (res, query, filter, { store }) => {
  const limit = limitParam(query, 50, 1000);
  if (limit === undefined) return badLimit(res, query, 1000);
  const unhandled = query.get('unhandled') === 'true';
  const body = await topMessages(store, filter, limit, unhandled);
  sendView(res, query, unhandled ? 'unhandled-messages' : 'top-messages', body, () => ({ columns: ['text', 'count', 'share', 'intent'], rows: body.messages.map((m) => [m.text, m.count, m.share, m.intent]) }));
});

/** `GET /api/analytics/buttons?limit=N`: the buttons users clicked, most first, with their share of all clicks. */
export const handleButtons = view(async (res, query, filter, { store }) => {
  const limit = limitParam(query, 50, 1000);
  if (limit === undefined) return badLimit(res, query, 1000);
  const body = await clickedButtons(store, filter, limit);
  sendView(res, query, 'buttons', body, () => ({
    columns: ['button', 'label', 'clicks', 'share'],
    rows: body.buttons.map((b) => [b.button, b.label, b.clicks, body.total === 0 ? 0 : share(b.clicks / body.total)]),
  }));
});

/**
 * `GET /api/analytics/feedback`: thumbs up and down per day and per intent, the latest comments,
 * and the share of AI-generated replies. CSV tables: `comments` (the default), `summary` (the
 * figures), `per-day` and `per-intent`.
 */
export const handleFeedback = view(async (res, query, filter, { store }) => {
  const body = await feedback(store, filter);
  const liked = (up: number, down: number) => (up + down === 0 ? null : share(up / (up + down)));
  sendView(res, query, 'feedback', body, {
    comments: () => ({
      columns: ['time', 'user', 'name', 'reaction', 'intent', 'comment', 'reply'],
      rows: body.comments.map((c) => [c.time, c.userId, c.userName, c.reaction, c.intent, c.comment, c.replyTo]),
    }),
    summary: () => ({
      columns: ['figure', 'value'],
      rows: [
        ['thumbs up', body.up], ['thumbs down', body.down], ['liked', liked(body.up, body.down)],
        ['replies', body.ai.replies], ['AI-generated replies', body.ai.aiGenerated], ['AI-generated share', body.ai.share],
      ],
    }),
    'per-day': () => ({ columns: ['day', 'up', 'down'], rows: body.perDay.map((d) => [d.start, d.up, d.down]) }),
    'per-intent': () => ({ columns: ['intent', 'up', 'down', 'liked'], rows: body.perIntent.map((i) => [i.intent, i.up, i.down, liked(i.up, i.down)]) }),
  });
});

/**
 * `GET /api/analytics/revenue?limit=N`: revenue by currency (`null`: the event named none), per
 * day, and the top `limit` users (default 20). CSV tables: `per-day` (the default), `by-currency`
 * and `per-user`; amounts are never added across currencies.
 */
export const handleRevenue = view(async (res, query, filter, { store, keys }) => {
  const limit = limitParam(query, 20, 1000);
  if (limit === undefined) return badLimit(res, query, 1000);
  const body = await revenue(store, filter, limit);
  const currency = (code: string | null) => code ?? 'unknown';
  sendView(res, query, 'revenue', body, {
    'per-day': () => ({ columns: ['day', 'currency', 'total', 'count'], rows: body.perDay.map((d) => [d.start, currency(d.currency), d.total, d.count]) }),
    'by-currency': () => ({ columns: ['currency', 'total', 'count'], rows: body.byCurrency.map((c) => [currency(c.currency), c.total, c.count]) }),
    'per-user': () => ({
      columns: ['user', 'name', 'bot', 'currency', 'total', 'count'],
      rows: body.perUser.map((u) => [u.userId, u.userName, keys.nameOf(u.bot) ?? u.bot, currency(u.currency), u.total, u.count]),
    }),
  });
});

/** `GET /api/search?q=TEXT&user=ID_OR_NAME&limit=N`: messages that match, newest first (default 50, at most 200). */
export const handleSearch = view(async (res, query, filter, { store }) => {
  const text = query.get('q')?.trim() || undefined;
  const user = query.get('user')?.trim() || undefined;
  if (text === undefined && user === undefined) {
    return sendError(res, 400, 'Give ?q=TEXT (words in a message), ?user=ID_OR_NAME, or both.', [{ path: 'q', expected: 'text to look for', received: 'missing' }]);
  }
  const limit = limitParam(query, 50, MAX_SEARCH_RESULTS);
  if (limit === undefined) return badLimit(res, query, MAX_SEARCH_RESULTS);
  const body = await search(store, filter, { text, user }, limit);
  sendView(res, query, 'search', body, () => ({
    columns: ['time', 'user', 'name', 'conversation', 'direction', 'text', 'intent', 'seq'],
    rows: body.results.map((e) => [e.time, e.userId, e.userName, e.conversationId, e.direction, e.text, e.intent?.name, e.seq]),
  }));
});
