/**
 * The read side (the spec shows none): JSON lists of users and conversations, transcripts and
 * a summary, all answered from the in-memory indexes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError, sendJson } from './respond.js';
import type { EndpointContext, Target } from './router.js';
import type { ConversationSummary, TrackingSummary, TranscriptEntry, UserSummary } from './types.js';

/** `GET /api/users`. */
export interface UsersResponse {
  /** Users in total (the list may be shortened by `limit`). */
  total: number;
  /** Most recently active first. */
  users: UserSummary[];
}

/** `GET /api/conversations`. */
export interface ConversationsResponse {
  total: number;
  /** Most recently active first. */
  conversations: ConversationSummary[];
}

/** `GET /api/transcript?user=ID` or `?conversation=ID`. */
export interface TranscriptResponse {
  /** The user asked for, or `null` when asking by conversation. */
  userId: string | null;
  /** The conversation asked for, or `null` when asking by user. */
  conversationId: string | null;
  /** In the order they were received. */
  entries: TranscriptEntry[];
}

const DEFAULT_LIMIT = 1000;

/** `limit` query value: a positive whole number, default 1000; `undefined` when it is not one. */
function limitOf(query: URLSearchParams): number | undefined {
  const raw = query.get('limit');
  if (raw === null) return DEFAULT_LIMIT;
  const value = Number(raw);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

function badLimit(res: ServerResponse): void {
  sendError(res, 400, 'limit must be a whole number greater than 0.', [{ path: 'limit', expected: 'a whole number > 0', received: 'something else' }]);
}

/** `GET /api/users?limit=N`: users with last activity, message and event counts, platform. */
export function handleUsers(_req: IncomingMessage, res: ServerResponse, { query }: Target, { store }: EndpointContext): void {
  const limit = limitOf(query);
  if (limit === undefined) return badLimit(res);
  const users = store.read.users();
  const body: UsersResponse = { total: users.length, users: users.slice(0, limit) };
  sendJson(res, 200, body);
}

/** `GET /api/conversations?limit=N`: conversations with users, last activity, counts, platform. */
export function handleConversations(_req: IncomingMessage, res: ServerResponse, { query }: Target, { store }: EndpointContext): void {
  const limit = limitOf(query);
  if (limit === undefined) return badLimit(res);
  const conversations = store.read.conversations();
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
