/**
 * `POST /track`: checks the key, the query, the `Idempotency-Key` header, the Content-Type, the
 * size and the shape of the body, in that order, then stores the record and answers
 * `{ ok: true, id }` once it is written: `503` means it was not stored, `504` that the database
 * could not tell whether it was. A record sent with an `Idempotency-Key` its bot's records already
 * hold is answered as the first was (`200`, that record's id, and `Idempotent-Replayed: true`)
 * and not stored again: a client that retries a 504 or a lost connection with the same key stores
 * its record once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_IDEMPOTENCY_KEY, check, genericSchema, isIdempotencyKey, validate, type ValidationIssue } from 'botbuilder-conversation-analytics/protocol';
import { readBody } from '../http/body.js';
import { sendCatchingUp, sendError, sendJson, setRefusalCode, setResponseBot } from '../http/respond.js';
import type { EndpointContext, Target } from '../http/router.js';
import { parseBody } from '../http/safe-json.js';
import { checkTrackQuery, type TrackTarget } from './track-query.js';
import { CatchingUpError, CommitOutcomeUnknownError } from '../store/store.js';
import { maskRecordBody } from '../store/mask.js';
import { entriesAhead } from '../store/entries.js';
import { stripAccessTokens } from '../store/tokens.js';
import type { TrackAccepted } from '../types.js';

/** `application/json`, with or without parameters such as `charset`. */
function isJson(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const semi = contentType.indexOf(';');
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === 'application/json';
}

/**
 * The request's `Idempotency-Key` header: `undefined` when it has none, else the key, or the
 * problem when it is not 1 to 200 printable ASCII characters (the key itself is never echoed).
 */
export function idempotencyKeyOf(req: IncomingMessage): { key: string | undefined } | { problem: ValidationIssue } {
  // A header Node does not know is one string, repeated ones joined with ', ' (http.IncomingMessage.headers).
  const key = req.headers['idempotency-key'] as string | undefined;
  // Stryker disable next-line ConditionalExpression: isIdempotencyKey(undefined) tests the text "undefined", which passes, so without this test a request without the header is let through the same
  if (key === undefined || isIdempotencyKey(key)) return { key };
  const received = key.length === 0 ? 'an empty value' : key.length > MAX_IDEMPOTENCY_KEY ? `${key.length} characters` : 'a character outside printable ASCII';
  return { problem: { path: 'Idempotency-Key (header)', expected: `1 to ${MAX_IDEMPOTENCY_KEY} printable ASCII characters (such as a UUID), or no such header`, received } };
}

/** Answers before reading the body; a large or unsized body is not drained, the connection is closed instead. */
function refuse(req: IncomingMessage, res: ServerResponse, context: EndpointContext, status: number, error: string, problems?: ValidationIssue[]): void {
  const length = Number(req.headers['content-length'] ?? 0);
  const drainable = req.headers['transfer-encoding'] === undefined && length <= context.options.maxBodyBytes;
  sendError(res, status, error, problems, drainable ? undefined : { Connection: 'close' });
}

function describeTarget(target: TrackTarget): string {
  if (target.type === 'generic') return 'the scripted form (type=generic, body {text})';
  return `an ${target.type} record on ${target.platform}`;
}

function bodyProblems(target: TrackTarget, body: unknown, context: EndpointContext): ValidationIssue[] {
  // Stryker disable next-line ConditionalExpression: checkTrackQuery lets a request omit the platform only in the scripted form, so kind is null only when type is generic (the test narrows the type)
  if (target.type === 'generic' || target.kind === null) return check(genericSchema, body);
  return validate(target.kind, target.type, body, { allowReferralEvent: context.options.allowReferralEvent });
}

/** JSON text on one line: in valid JSON, line breaks can only be whitespace between tokens. */
function oneLine(text: string): string {
  // Stryker disable next-line ConditionalExpression,BooleanLiteral,Regex: this test only skips a replace that would find nothing; any text gives the same line either way
  if (!/[\r\n]/.test(text)) return text.trim();
  return text.replace(/[\r\n]+/g, ' ').trim();
}

