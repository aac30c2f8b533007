/** Writing JSON responses. Every response of the endpoint has a JSON body. */
import type { ServerResponse } from 'node:http';
import type { ValidationIssue } from '../../protocol/index.js';
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

/** Sends `{ ok: false, error, problems? }` with `status`. */
export function sendError(res: ServerResponse, status: number, error: string, problems?: ValidationIssue[], headers?: Headers): void {
  const body: ErrorBody = problems ? { ok: false, error, problems } : { ok: false, error };
  sendJson(res, status, body, headers);
}
