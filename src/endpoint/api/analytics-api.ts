/**
 * The read side's chart data and single records, for the page: counts over time, counts per
 * intent, and one stored record as it was received (with its `platformJson`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badLimit, limitParam } from './read-api.js';
import { sendError, sendJson } from '../http/respond.js';
import type { EndpointContext, Target } from '../http/router.js';
import type { IntentsResponse, RecordResponse, StoredRecord, TimeBucket, TimeseriesResponse } from '../types.js';

const BUCKETS: readonly string[] = ['auto', 'minute', 'hour', 'day'];
const MAX_POINTS = 10_000;

/**
 * `GET /api/timeseries?bucket=auto|minute|hour|day&limit=N`: incoming and outgoing messages,
 * events, `NotHandled` messages and revenue per bucket (UTC), at most `limit` (default 60, up
 * to 10000) buckets ending with the latest activity. `auto` (the default) picks the smallest
 * width that shows all activity in `limit` buckets. 400 for an unknown bucket or a bad limit.
 */
export function handleTimeseries(_req: IncomingMessage, res: ServerResponse, { query }: Target, { store }: EndpointContext): void {
  const bucket = query.get('bucket') ?? 'auto';
  if (!BUCKETS.includes(bucket)) {
    return sendError(res, 400, 'bucket must be auto, minute, hour or day.', [{ path: 'bucket', expected: 'auto, minute, hour or day', received: JSON.stringify(bucket.slice(0, 20)) }]);
  }
  const limit = limitParam(query, 60, MAX_POINTS);
  if (limit === undefined) return badLimit(res, MAX_POINTS);
  const body: TimeseriesResponse = store.read.analytics.timeseries(bucket as TimeBucket | 'auto', limit);
  sendJson(res, 200, body);
}

/** `GET /api/intents?limit=N`: intents most used first (default 20), with incoming and outgoing counts; incoming and `NotHandled` totals. */
export function handleIntents(_req: IncomingMessage, res: ServerResponse, { query }: Target, { store }: EndpointContext): void {
  const limit = limitParam(query, 20);
  if (limit === undefined) return badLimit(res);
  const body: IntentsResponse = store.read.analytics.intents(limit);
  sendJson(res, 200, body);
}

/** The record with `seq` in `records` (sorted by `seq`), by binary search. */
function findBySeq(records: readonly StoredRecord[], seq: number): StoredRecord | undefined {
  let low = 0;
  let high = records.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const at = records[mid].seq;
    if (at === seq) return records[mid];
    if (at < seq) low = mid + 1;
    else high = mid - 1;
  }
  return undefined;
}

/** `GET /api/record?seq=N`: one stored record, body included; 404 when there is none with that `seq`. */
export function handleRecord(_req: IncomingMessage, res: ServerResponse, { query }: Target, { store }: EndpointContext): void {
  const seq = Number(query.get('seq'));
  if (!Number.isSafeInteger(seq) || seq < 1) {
    return sendError(res, 400, 'Give ?seq=N, the seq of a transcript entry.', [{ path: 'seq', expected: 'a whole number > 0', received: query.get('seq') === null ? 'missing' : 'something else' }]);
  }
  const records = store.records();
  // Records are in seq order unless the data file was edited by hand; then look through them all.
  const record = findBySeq(records, seq) ?? records.find((r) => r.seq === seq);
  if (!record) return sendError(res, 404, `No record with seq ${seq}.`);
  const body: RecordResponse = { record };
  sendJson(res, 200, body);
}
