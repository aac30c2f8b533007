/** The endpoint's route table: tracking, the JSON read side, live updates, and the page at `/`. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleIntents, handleRecord, handleTimeseries } from './analytics-api.js';
import { pageRoutes } from '../page/serve.js';
import { handleConversations, handleSummary, handleTranscript, handleUsers } from './read-api.js';
import { sendJson } from '../http/respond.js';
import type { EndpointContext, Route, Target } from '../http/router.js';
import { handleTrack } from './track.js';

/** What `GET /api` (and `GET /` for clients that do not ask for HTML) lists. */
const INDEX = {
  ok: true,
  service: 'botbuilder-conversation-analytics local tracking endpoint',
  routes: {
    'POST /track?platform=&v=&type=&apiKey=': 'record an incoming or outgoing message or an event (as the tracking spec describes)',
    'GET /': 'in a browser: transcripts and charts, updated live (off loopback: /?key=KEY)',
    'GET /api/users': 'users, most recently active first (?limit=N, ?platform=P, ?intent=I)',
    'GET /api/conversations': 'conversations, most recently active first (?limit=N, ?platform=P, ?intent=I)',
    'GET /api/transcript?user=ID': 'one user\'s messages and events in order (or ?conversation=ID)',
    'GET /api/record?seq=N': 'one stored record as received, platformJson included',
    'GET /api/summary': 'counts by type, platform, intent and event type; revenue totals',
    'GET /api/timeseries': 'messages in and out, events, NotHandled and revenue per bucket (?bucket=auto|minute|hour|day, ?limit=N)',
    'GET /api/intents': 'messages per intent, most used first; incoming and NotHandled totals (?limit=N)',
    'GET /api/events': 'server-sent events: a "records" event whenever records arrive',
  },
};

function handleIndex(_req: IncomingMessage, res: ServerResponse): void {
  sendJson(res, 200, INDEX);
}

function handleEvents(req: IncomingMessage, res: ServerResponse, _target: Target, { live }: EndpointContext): void {
  live.open(req, res);
}

/** Builds the route table: path → route. */
export function createRoutes(): Map<string, Route> {
  return new Map<string, Route>([
    ...pageRoutes(INDEX),
    ['/api', { methods: { GET: handleIndex } }],
    ['/track', { methods: { POST: handleTrack } }],
    ['/api/users', { methods: { GET: handleUsers }, read: true }],
    ['/api/conversations', { methods: { GET: handleConversations }, read: true }],
    ['/api/transcript', { methods: { GET: handleTranscript }, read: true }],
    ['/api/record', { methods: { GET: handleRecord }, read: true }],
    ['/api/summary', { methods: { GET: handleSummary }, read: true }],
    ['/api/timeseries', { methods: { GET: handleTimeseries }, read: true }],
    ['/api/intents', { methods: { GET: handleIntents }, read: true }],
    ['/api/events', { methods: { GET: handleEvents }, read: true }],
  ]);
}
