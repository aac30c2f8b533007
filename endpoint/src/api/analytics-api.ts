/**
 * The read side's chart data and single records, for the page: counts over time, counts per
 * intent, and one stored record as it was received (with its `platformJson`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { severalCurrencies } from '../read/analytics.js';
import { intentStats, timeseries } from '../read/charts.js';
import { sendError, sendJson } from '../http/respond.js';
import { sendView } from './export.js';
import type { EndpointContext, Target } from '../http/router.js';
import { badFilter, badLimit, filterParams, limitParam } from './params.js';
import type { ReadFilter } from '../read/filter.js';
import type { RecordStore } from '../store/store.js';
import type { IntentsResponse, RecordResponse, TimeBucket, TimeseriesBucket, TimeseriesPoint, TimeseriesResponse, TimeseriesResponsePoint } from '../types.js';

const BUCKETS: readonly string[] = ['auto', 'minute', 'hour', 'day', 'week', 'month'];
const MAX_POINTS = 10_000;
const DAY = 86_400_000;
const WEEK = 7 * DAY;
/** 1970-01-05: weeks start on Mondays (UTC), as the analytics views' do. */
const FIRST_MONDAY = 4 * DAY;

/** The start of the week (Monday) or month (the 1st) a day falls in, UTC. */
function periodStart(day: number, bucket: 'week' | 'month'): number {
  if (bucket === 'week') return Math.floor((day - FIRST_MONDAY) / WEEK) * WEEK + FIRST_MONDAY;
  const date = new Date(day);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

/** Days summed into weeks or months, the latest `limit` of them. */
function coarser(days: TimeseriesPoint[], bucket: 'week' | 'month', limit: number): TimeseriesResponse {
  const sums = new Map<number, TimeseriesResponsePoint>();
  for (const day of days) {
    const start = periodStart(Date.parse(day.start), bucket);
    const into = sums.get(start) ?? { start: new Date(start).toISOString(), incoming: 0, outgoing: 0, events: 0, notHandled: 0, revenue: 0 };
    into.incoming += day.incoming;
    into.outgoing += day.outgoing;
    into.events += day.events;
    into.notHandled += day.notHandled;
    into.revenue = Math.round(((into.revenue ?? 0) + (day.revenue ?? 0)) * 1e6) / 1e6;
    sums.set(start, into);
  }
  return { bucket, points: [...sums.values()].slice(-limit) };
}

/**
 * Counts per bucket: minutes, hours and days from the read side; weeks and months summed from its
 * days. `auto` takes the smallest of minutes, hours, days, weeks and months that shows the whole
 * range (or everything) in `limit` buckets, and months (the latest `limit`) when none does.
 */
async function series(store: RecordStore, bucket: TimeseriesBucket | 'auto', limit: number, filter: ReadFilter): Promise<TimeseriesResponse> {
  if (bucket === 'week' || bucket === 'month') return coarser((await timeseries(store, 'day', MAX_POINTS, filter)).points, bucket, limit);
  const fine = await timeseries(store, bucket, limit, filter);
  if (bucket !== 'auto' || fine.bucket !== 'day' || fine.points.length < limit) return fine;
  const days = await timeseries(store, 'day', MAX_POINTS, filter);
  if (days.points.length <= limit) return days;
  const weeks = coarser(days.points, 'week', MAX_POINTS);
  return weeks.points.length <= limit ? weeks : coarser(days.points, 'month', limit);
}

/**
 * `GET /api/timeseries?bucket=auto|minute|hour|day|week|month&limit=N&…filter`: incoming and
 * outgoing messages, events, `NotHandled` messages and revenue per bucket (UTC; weeks from Monday),
 * at most `limit` (default 60, up to 10000) buckets ending with the latest activity (or the
 * filter's `to`). `auto` (the default) picks the smallest width that shows the whole range in
 * `limit` buckets. `revenue` is `null` when the range's revenue is in several currencies. 400 for an
 * unknown bucket, a bad limit or a bad filter.
 */
export async function handleTimeseries(_req: IncomingMessage, res: ServerResponse, { query, access }: Target, { store, keys }: EndpointContext): Promise<void> {
  const bucket = query.get('bucket') ?? 'auto';
  if (!BUCKETS.includes(bucket)) {
    return sendError(res, 400, 'bucket must be auto, minute, hour, day, week or month.', [
      { path: 'bucket', expected: 'auto, minute, hour, day, week or month', received: JSON.stringify(bucket.slice(0, 20)) },
    ]);
  }
  const limit = limitParam(query, 60, MAX_POINTS);
  if (limit === undefined) return badLimit(res, query, MAX_POINTS);
  const parsed = filterParams(query, keys, access);
  if (!parsed.ok) return badFilter(res, parsed.problems);
  const [body, several] = await Promise.all([series(store, bucket as TimeBucket | 'week' | 'month' | 'auto', limit, parsed.filter), severalCurrencies(store, parsed.filter)]);
  // Amounts in different currencies are never added: no revenue figure when the range has several.
  if (several) for (const point of body.points) point.revenue = null;
  sendView(res, query, `timeseries-${body.bucket}`, body, () => ({
    columns: ['start', 'incoming', 'outgoing', 'events', 'not handled', 'revenue'],
    rows: body.points.map((p) => [p.start, p.incoming, p.outgoing, p.events, p.notHandled, p.revenue]),
  }));
}

/**
 * `GET /api/intents?limit=N&…filter`: intents most used first (default 20), with incoming and
 * outgoing counts; incoming and `NotHandled` totals. CSV tables: `intents` (the default) and `summary`.
 */
export async function handleIntents(_req: IncomingMessage, res: ServerResponse, { query, access }: Target, { store, keys }: EndpointContext): Promise<void> {
  const limit = limitParam(query, 20);
  if (limit === undefined) return badLimit(res, query);
  const parsed = filterParams(query, keys, access);
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

/** `GET /api/record?seq=N`: one stored record, body included; 404 when there is none with that `seq` (or it is a bot's the reader may not see). */
export async function handleRecord(_req: IncomingMessage, res: ServerResponse, { query, access }: Target, { store }: EndpointContext): Promise<void> {
  const seq = Number(query.get('seq'));
  if (!Number.isSafeInteger(seq) || seq < 1) {
    return sendError(res, 400, 'Give ?seq=N, the seq of a transcript entry.', [{ path: 'seq', expected: 'a whole number > 0', received: query.get('seq') === null ? 'missing' : 'something else' }]);
  }
  const record = await store.record(seq);
  // Another bot's record, to a reader scoped to some bots, is as missing as one never stored.
  if (!record || (access.bots !== null && !access.bots.has(record.bot))) return sendError(res, 404, `No record with seq ${seq}.`);
  const body: RecordResponse = { record };
  sendJson(res, 200, body);
}
