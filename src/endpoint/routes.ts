/** The endpoint's route table. A browser page, when it comes, is one more entry (at `/`). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleConversations, handleSummary, handleTranscript, handleUsers } from './read-api.js';
import { sendJson } from './respond.js';
import type { Route } from './router.js';
import { handleTrack } from './track.js';

/** What `GET /` lists. */
const INDEX = {
  ok: true,
  service: 'botbuilder-conversation-analytics local tracking endpoint',
  routes: {
    'POST /track?platform=&v=&type=&apiKey=': 'record an incoming or outgoing message or an event (as the tracking spec describes)',
    'GET /api/users': 'users, most recently active first (?limit=N)',
    'GET /api/conversations': 'conversations, most recently active first (?limit=N)',
    'GET /api/transcript?user=ID': 'one user\'s messages and events in order (or ?conversation=ID)',
    'GET /api/summary': 'counts by type, platform, intent and event type; revenue totals',
  },
};

function handleIndex(_req: IncomingMessage, res: ServerResponse): void {
  sendJson(res, 200, INDEX);
}

/** Builds the route table: path → route. */
export function createRoutes(): Map<string, Route> {
  return new Map<string, Route>([
    ['/', { methods: { GET: handleIndex } }],
    ['/track', { methods: { POST: handleTrack } }],
    ['/api/users', { methods: { GET: handleUsers }, read: true }],
    ['/api/conversations', { methods: { GET: handleConversations }, read: true }],
    ['/api/transcript', { methods: { GET: handleTranscript }, read: true }],
    ['/api/summary', { methods: { GET: handleSummary }, read: true }],
  ]);
}
