/**
 * The read side's chart data and single records, for the page: counts over time, counts per
 * intent, and one stored record as it was received (with its `platformJson`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { intentStats, timeseries } from '../read/charts.js';
import { sendError, sendJson } from '../http/respond.js';
import { sendView } from './export.js';
import type { EndpointContext, Target } from '../http/router.js';
import { badFilter, badLimit, filterParams, limitParam } from './params.js';
import type { IntentsResponse, RecordResponse, TimeBucket, TimeseriesResponse } from '../types.js';

const BUCKETS: readonly string[] = ['auto', 'minute', 'hour', 'day'];
const MAX_POINTS = 10_000;

/**
 * `GET /api/timeseries?bucket=auto|minute|hour|day&limit=N&…filter`: incoming and outgoing
 * messages, events, `NotHandled` messages and revenue per bucket (UTC), at most `limit` (default
 * 60, up to 10000) buckets ending with the latest activity (or the filter's `to`). `auto` (the
 * default) picks the smallest width that shows everything in `limit` buckets. 400 for an unknown
 * bucket, a bad limit or a bad filter.
 */
export async function handleTimeseries(_req: IncomingMessage, res: ServerResponse, { query }: Target, { store, keys }: EndpointContext): Promise<void> {
  const bucket = query.get('bucket') ?? 'auto';
  if (!BUCKETS.includes(bucket)) {
    return sendError(res, 400, 'bucket must be auto, minute, hour or day.', [{ path: 'bucket', expected: 'auto, minute, hour or day', received: JSON.stringify(bucket.slice(0, 20)) }]);
  }
  const limit = limitParam(query, 60, MAX_POINTS);
  if (limit === undefined) return badLimit(res, MAX_POINTS);
  const parsed = filterParams(query, keys);
  if (!parsed.ok) return badFilter(res, parsed.problems);
  const body: TimeseriesResponse = await timeseries(store, bucket as TimeBucket | 'auto', limit, parsed.filter);
  sendView(res, query, `timeseries-${body.bucket}`, body, () => ({
    columns: ['start', 'incoming', 'outgoing', 'events', 'not handled', 'revenue'],
    rows: body.points.map((p) => [p.start, p.incoming, p.outgoing, p.events, p.notHandled, p.revenue]),
  }));
}

/**
 * `GET /api/intents?limit=N&…filter`: intents most used first (default 20), with incoming and
 * outgoing counts; incoming and `NotHandled` totals. CSV tables: `intents` (the default) and `summary`.
 */
export async function handleIntents(_req: IncomingMessage, res: ServerResponse, { query }: Target, { store, keys }: EndpointContext): Promise<void> {
  const limit = limitParam(query, 20);
  if (limit === undefined) return badLimit(res);
  const parsed = filterParams(query, keys);
  if (!parsed.ok) return badFilter(res, parsed.problems);
  const body: IntentsResponse = await intentStats(store, limit, parsed.filter);
  sendView(res, query, 'intents', body, {
    intents: () => ({ columns: ['intent', 'incoming', 'outgoing', 'confidence'], rows: body.intents.map((i) => [i.name, i.incoming, i.outgoing, i.confidence]) }),
    summary: () => ({
      columns: ['figure', 'value'],
      rows: [
        ['incoming messages', body.incomingMessages], ['not handled', body.notHandled],
        ['not handled share', body.incomingMessages === 0 ? 0 : Math.round((body.notHandled / body.incomingMessages) * 10_000) / 10_000], ['intents', body.total],
      ],
    }),
  });
}

/** `GET /api/record?seq=N`: one stored record, body included; 404 when there is none with that `seq`. */
export async function handleRecord(_req: IncomingMessage, res: ServerResponse, { query }: Target, { store }: EndpointContext): Promise<void> {
  const seq = Number(query.get('seq'));
  if (!Number.isSafeInteger(seq) || seq < 1) {
    return sendError(res, 400, 'Give ?seq=N, the seq of a transcript entry.', [{ path: 'seq', expected: 'a whole number > 0', received: query.get('seq') === null ? 'missing' : 'something else' }]);
  }
  const record = await store.record(seq);
  if (!record) return sendError(res, 404, `No record with seq ${seq}.`);
  const body: RecordResponse = { record };
  sendJson(res, 200, body);
}