/** Handles `POST /track`. Never rejects for bad input: every problem is a 4xx with a JSON body. */
export async function handleTrack(req: IncomingMessage, res: ServerResponse, { query }: Target, context: EndpointContext): Promise<void> {
  const key = context.keys.checkTrackingKey(query.get('apiKey'));
  if (!key.ok) {
    setRefusalCode(res, key.problems[0]?.received === 'an unknown key' ? 'unknown_key' : 'invalid_key');
    return refuse(req, res, context, 401, key.error, key.problems);
  }
  setResponseBot(res, key.bot);
  const checked = checkTrackQuery(query, context.options.platformNames, { strictVersions: context.options.strictVersions });
  if (!checked.ok) {
    setRefusalCode(res, 'invalid_query');
    return refuse(req, res, context, 400, 'The query string does not make a valid tracking request.', checked.problems);
  }
  const idempotency = idempotencyKeyOf(req);
  if ('problem' in idempotency) {
    setRefusalCode(res, 'invalid_idempotency_key');
    return refuse(req, res, context, 400, 'The Idempotency-Key header is not valid.', [idempotency.problem]);
  }
  if (!isJson(req.headers['content-type'])) {
    return refuse(req, res, context, 415, 'Content-Type must be application/json (a charset parameter is fine).');
  }
  const body = await readBody(req, context.options.maxBodyBytes);
  if (!body.ok) {
    // Stryker disable next-line ConditionalExpression: a body cut short means the client reset the connection (nothing can reach it) or half-closed it, which Node's parser answers itself with 400 first; a 413 here is never seen
    if (body.reason === 'too-large') {
      sendError(res, 413, `The body is larger than ${context.options.maxBodyBytes} bytes, the limit of this endpoint.`, undefined, { Connection: 'close' });
    }
    return;
  }
  const parsed = parseBody(body.text, context.options.maxBodyDepth);
  if (!parsed.ok) {
    setRefusalCode(res, 'invalid_json');
    return sendError(res, 400, parsed.error);
  }
  const { target } = checked;
  const problems = bodyProblems(target, parsed.value, context);
  if (problems.length > 0) {
    setRefusalCode(res, 'invalid_body');
    return sendError(res, 400, `The body does not match the spec for ${describeTarget(target)}; see problems.`, problems);
  }
  const stripped = stripAccessTokens(parsed.value);
  // Card numbers, secret-named fields and (when asked) emails and phone numbers never reach the database.
  const masked = maskRecordBody(parsed.value, context.options.masking);
  let id: number;
  let replayed = false;
  try {
    const record = await context.store.append(
      { platform: target.platform, platformKind: target.kind, v: target.v, type: target.type, bot: key.bot, body: masked.value },
      parsed.scrubbed || stripped || masked.changed ? undefined : oneLine(body.text),
      idempotency.key,
    );
    id = record.seq;
    if (record.duplicate) {
      // Stored before, with this key: answered as then, and nothing counted twice.
      replayed = true;
    } else {
      if (masked.changed) context.requests.masked();
      if (target.clientVersion) context.requests.clientVersion(target.v!);
      const ahead = entriesAhead(record);
      if (ahead > 0) context.requests.placedAtArrival(ahead);
    }
  } catch (error) {
    if (error instanceof CommitOutcomeUnknownError) {
      context.options.log(`tracking endpoint: a record may or may not be stored: ${error.message}`);
      return sendError(res, 504, 'The database did not confirm whether the record was stored (the connection to it was lost during the commit and it did not answer again in time): it may have been. Sending it again with the same Idempotency-Key stores it once; without one, it may store it twice.');
    }
    if (error instanceof CatchingUpError) {
      // It waited for room past maxWriteWaitMs and was never committed: not stored, and the client may send it again.
      context.requests.waitedPast('write');
      return sendCatchingUp(res, error);
    }
    context.options.log(`tracking endpoint: could not write the data file: ${(error as Error).message}`);
    setRefusalCode(res, 'database_unavailable');
    return sendError(res, 503, 'The record could not be saved (the data file could not be written); it was not stored. Try again later.', undefined, { 'Retry-After': 1 });
  }
  const accepted: TrackAccepted = { ok: true, id };
  sendJson(res, 200, accepted, replayed ? { 'Idempotent-Replayed': 'true' } : undefined);
}
