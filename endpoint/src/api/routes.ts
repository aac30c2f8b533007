/** The endpoint's route table: tracking, the JSON read side, live updates, and the page at `/`. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleIntents, handleRecord, handleTimeseries } from './analytics-api.js';
import { recordsPerBot } from '../read/charts.js';
import {
  handleActiveUsers, handleButtons, handleFeedback, handleFunnel, handleMessages, handlePaths, handleRetention, handleRevenue, handleSearch, handleSessions,
} from './analytics-views.js';
import { pageRoutes } from '../page/serve.js';
import { handleConversations, handleSummary, handleTranscript } from './read-api.js';
import { sendError, sendJson } from '../http/respond.js';
import type { EndpointContext, Route, Target } from '../http/router.js';
import { handleTrack } from './track.js';
import { handleForgetUser, handleUsersGet } from './users-api.js';
import type { AccessResponse, BotsResponse } from '../types.js';
import { handleBackup } from './backup.js';

/** What `GET /api` (and `GET /` for clients that do not ask for HTML) lists. */
const INDEX = {
  ok: true,
  service: 'botbuilder-conversation-analytics local tracking endpoint',
  routes: {
    'POST /track?platform=&v=&type=&apiKey=': 'record an incoming or outgoing message or an event (as the tracking spec describes)',
    'GET /': 'in a browser: transcripts and charts, updated live (off loopback: sign in with a reader token)',
    'GET /api/users': 'users, most recently active first (?limit=N, ?intent=I, and the filter)',
    'GET /api/conversations': 'conversations, most recently active first (?limit=N, ?intent=I, and the filter)',
    'GET /api/users/ID/export?bot=NAME': 'every record of one user, as received, as JSON Lines (GDPR art. 15)',
    'GET /api/backup': 'a consistent copy of the SQLite database, taken while it runs (admin readers of every bot; PostgreSQL: pg_dump)',
    'DELETE /api/users/ID?bot=NAME': 'erase one user: their records and every figure they added (GDPR art. 17; admin readers only)',
    'GET /api/transcript?user=ID': 'one user\'s messages and events in the order they happened (or ?conversation=ID; ?bot=B, ?limit=N, ?before=CURSOR to page back)',
    'GET /api/record?seq=N': 'one stored record as received, platformJson included',
    'GET /api/summary': 'counts by type, platform, channel, intent and event; revenue per currency (and the filter)',
    'GET /api/timeseries': 'messages in and out, events, NotHandled and revenue per bucket (?bucket=auto|minute|hour|day|week|month, ?limit=N, and the filter)',
    'GET /api/intents': 'messages per intent, most used first; incoming and NotHandled totals (?limit=N, and the filter)',
    'GET /api/bots': 'the bots that sent records, with the names given to their keys',
    'GET /api/analytics/active-users': 'active, new and returning users per day, week or month (?interval=day|week|month)',
    'GET /api/analytics/retention': 'weekly cohorts of new users and the share back in weeks 1 to 8',
    'GET /api/analytics/sessions': 'sessions (a user in a conversation, no gap over 30 minutes): count, length, messages each, per day',
    'GET /api/analytics/paths': 'the most common first steps of sessions: intents and events (?limit=N)',
    'GET /api/analytics/funnel?steps=A,B,event:C': 'users at each step, taken in order, with the drop-off',
    'GET /api/analytics/messages': 'what users say most, grouped by normalised text (?unhandled=true: what was NotHandled)',
    'GET /api/analytics/buttons': 'the buttons users clicked, most first',
    'GET /api/analytics/feedback': 'thumbs up and down per day and per intent, comments, the share of AI-generated replies',
    'GET /api/analytics/revenue': 'revenue by currency, per day, per user',
    'GET /api/search?q=TEXT&user=ID': 'messages that match, newest first (by when they happened)',
    'GET /api/events': 'server-sent events: a "records" event whenever records arrive',
    'GET /api/access': 'who is reading (the reader\'s name), the bots they may see, and whether they may erase',
    'GET /healthz': 'for load balancers: 200 when the database answers, else 503',
    'GET /metrics': 'for Prometheus: the endpoint\'s metrics in its text format (a reader of every bot, or --metrics-token)',
  },
  filter: '?bot=NAME|FINGERPRINT &platform=P &channel=C &from=2026-11-01 &to=2026-12-01 (to is exclusive; dates, date-times or epoch ms)',
  export: '?format=csv on every view, the lists and transcripts; ?table=NAME picks one table of a view that has several (sessions, intents, feedback, revenue)',
};

function handleIndex(_req: IncomingMessage, res: ServerResponse): void {
  sendJson(res, 200, INDEX);
}

