/**
 * One user's data, for the requests users have a right to make: `GET /api/users/{id}/export?bot=NAME`
 * gives every record of that user as received (GDPR art. 15), as JSON Lines, streamed page by page;
 * `DELETE /api/users/{id}?bot=NAME` erases them (art. 17; admin readers only). `GET /api/users`
 * itself is the users list (read-api.ts): the route takes every path under it.
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError, sendJson } from '../http/respond.js';
import type { EndpointContext, ReadAccess, Target } from '../http/router.js';
import { handleUsers } from './read-api.js';

/** What `DELETE /api/users/{id}` answers. */
export interface ErasureResponse {
  ok: true;
  bot: string;
  /** The first 16 hex digits of the SHA-256 of the user id (what the audit keeps). */
  userHash: string;
  /** Records erased; 0 when there were none (erasing twice is harmless). */
  records: number;
  entries: number;
}

const USERS = '/api/users/';

/** The user id and what follows it in `/api/users/{id}[/rest]`, or undefined when the path holds no id. */
function userPath(path: string): { userId: string; rest: string } | undefined {
  const [encoded, ...rest] = path.slice(USERS.length).split('/');
  let userId: string;
  try {
    userId = decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
  return userId === '' ? undefined : { userId, rest: rest.join('/') };
}

/** The `bot` the request names (a name given with --key, or a fingerprint), or a 400 sent. */
function botParam(res: ServerResponse, query: URLSearchParams, context: EndpointContext): string | undefined {
  const bot = query.get('bot');
  if (bot === null || bot.trim() === '') {
    sendError(res, 400, 'Give ?bot=NAME: the bot whose user this is (a name given with --key, or its fingerprint).', [{ path: 'bot', expected: 'a bot name or fingerprint', received: 'missing' }]);
    return undefined;
  }
  return context.keys.botFor(bot.trim());
}

/** Whether the reader may see `bot`. A bot outside their scope is answered as if it held no data. */
function sees(access: ReadAccess, bot: string): boolean {
  return access.bots == null || access.bots.has(bot);
}

/** `/api/users` and every path under it: the list, a user's export (GET), a user's erasure (DELETE). */
export async function handleUsersGet(req: IncomingMessage, res: ServerResponse, target: Target, context: EndpointContext): Promise<void> {
  if (target.path === '/api/users') return handleUsers(req, res, target, context);
  const user = userPath(target.path);
  if (user === undefined || user.rest !== 'export') {
    return sendError(res, 404, `Nothing at ${target.path.slice(0, 100)}. A user's records are at GET /api/users/{id}/export?bot=NAME.`);
  }
  const bot = botParam(res, target.query, context);
  if (bot === undefined) return;
  return exportUser(res, context, bot, user.userId, sees(target.access, bot));
}

/**
 * Streams the user's records as JSON Lines: one record (as `/api/record` gives it) per line, in
 * `seq` order. Writes each page as it is read and waits for the client to take it (backpressure),
 * so the endpoint holds one page at most. 404 when the user has no record in that bot.
 */
async function exportUser(res: ServerResponse, { store }: EndpointContext, bot: string, userId: string, visible: boolean): Promise<void> {
  const records = store.exportUser({ bot, userId });
  const first = visible ? await records.next() : { done: true as const, value: undefined };
  if (first.done) return sendError(res, 404, 'This bot holds no record of that user.');
  res.writeHead(200, {
    'Content-Type': 'application/x-ndjson; charset=utf-8',
    'Content-Disposition': 'attachment; filename="user-records.jsonl"',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  });
  let gone = false;
  res.once('close', () => {
    gone = true;
  });
  const write = async (line: string) => {
    if (!res.write(line)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
  };
  try {
    await write(`${JSON.stringify(first.value)}\n`);
    for await (const record of records) {
      if (gone) break;
      await write(`${JSON.stringify(record)}\n`);
    }
  } catch (error) {
    // Headers are sent: a failure mid-stream can only cut the response (the client sees no final newline).
    res.destroy(error as Error);
    return;
  }
  res.end();
}

/** `DELETE /api/users/{id}?bot=NAME`: erases the user (admin readers only) and says what went. */
export async function handleForgetUser(_req: IncomingMessage, res: ServerResponse, target: Target, context: EndpointContext): Promise<void> {
  const user = target.path.startsWith(USERS) ? userPath(target.path) : undefined;
  if (user === undefined || user.rest !== '') {
    return sendError(res, 404, `Nothing to erase at ${target.path.slice(0, 100)}. Erase a user with DELETE /api/users/{id}?bot=NAME.`);
  }
  if (!target.access.admin) return sendError(res, 403, 'Erasing needs an admin reader.');
  const bot = botParam(res, target.query, context);
  if (bot === undefined) return;
  if (!sees(target.access, bot)) {
    // As a bot that holds nothing answers: the bot as the request named it (never its fingerprint), nothing erased.
    const none: ErasureResponse = { ok: true, bot: (target.query.get('bot') as string).trim(), userHash: '', records: 0, entries: 0 };
    return sendJson(res, 200, none);
  }
  const erasure = await context.store.forgetUser({ bot, userId: user.userId, by: target.access.reader });
  const body: ErasureResponse = { ok: true, bot, userHash: erasure.userHash, records: erasure.records, entries: erasure.entries };
  sendJson(res, 200, body);
}
