/**
 * The read side (the spec shows none): JSON lists of users and conversations, transcripts and a
 * summary, all answered by queries on the store, narrowed by the filter every view takes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listConversations, listUsers, readTranscript } from '../read/lists.js';
import { summarise } from '../read/charts.js';
import { sendError } from '../http/respond.js';
import { sendView } from './export.js';
import type { EndpointContext, Target } from '../http/router.js';
import { badFilter, badLimit, filterParams, limitParam, scopeOf } from './params.js';
import { botsOf } from '../read/filter.js';
import type { TrackingSummary, TranscriptResponse } from '../types.js';

const DEFAULT_LIMIT = 1000;
/** Most entries one transcript answer holds (the latest ones). */
const MAX_TRANSCRIPT = 50_000;

/**
 * `GET /api/users?limit=N&platform=P&intent=I&channel=C&bot=B&from=T&to=T`: users with name,
 * last activity, message and event counts, platform and channel, most recently active first;
 * only those active on platform `P` (`(none)`: the scripted form), on channel `C`, for bot `B`,
 * between `from` and `to`, and with a message of intent `I`, when given.
 */
export async function handleUsers(_req: IncomingMessage, res: ServerResponse, { query, access }: Target, { store, keys }: EndpointContext): Promise<void> {
  const limit = limitParam(query, DEFAULT_LIMIT);
  if (limit === undefined) return badLimit(res, query);
  const parsed = filterParams(query, keys, access);
  if (!parsed.ok) return badFilter(res, parsed.problems);
  const body = await listUsers(store, parsed.filter, limit);
  // Stryker disable next-line ConditionalExpression: listUsers gives every user the bot of its row (never undefined); the check is for the type
  for (const user of body.users) if (user.bot !== undefined) user.botName = keys.nameOf(user.bot);
  sendView(res, query, 'users', body, () => ({
    columns: ['user', 'name', 'bot', 'platform', 'channel', 'first activity', 'last activity', 'messages', 'events', 'conversations'],
    rows: body.users.map((u) => [u.userId, u.name, u.botName ?? u.bot, u.platform, u.channel, u.firstActivity, u.lastActivity, u.messages, u.events, u.conversations]),
  }));
}

/** `GET /api/conversations?…`: conversations with users, last activity, counts, platform and channel; filtered as `/api/users`. */
export async function handleConversations(_req: IncomingMessage, res: ServerResponse, { query, access }: Target, { store, keys }: EndpointContext): Promise<void> {
  const limit = limitParam(query, DEFAULT_LIMIT);
  if (limit === undefined) return badLimit(res, query);
  const parsed = filterParams(query, keys, access);
  if (!parsed.ok) return badFilter(res, parsed.problems);
  const body = await listConversations(store, parsed.filter, limit);
  // Stryker disable next-line ConditionalExpression: listConversations gives every conversation the bot of its row (never undefined); the check is for the type
  for (const conversation of body.conversations) if (conversation.bot !== undefined) conversation.botName = keys.nameOf(conversation.bot);
  sendView(res, query, 'conversations', body, () => ({
    columns: ['conversation', 'users', 'bot', 'platform', 'channel', 'first activity', 'last activity', 'messages', 'events'],
    rows: body.conversations.map((c) => [c.conversationId, c.userIds.join(' '), c.botName ?? c.bot, c.platform, c.channel, c.firstActivity, c.lastActivity, c.messages, c.events]),
  }));
}

/**
 * `GET /api/transcript?user=ID` (or `?conversation=ID`; `&bot=B` for one bot's): entries in the
 * order they happened (time, then arrival), the latest `limit` (default 500, at most 50000) when
 * there are more, or the latest before the entry `before=SEQ` or `before=SEQ:IDX` (to page back:
 * the answer's `before` is the next cursor); `total` counts them all. 404 when nothing was
 * recorded for it.
 */