/**
 * `GET /healthz`: 200 `{ ok: true, database }` when the database answers and can write; 503 with
 * the reason when it does not answer, or when records could not be stored for want of a database
 * that can write (a full disk) and none has been since.
 */
async function handleHealth(_req: IncomingMessage, res: ServerResponse, _target: Target, { store }: EndpointContext): Promise<void> {
  let health: Awaited<ReturnType<typeof store.health>>;
  try {
    health = await store.health();
  } catch {
    return sendError(res, 503, `The database (${store.kind}) does not answer.`, undefined, { 'Retry-After': 5 });
  }
  if (health.ok) sendJson(res, 200, { ok: true, database: store.kind });
  else sendError(res, 503, health.reason, undefined, { 'Retry-After': 5 });
}

/** `GET /api/bots`: each bot that sent records (its key's fingerprint) that the reader may see, with the name given to its key, and its record count. */
async function handleBots(_req: IncomingMessage, res: ServerResponse, { access }: Target, { store, keys }: EndpointContext): Promise<void> {
  const bots = (await recordsPerBot(store)).filter(({ bot }) => access.bots === null || access.bots.has(bot));
  const body: BotsResponse = { bots: bots.map(({ bot, records }) => ({ bot, name: keys.nameOf(bot) ?? null, records })) };
  sendJson(res, 200, body);
}

function handleEvents(req: IncomingMessage, res: ServerResponse, { access }: Target, { live }: EndpointContext): void {
  live.open(req, res, access.bots);
}

/** `GET /metrics`: Prometheus' text format, for a reader of every bot or the metrics token (open on loopback with no reader). */
async function handleMetrics(req: IncomingMessage, res: ServerResponse, _target: Target, { metrics, keys }: EndpointContext): Promise<void> {
  // Stryker disable next-line ConditionalExpression: every endpoint gives its routes metrics; the test only narrows the type
  if (metrics === undefined) return sendError(res, 404, 'This endpoint keeps no metrics.');
  await metrics.answer(req, res, keys);
}

/** `GET /api/access`: who is reading (null when reads are open), the bots they may see (null: every bot), and whether they may erase. */
function handleAccess(_req: IncomingMessage, res: ServerResponse, { access }: Target, { keys }: EndpointContext): void {
  const bots = access.bots === null ? null : [...access.bots].map((bot) => ({ bot, name: keys.nameOf(bot) ?? null }));
  const body: AccessResponse = { reader: access.reader, bots, admin: access.admin };
  sendJson(res, 200, body);
}

/** Builds the route table: path → route. */
export function createRoutes(): Map<string, Route> {
  return new Map<string, Route>([
    ...pageRoutes(INDEX),
    ['/api', { methods: { GET: handleIndex } }],
    ['/track', { methods: { POST: handleTrack } }],
    ['/api/users', { methods: { GET: handleUsersGet, DELETE: handleForgetUser }, read: true, prefix: true }],
    ['/api/backup', { methods: { GET: handleBackup }, admin: true }],
    ['/api/conversations', { methods: { GET: handleConversations }, read: true }],
    ['/api/transcript', { methods: { GET: handleTranscript }, read: true }],
    ['/api/record', { methods: { GET: handleRecord }, read: true }],
    ['/api/summary', { methods: { GET: handleSummary }, read: true }],
    ['/api/timeseries', { methods: { GET: handleTimeseries }, read: true }],
    ['/api/intents', { methods: { GET: handleIntents }, read: true }],
    ['/api/bots', { methods: { GET: handleBots }, read: true }],
    ['/api/analytics/active-users', { methods: { GET: handleActiveUsers }, read: true }],
    ['/api/analytics/retention', { methods: { GET: handleRetention }, read: true }],
    ['/api/analytics/sessions', { methods: { GET: handleSessions }, read: true }],
    ['/api/analytics/paths', { methods: { GET: handlePaths }, read: true }],
    ['/api/analytics/funnel', { methods: { GET: handleFunnel }, read: true }],
    ['/api/analytics/messages', { methods: { GET: handleMessages }, read: true }],
    ['/api/analytics/buttons', { methods: { GET: handleButtons }, read: true }],
    ['/api/analytics/feedback', { methods: { GET: handleFeedback }, read: true }],
    ['/api/analytics/revenue', { methods: { GET: handleRevenue }, read: true }],
    ['/api/search', { methods: { GET: handleSearch }, read: true }],
    ['/api/events', { methods: { GET: handleEvents }, read: true }],
    ['/api/access', { methods: { GET: handleAccess }, read: true }],
    ['/healthz', { methods: { GET: handleHealth }, anyHost: true }],
    ['/metrics', { methods: { GET: handleMetrics } }],
  ]);
}
