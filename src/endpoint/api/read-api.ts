/**
 * The read side (the spec shows none): JSON lists of users and conversations, transcripts and
 * a summary, all answered from the in-memory indexes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ActivityFilter } from '../read/read-model.js';
import { sendError, sendJson } from '../http/respond.js';
import type { EndpointContext, Target } from '../http/router.js';
import type { ConversationsResponse, TrackingSummary, TranscriptEntry, TranscriptResponse, UsersResponse } from '../types.js';

const DEFAULT_LIMIT = 1000;

/** `limit` query value: a positive whole number, default 1000; `undefined` when it is not one. */
function limitOf(query: URLSearchParams): number | undefined {
  return limitParam(query, DEFAULT_LIMIT);
}

/** `limit` query value: a whole number from 1 to `max`, `fallback` when absent; `undefined` when it is not one. */
export function limitParam(query: URLSearchParams, fallback: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = query.get('limit');
  if (raw === null) return fallback;
  const value = Number(raw);
  return Number.isSafeInteger(value) && value > 0 && value <= max ? value : undefined;
}

/** Answers 400 for a `limit` that is not a whole number from 1 to `max`. */
export function badLimit(res: ServerResponse, max?: number): void {
  const range = max === undefined ? 'greater than 0' : `from 1 to ${max}`;
  sendError(res, 400, `limit must be a whole number ${range}.`, [{ path: 'limit', expected: `a whole number ${range}`, received: 'something else' }]);
}

/** `?platform=` and `?intent=`, when given and not empty. */
function filterOf(query: URLSearchParams): ActivityFilter {
  const filter: ActivityFilter = {};
  const platform = query.get('platform');
  const intent = query.get('intent');
  if (platform) filter.platform = platform;
  if (intent) filter.intent = intent;
  return filter;
}

/**
 * `GET /api/users?limit=N&platform=P&intent=I`: users with last activity, message and event
 * counts, platform and channel; only those seen on platform `P` (`(none)`: the scripted form)
 * and with a message of intent `I`, when given.
 */
export function handleUsers(_req: IncomingMessage, res: ServerResponse, { query }: Target, { store }: EndpointContext): void {
  const limit = limitOf(query);
  if (limit === undefined) return badLimit(res);
  const users = store.read.users(filterOf(query));
  const body: UsersResponse = { total: users.length, users: users.slice(0, limit) };
  sendJson(res, 200, body);
}

/** `GET /api/conversations?limit=N&platform=P&intent=I`: conversations with users, last activity, counts, platform and channel; filtered as `/api/users`. */
export function handleConversations(_req: IncomingMessage, res: ServerResponse, { query }: Target, { store }: EndpointContext): void {
  const limit = limitOf(query);
  if (limit === undefined) return badLimit(res);
  const conversations = store.read.conversations(filterOf(query));
  const body: ConversationsResponse = { total: conversations.length, conversations: conversations.slice(0, limit) };
  sendJson(res, 200, body);
}

/** `GET /api/transcript?user=ID` (or `?conversation=ID`): entries in order; 404 when nothing was recorded for it. */
export function handleTranscript(_req: IncomingMessage, res: ServerResponse, { query }: Target, { store }: EndpointContext): void {
  const userId = query.get('user');
  const conversationId = query.get('conversation');
  if ((userId === null) === (conversationId === null)) {
    return sendError(res, 400, 'Give exactly one of ?user=ID or ?conversation=ID (the ids are listed by /api/users and /api/conversations).', [
      { path: 'user', expected: 'a user id, or conversation instead', received: userId === null ? 'missing' : 'given with conversation' },
    ]);
  }
  const entries = userId !== null ? store.read.userTranscript(userId) : store.read.conversationTranscript(conversationId as string);
  if (!entries) {
    return sendError(res, 404, userId !== null ? 'No records for this user; /api/users lists the users seen.' : 'No records for this conversation; /api/conversations lists them.');
  }
  const body: TranscriptResponse = { userId, conversationId, entries: entries as TranscriptEntry[] };
  sendJson(res, 200, body);
}

/** `GET /api/summary`: counts by type, platform, intent and event type; revenue totals. */
export function handleSummary(_req: IncomingMessage, res: ServerResponse, _target: Target, { store }: EndpointContext): void {
  const body: TrackingSummary = store.read.summary();
  sendJson(res, 200, body);
}
