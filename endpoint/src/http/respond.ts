/** Writing JSON responses. Every response of the endpoint has a JSON body. */
import type { ServerResponse } from 'node:http';
import type { ValidationIssue } from 'botbuilder-conversation-analytics/protocol';
import type { CatchingUpError } from '../store/store.js';
import type { ErrorBody } from '../types.js';

/** Extra response headers. */
export type Headers = Record<string, string | number>;

/** Sends `body` as JSON with `status`. Does nothing when the response was already sent or the socket is gone. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Headers): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Why each refused request was refused (the error it was sent), for the endpoint's log. */
const reasons = new WeakMap<ServerResponse, string>();

/** The error a refused response was sent with, if any (never holds a key: error messages never quote one). */
export function refusalReason(res: ServerResponse): string | undefined {
  return reasons.get(res);
}

/** Why each refused request was refused, as a short code from a fixed list (for the metrics): set where the refusal is made. */
const codes = new WeakMap<ServerResponse, string>();
/** The bot (key fingerprint) a request was sent for, once its key was checked. */
const bots = new WeakMap<ServerResponse, string>();

/** Says why `res` is refused, as a short code (`unknown_key`, `invalid_body`…), before it is sent; without one the status says it. */
export function setRefusalCode(res: ServerResponse, code: string): void {
  codes.set(res, code);
}

/** The code set with `setRefusalCode`, if any. */
export function refusalCode(res: ServerResponse): string | undefined {
  return codes.get(res);
}

/** Says which bot (key fingerprint) `res` answers for. */
export function setResponseBot(res: ServerResponse, bot: string): void {
  bots.set(res, bot);
}

/** The bot set with `setResponseBot`, if any. */
export function responseBot(res: ServerResponse): string | undefined {
  return bots.get(res);
}

/** Sends `{ ok: false, error, problems? }` with `status`. */
export function sendError(res: ServerResponse, status: number, error: string, problems?: ValidationIssue[], headers?: Headers): void {
  const body: ErrorBody = problems ? { ok: false, error, problems } : { ok: false, error };
  const detail = problems?.[0] ? ` (${problems[0].path}: expected ${problems[0].expected})` : '';
  reasons.set(res, `${error}${detail}`);
  sendJson(res, status, body, headers);
}

/**
 * Answers a request that waited for the views past its bound: 503, `Retry-After`, and
 * `catchingUp` (how far behind they are). A write answered so was not stored.
 */
export function sendCatchingUp(res: ServerResponse, error: CatchingUpError): void {
  const body: ErrorBody = { ok: false, error: error.message, catchingUp: { ...error.lag } };
  reasons.set(res, error.message);
  codes.set(res, 'catching_up');
  sendJson(res, 503, body, { 'Retry-After': error.retryAfter });
}