export async function handleTranscript(_req: IncomingMessage, res: ServerResponse, { query, access }: Target, { store, keys }: EndpointContext): Promise<void> {
  const userId = query.get('user');
  const conversationId = query.get('conversation');
  if ((userId === null) === (conversationId === null)) {
    return sendError(res, 400, 'Give exactly one of ?user=ID or ?conversation=ID (the ids are listed by /api/users and /api/conversations).', [
      { path: 'user', expected: 'a user id, or conversation instead', received: userId === null ? 'missing' : 'given with conversation' },
    ]);
  }
  const limit = limitParam(query, 500, MAX_TRANSCRIPT);
  if (limit === undefined) return badLimit(res, query, MAX_TRANSCRIPT);
  const beforeText = query.get('before');
  const cursor = beforeText === null ? undefined : /^(\d{1,15})(?::(\d{1,6}))?$/.exec(beforeText);
  if (cursor === null || (cursor !== undefined && Number(cursor[1]) < 1)) {
    return sendError(res, 400, 'before must be the seq of an entry (a whole number above 0, or SEQ:IDX as a transcript\'s `before` gives it), to page back from it.', [
      { path: 'before', expected: 'a whole number > 0, or SEQ:IDX', received: JSON.stringify(beforeText!.slice(0, 20)) },
    ]);
  }
  const before = cursor === undefined ? undefined : { seq: Number(cursor[1]), idx: cursor[2] === undefined ? undefined : Number(cursor[2]) };
  const bot = query.get('bot');
  const bots = botsOf({ bot: bot ? keys.botFor(bot) : undefined, bots: scopeOf(access) });
  const transcript = await readTranscript(store, userId !== null ? { userId } : { conversationId: conversationId as string }, bots, limit, before);
  if (!transcript) {
    return sendError(res, 404, userId !== null ? 'No records for this user; /api/users lists the users seen.' : 'No records for this conversation; /api/conversations lists them.');
  }
  const body: TranscriptResponse = { userId, conversationId, total: transcript.total, entries: transcript.entries, before: transcript.before };
  // Stryker disable next-line StringLiteral: exactly one of user and conversation is given (checked above), so the last fallback is never used
  sendView(res, query, `transcript-${(userId ?? conversationId ?? '').replace(/[^\w.-]+/g, '_').slice(0, 60)}`, body, () => ({
    columns: ['time', 'direction', 'user', 'name', 'conversation', 'text', 'intent', 'buttons', 'clicked', 'images', 'event', 'amount', 'currency', 'platform', 'channel', 'seq'],
    rows: body.entries.map((e) => [
      e.time, e.direction, e.userId, e.userName, e.conversationId, e.text, e.intent?.name, e.buttons?.map((b) => b.label).join(' | '), e.clickedButton,
      e.images?.join(' '), e.event?.name, e.event?.amount, e.event?.currency, e.platform, e.channel, e.seq,
    ]),
  }));
}

/**
 * The summary with revenue per currency only: amounts in different currencies are never added, so
 * `total` is `null` when there are several.
 */
function perCurrency(summary: TrackingSummary): TrackingSummary {
  if (Object.keys(summary.revenue.byCurrency).length <= 1) return summary;
  return { ...summary, revenue: { ...summary.revenue, total: null } };
}

/**
 * `GET /api/summary?…`: counts by type, platform, channel, intent, event type and event name;
 * revenue per currency; narrowed by the filter. As CSV, every figure the JSON holds, one a line:
 * `figure,name,value` (`by intent,Greet,13`; `revenue,EUR,70`).
 */
export async function handleSummary(_req: IncomingMessage, res: ServerResponse, { query, access }: Target, { store, keys }: EndpointContext): Promise<void> {
  const parsed = filterParams(query, keys, access);
  if (!parsed.ok) return badFilter(res, parsed.problems);
  const body: TrackingSummary = perCurrency(await summarise(store, parsed.filter));
  const each = (figure: string, counts: Record<string, number>) => Object.entries(counts).map(([name, n]) => [figure, name, n]);
  sendView(res, query, 'summary', body, () => ({
    columns: ['figure', 'name', 'value'],
    rows: [
      ['records', '', body.records], ['messages', '', body.messages], ['events', '', body.events], ['users', '', body.users], ['conversations', '', body.conversations],
      ['first', '', body.firstAt], ['last', '', body.lastAt],
      ...each('by type', body.byType), ...each('by platform', body.byPlatform), ...each('by channel', body.byChannel), ...each('by intent', body.byIntent),
      ...each('by event type', body.byEventType), ...each('by event name', body.byEventName),
      ['revenue events', '', body.revenue.count], ...each('revenue', body.revenue.byCurrency),
    ],
  }));
}
