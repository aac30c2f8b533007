/**
 * `GET /metrics`: scraped from real endpoints and parsed as Prometheus' text format, its counters
 * equal what the test sent (records accepted per bot, refusals by status, reason and bot), the
 * latency histogram counts the requests, live clients follow the /api/events streams, the views
 * are 0 behind once caught up, and lost database connections are counted; on SQLite and
 * PostgreSQL. Access: open on loopback with no reader; otherwise a reader of every bot or the
 * metrics token, never a write key or a reader scoped to some bots.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { startTrackingEndpoint, type TrackingEndpoint } from '../../src/index.js';
import { MAX_BOT_LABELS, methodLabel, reasonLabel, statusClass } from '../../src/http/metrics.js';
import type { RecordStore } from '../../src/store/store.js';
import { bothDatabases, connect, message, Q, readUntilClose, start, track } from '../helpers.js';
import { createTestDatabase, startDatabaseProxy, TEST_SERVER_URL, type DatabaseProxy, type TestDatabase } from '../helpers/postgres.js';
import { startCommitProxy, type CommitProxy } from '../helpers/commit-proxy.js';
import { PROJECTION_LOCK } from '../../src/store/postgres.js';

/** One sample: `name{labels} value`. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/;

/**
 * Parses Prometheus' text exposition format (version 0.0.4): `# HELP` and `# TYPE` lines, then
 * samples. Throws on a line that is neither, on a sample of a family with no `# TYPE`, and on a
 * family typed twice.
 */
function parsePrometheus(text: string): { samples: Sample[]; types: Map<string, string> } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const typed = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
    if (typed) {
      if (types.has(typed[1])) throw new Error(`${typed[1]} is typed twice`);
      types.set(typed[1], typed[2]);
      continue;
    }
    if (new RegExp(`^# HELP ${NAME} `).test(line)) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a Prometheus line: ${JSON.stringify(line)}`);
    const [, name, labelText = '', valueText] = match;
    const labels: Record<string, string> = {};
    let rest = labelText;
    while (rest !== '') {
      const label = LABEL.exec(rest);
      if (!label) throw new Error(`bad labels in ${JSON.stringify(line)}`);
      labels[label[1]] = label[2].replace(/\\(.)/g, (_all, c: string) => (c === 'n' ? '\n' : c));
      rest = rest.slice(label[0].length);
    }
    // Prometheus reads values as Go's ParseFloat does: NaN and Inf in any case (prom-client writes "Nan").
    const value = /^\+?inf$/i.test(valueText) ? Infinity : /^-inf$/i.test(valueText) ? -Infinity : Number(valueText);
    if (Number.isNaN(value) && !/^nan$/i.test(valueText)) throw new Error(`bad value in ${JSON.stringify(line)}`);
    const family = name.replace(/_(bucket|sum|count)$/, '');
    if (!types.has(name) && !(types.get(family) === 'histogram' || types.get(family) === 'summary')) throw new Error(`${name} has no # TYPE line`);
    samples.push({ name, labels, value });
  }
  return { samples, types };
}

/** The samples of `name` as `labels → value` (labels as `k=v,k=v`, sorted). */
function series(samples: Sample[], name: string, omit: string[] = []): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples.filter((x) => x.name === name)) {
    const key = Object.entries(s.labels).filter(([k]) => !omit.includes(k)).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join(',');
    out[key] = (out[key] ?? 0) + s.value;
  }
  return out;
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

async function scrape(base: string, token?: string): Promise<{ status: number; type: string | null; length: number; text: string }> {
  const res = await fetch(`${base}/metrics`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  return { status: res.status, type: res.headers.get('content-type'), length: Number(res.headers.get('content-length')), text: await res.text() };
}

async function metrics(base: string, token?: string): Promise<Sample[]> {
  const answer = await scrape(base, token);
  expect(answer.status, answer.text).toBe(200);
  return parsePrometheus(answer.text).samples;
}

/** Scrapes until `ok` holds of the samples (or the time is up: the last samples are returned). */
async function metricsUntil(base: string, ok: (samples: Sample[]) => boolean, ms = 10_000): Promise<Sample[]> {
  const until = Date.now() + ms;
  let samples = await metrics(base);
  while (!ok(samples) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    samples = await metrics(base);
  }
  return samples;
}

/** GET with a `Host` of our choosing (fetch sets its own). */
function getWithHost(port: number, path: string, host: string): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode! });
    }).on('error', reject);
  });
}

const fingerprint = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 12);
const PIZZA_KEY = 'pizza-metrics-key-1';
const UNNAMED_KEY = 'unnamed-metrics-key-2';
const pizza = { ...Q.universalIn, apiKey: PIZZA_KEY };
const unnamed = { ...Q.universalIn, apiKey: UNNAMED_KEY };

let endpoint: TrackingEndpoint | undefined;
let proxy: DatabaseProxy | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
  await proxy?.close();
  proxy = undefined;
});

describe('metric labels', () => {
  it('names a refusal by the code set where it was made, else by its status, else "other"', () => {
    expect(reasonLabel(400, 'invalid_json')).toBe('invalid_json');
    expect([400, 401, 403, 404, 405, 408, 413, 415, 431, 500, 503, 504].map((status) => reasonLabel(status, undefined))).toEqual([
      'bad_request', 'unauthorized', 'forbidden', 'not_found', 'method_not_allowed', 'timeout', 'too_large', 'unsupported_media_type', 'headers_too_large', 'internal_error', 'unavailable', 'commit_unknown',
    ]);
    expect(reasonLabel(418, undefined)).toBe('other');
  });

  it('gives status classes and a bounded method label', () => {
    expect([200, 204, 302, 401, 499, 500, 503].map(statusClass)).toEqual(['2xx', '2xx', '3xx', '4xx', '4xx', '5xx', '5xx']);
    expect(['GET', 'HEAD', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'PROPFIND', undefined].map(methodLabel)).toEqual(['GET', 'HEAD', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'other', 'other']);
  });
});

describe.each(bothDatabases('metrics.db'))('GET /metrics on $name', ({ name, database }) => {
  it('counts records accepted per bot and refusals by status, reason and bot, as sent', async () => {
    endpoint = await startTrackingEndpoint({ port: 0, database: database(), apiKeys: [`pizza=${PIZZA_KEY}`, UNNAMED_KEY], maxBodyBytes: 2048, log: () => undefined, closeGraceMs: 200 });
    const base = endpoint.url;
    for (let i = 0; i < 3; i++) expect((await track(endpoint, pizza, message(`p${i}`, 'hi'))).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await track(endpoint, unnamed, message(`u${i}`, 'hi'))).status).toBe(200);
    const refusals: [number, Promise<{ status: number }>][] = [];
    const post = (query: Record<string, string>, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
      fetch(`${base}/track?${new URLSearchParams(query)}`, { method: 'POST', headers, body });
    refusals.push([401, post({ ...pizza, apiKey: 'nobody-knows-this-key' }, '{}')]);
    refusals.push([401, post({ ...pizza, apiKey: '<API_KEY>' }, '{}')]);
    refusals.push([400, post({ ...pizza, type: 'sideways' }, '{}')]);
    refusals.push([415, post(pizza, '{}', { 'content-type': 'text/plain' })]);
    refusals.push([400, post(pizza, '{"text":')]);
    refusals.push([400, post(unnamed, '{"text": 5}')]);
    refusals.push([400, post(unnamed, '{"text": 7}')]);
    refusals.push([413, post(pizza, JSON.stringify(message('big', 'x'.repeat(4000))))]);
    refusals.push([404, fetch(`${base}/nowhere/at/all`)]);
    refusals.push([405, fetch(`${base}/track`, { method: 'DELETE' })]);
    refusals.push([403, getWithHost(endpoint.port, '/api/summary', 'evil.example')]);
    for (const [status, response] of refusals) expect((await response).status).toBe(status);
    // Not valid HTTP: Node answers it before any route.
    const socket = await connect(endpoint);
    socket.write('THIS IS NOT HTTP\r\n\r\n');
    expect((await readUntilClose(socket, 2000)).data).toMatch(/^HTTP\/1\.1 400 /);
    // Headers past Node's limit (16 KiB).
    const big = await connect(endpoint);
    big.write(`GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`);
    expect((await readUntilClose(big, 2000)).data).toMatch(/^HTTP\/1\.1 431 /);

    const answer = await scrape(base);
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    const { samples, types } = parsePrometheus(answer.text);
    expect(series(samples, 'tracking_records_accepted_total')).toEqual({ 'bot=pizza': 3, [`bot=${fingerprint(UNNAMED_KEY)}`]: 2 });
    expect(series(samples, 'tracking_requests_refused_total')).toEqual({
      'bot=,reason=unknown_key,status=401': 1,
      'bot=,reason=invalid_key,status=401': 1,
      'bot=pizza,reason=invalid_query,status=400': 1,
      'bot=pizza,reason=unsupported_media_type,status=415': 1,
      'bot=pizza,reason=invalid_json,status=400': 1,
      [`bot=${fingerprint(UNNAMED_KEY)},reason=invalid_body,status=400`]: 2,
      'bot=pizza,reason=too_large,status=413': 1,
      'bot=,reason=not_found,status=404': 1,
      'bot=,reason=method_not_allowed,status=405': 1,
      'bot=,reason=wrong_host,status=403': 1,
      'bot=,reason=invalid_http,status=400': 1,
      'bot=,reason=headers_too_large,status=431': 1,
    });
    expect(answer.length).toBe(Buffer.byteLength(answer.text));
    expect(series(samples, 'tracking_database_errors_total')).toEqual({});
    expect(answer.text).not.toContain(PIZZA_KEY);
    expect(answer.text).not.toContain(UNNAMED_KEY);
    expect(answer.text).not.toContain('nowhere');
    // The histogram counts every request that reached a route, by the route's path (or "other").
    expect(types.get('tracking_request_duration_seconds')).toBe('histogram');
    expect(series(samples, 'tracking_request_duration_seconds_count')).toEqual({
      'method=POST,route=/track,status_class=2xx': 5,
      'method=POST,route=/track,status_class=4xx': 8,
      'method=GET,route=other,status_class=4xx': 1,
      'method=DELETE,route=/track,status_class=4xx': 1,
      'method=GET,route=/api/summary,status_class=4xx': 1,
    });
    const inf = value(samples, 'tracking_request_duration_seconds_bucket', { route: '/track', status_class: '2xx', le: '+Inf' });
    expect(inf).toBe(5);
    const buckets = samples.filter((x) => x.name === 'tracking_request_duration_seconds_bucket' && x.labels.route === '/track' && x.labels.status_class === '2xx');
    expect(buckets.map((x) => x.labels.le)).toEqual(['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf']);
    expect(value(samples, 'tracking_request_duration_seconds_bucket', { route: '/track', status_class: '2xx', le: '10' })).toBe(5);
    expect(value(samples, 'tracking_request_duration_seconds_sum', { route: '/track', status_class: '2xx' })).toBeGreaterThan(0);
    // Node's process metrics, in this endpoint's registry.
    expect(types.get('process_cpu_user_seconds_total')).toBe('counter');
    expect(types.get('nodejs_heap_size_used_bytes')).toBe('gauge');
    expect(types.get('tracking_records_accepted_total')).toBe('counter');

    // A second scrape counts the first (a 200 on /metrics), and the counters stand.
    const again = await metrics(base);
    expect(series(again, 'tracking_request_duration_seconds_count')['method=GET,route=/metrics,status_class=2xx']).toBe(1);
    expect(series(again, 'tracking_records_accepted_total')).toEqual(series(samples, 'tracking_records_accepted_total'));
  });

  it('says how far the views are behind (0 once caught up) and how many live clients are open', async () => {
    endpoint = await startTrackingEndpoint({ port: 0, database: database(), apiKeys: [`pizza=${PIZZA_KEY}`], log: () => undefined, closeGraceMs: 200 });
    const base = endpoint.url;
    for (let i = 0; i < 4; i++) expect((await track(endpoint, pizza, message(`p${i}`, 'hi'))).status).toBe(200);
    // A read waits until the views hold every record acknowledged before it.
    expect((await fetch(`${base}/api/summary`)).status).toBe(200);
    let samples = await metrics(base);
    expect(value(samples, 'tracking_views_behind_records')).toBe(0);
    expect(value(samples, 'tracking_views_behind_seconds')).toBe(0);
    expect(value(samples, 'tracking_live_clients')).toBe(0);

    const streams = [new AbortController(), new AbortController()];
    for (const stream of streams) {
      const res = await fetch(`${base}/api/events`, { signal: stream.signal });
      expect(res.status).toBe(200);
      await res.body!.getReader().read();
    }
    samples = await metrics(base);
    expect(value(samples, 'tracking_live_clients')).toBe(2);
    streams[0].abort();
    samples = await metricsUntil(base, (s) => value(s, 'tracking_live_clients') === 1);
    expect(value(samples, 'tracking_live_clients')).toBe(1);
    streams[1].abort();
    samples = await metricsUntil(base, (s) => value(s, 'tracking_live_clients') === 0);
    expect(value(samples, 'tracking_live_clients')).toBe(0);
  });

  it('counts requests the database failed, and on PostgreSQL lost connections and their return', async () => {
    let url = database();
    if (name === 'PostgreSQL') {
      proxy = await startDatabaseProxy();
      url = proxy.urlFor(url);
    }
    endpoint = await startTrackingEndpoint({ port: 0, database: url, apiKeys: [`pizza=${PIZZA_KEY}`], log: () => undefined, closeGraceMs: 200 });
    const store = endpoint.store as RecordStore;
    expect((await track(endpoint, pizza, message('p0', 'before'))).status).toBe(200);
    if (proxy) proxy.cut();
    else {
      // A full disk: SQLite may not grow past the pages it has now.
      const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(store.db);
      await sql.raw(`pragma max_page_count = ${rows[0].page_count}`).execute(store.db);
    }
    let refused = 0;
    for (let i = 1; i <= 50 && refused === 0; i++) {
      if ((await track(endpoint, pizza, message(`u${i}`, `${i} ${'y'.repeat(3000)}`))).status === 503) refused++;
    }
    expect(refused).toBe(1);
    let samples = await metrics(endpoint.url);
    expect(series(samples, 'tracking_requests_refused_total')).toEqual({ 'bot=pizza,reason=database_unavailable,status=503': 1 });
    expect(series(samples, 'tracking_database_errors_total')).toEqual({ 'reason=unavailable': 1 });
    if (!proxy) {
      expect(series(samples, 'tracking_database_connections_lost_total')).toEqual({});
      return;
    }
    samples = await metricsUntil(endpoint.url, (s) => value(s, 'tracking_database_connections_lost_total', { connection: 'listen' }) === 1);
    expect(value(samples, 'tracking_database_connections_lost_total', { connection: 'listen' })).toBe(1);
    expect(value(samples, 'tracking_database_connections_lost_total', { connection: 'pool' })).toBeGreaterThanOrEqual(1);
    expect(value(samples, 'tracking_database_reconnects_total')).toBe(0);
    proxy.restore();
    samples = await metricsUntil(endpoint.url, (s) => value(s, 'tracking_database_reconnects_total') === 1);
    expect(value(samples, 'tracking_database_reconnects_total')).toBe(1);
  });
});

describe('GET /metrics while the views are behind (PostgreSQL)', () => {
  let db: TestDatabase | undefined;
  afterEach(async () => {
    await db?.drop();
    db = undefined;
  });

  it('says how many records and how many seconds the views are behind while another session holds them, and 0 once they are built', async () => {
    db = await createTestDatabase();
    endpoint = await startTrackingEndpoint({ port: 0, database: db.url, apiKeys: [`pizza=${PIZZA_KEY}`], log: () => undefined, closeGraceMs: 200 });
    // Another session holds the lock of the endpoint that builds the views: this one builds none.
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('select pg_advisory_lock($1)', [PROJECTION_LOCK]);
      const before = Date.now();
      for (let i = 0; i < 3; i++) expect((await track(endpoint, pizza, message(`p${i}`, 'hi'))).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const samples = await metrics(endpoint.url);
      expect(value(samples, 'tracking_views_behind_records')).toBe(3);
      const seconds = value(samples, 'tracking_views_behind_seconds')!;
      expect(seconds).toBeGreaterThanOrEqual(1.4);
      expect(seconds).toBeLessThanOrEqual((Date.now() - before) / 1000 + 0.1);
    } finally {
      await holder.end();
    }
    expect((await track(endpoint, pizza, message('p3', 'hi'))).status).toBe(200);
    const caught = await metricsUntil(endpoint.url, (s) => value(s, 'tracking_views_behind_records') === 0);
    expect(value(caught, 'tracking_views_behind_records')).toBe(0);
    expect(value(caught, 'tracking_views_behind_seconds')).toBe(0);
  });
});

describe('GET /metrics when a commit\'s outcome is unknown (PostgreSQL)', () => {
  let db: TestDatabase | undefined;
  let commits: CommitProxy | undefined;
  afterEach(async () => {
    commits?.restore();
    await endpoint?.close();
    endpoint = undefined;
    await commits?.close();
    commits = undefined;
    await db?.drop();
    db = undefined;
  });

  it('counts a 504 as refused for commit_unknown and as a database error', async () => {
    db = await createTestDatabase();
    const server = new URL(TEST_SERVER_URL);
    commits = await startCommitProxy({ host: server.hostname, port: Number(server.port || 5432) });
    endpoint = await startTrackingEndpoint({ port: 0, database: commits.urlFor(db.url), apiKeys: [`pizza=${PIZZA_KEY}`], log: () => undefined, closeGraceMs: 200 });
    const dropped = commits.next('drop-commit', { refuseAfter: true });
    const answer = track(endpoint, pizza, message('p', 'unknown'));
    await dropped;
    expect((await answer).status).toBe(504);
    const samples = await metrics(endpoint.url);
    expect(series(samples, 'tracking_requests_refused_total')).toEqual({ 'bot=pizza,reason=commit_unknown,status=504': 1 });
    expect(series(samples, 'tracking_database_errors_total')).toEqual({ 'reason=commit_unknown': 1 });
  }, 20_000);
});

describe('GET /metrics access', () => {
  const ALL = 'all-reader-token-1';
  const SCOPED = 'pizza-reader-token-2';
  const METRICS = 'prom-scrape-secret-3';

  async function offLoopback(log: string[] = []): Promise<string> {
    endpoint = await startTrackingEndpoint({
      port: 0, host: '0.0.0.0', database: false, closeGraceMs: 200, log: (line) => log.push(line), summaryIntervalMs: 0,
      apiKeys: [`pizza=${PIZZA_KEY}`, `support=${UNNAMED_KEY}`], readers: [`all=${ALL}`, `pz=${SCOPED}:pizza`], metricsToken: METRICS,
    });
    return `http://127.0.0.1:${endpoint.port}`;
  }

  it('is open on loopback with no reader, like the other reads', async () => {
    endpoint = await start();
    expect((await scrape(endpoint.url)).status).toBe(200);
  });

  it('off loopback takes a reader of every bot or the metrics token; refuses no token, a write key, a wrong token and a scoped reader', async () => {
    const log: string[] = [];
    const base = await offLoopback(log);
    expect((await track(endpoint!, pizza, message('p', 'hi'))).status).toBe(200);
    const none = await scrape(base);
    expect(none.status).toBe(401);
    expect(JSON.parse(none.text)).toEqual({ ok: false, error: 'Reading needs a reader token, as an Authorization: Bearer <token> header (the endpoint\'s readers are given with --reader NAME=TOKEN); /metrics also takes a reader of every bot or the metrics token (--metrics-token).' });
    const writeKey = await scrape(base, PIZZA_KEY);
    expect(writeKey.status).toBe(401);
    expect(JSON.parse(writeKey.text).error).toMatch(/^Reading needs a reader token \(--reader NAME=TOKEN\), as Authorization: Bearer <token>; write keys \(--key\) cannot read; \/metrics also takes/);
    expect((await scrape(base, `${METRICS}x`)).status).toBe(401);
    expect((await scrape(base, METRICS.slice(0, -1))).status).toBe(401);
    const scoped = await scrape(base, SCOPED);
    expect(scoped.status).toBe(403);
    expect(JSON.parse(scoped.text).error).toBe('The metrics name every bot: a reader scoped to some bots cannot read them. Use a reader of every bot, or the metrics token (--metrics-token).');
    expect(series(await metrics(base, ALL), 'tracking_records_accepted_total')).toEqual({ 'bot=pizza': 1 });
    const withToken = await metrics(base, METRICS);
    expect(series(withToken, 'tracking_records_accepted_total')).toEqual({ 'bot=pizza': 1 });
    expect(series(withToken, 'tracking_requests_refused_total')).toEqual({ 'bot=,reason=unauthorized,status=401': 4, 'bot=,reason=forbidden,status=403': 1 });
    // Only as a Bearer token; spaces after "Bearer" do not matter.
    expect((await fetch(`${base}/metrics`, { headers: { authorization: `Token: ${METRICS}` } })).status).toBe(401);
    expect((await fetch(`${base}/metrics`, { headers: { authorization: `Bearer   ${METRICS}` } })).status).toBe(200);
    // The metrics token reads the metrics only.
    expect((await fetch(`${base}/api/summary`, { headers: { authorization: `Bearer ${METRICS}` } })).status).toBe(401);
    await endpoint!.close();
    expect(log.join('\n')).toContain('refused GET /metrics with 401');
    expect(log.join('\n')).not.toContain('prom-scrape');
  });

  it('on loopback with a reader configured needs a token too', async () => {
    endpoint = await start({ readers: [`all=${ALL}`] });
    const none = await scrape(endpoint.url);
    expect(none.status).toBe(401);
    expect(JSON.parse(none.text).error).toBe('Reading needs a reader token, as an Authorization: Bearer <token> header (the endpoint\'s readers are given with --reader NAME=TOKEN); /metrics also takes a reader of every bot.');
    expect((await fetch(`${endpoint.url}/metrics`, { headers: { authorization: `Basic ${ALL}` } })).status).toBe(401);
    expect((await scrape(endpoint.url, ALL)).status).toBe(200);
  });

  it('behind an auth proxy takes a user of every bot, refuses a scoped user (403) and a request without the header (401)', async () => {
    endpoint = await startTrackingEndpoint({
      port: 0, database: false, log: () => undefined, closeGraceMs: 200, apiKeys: [`pizza=${PIZZA_KEY}`],
      trustProxyUser: 'X.Scrape.User', readerUsers: ['ann', 'pat:pizza'],
    });
    const as = (user?: string) => fetch(`${endpoint!.url}/metrics`, { headers: user === undefined ? {} : { 'x.scrape.user': user } });
    const none = await as();
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: string }).error).toBe('Reading needs signing in through the auth proxy (it sets x.scrape.user); this request has no user; /metrics also takes a reader of every bot.');
    expect((await as('pat')).status).toBe(403);
    expect((await as('eve')).status).toBe(403);
    expect((await as('ann')).status).toBe(200);
  });

  it('answers HEAD with the headers only', async () => {
    endpoint = await start();
    const res = await fetch(`${endpoint.url}/metrics`, { method: 'HEAD' });
    expect([res.status, res.headers.get('content-type'), res.headers.get('cache-control'), await res.text()]).toEqual([200, 'text/plain; version=0.0.4; charset=utf-8', 'no-store', '']);
  });
});

describe('bot labels', () => {
  it(`names at most ${MAX_BOT_LABELS} bots; the others are counted as "other"`, async () => {
    endpoint = await startTrackingEndpoint({ port: 0, database: false, log: () => undefined, closeGraceMs: 200 });
    for (let i = 0; i < MAX_BOT_LABELS + 3; i++) expect((await track(endpoint, { ...Q.universalIn, apiKey: `any-key-${i}` }, message('u', 'hi'))).status).toBe(200);
    expect((await track(endpoint, { ...Q.universalIn, apiKey: 'any-key-0' }, message('u', 'again'))).status).toBe(200);
    const accepted = series(await metrics(endpoint.url), 'tracking_records_accepted_total');
    expect(Object.keys(accepted)).toHaveLength(MAX_BOT_LABELS + 1);
    expect(accepted['bot=other']).toBe(3);
    expect(accepted[`bot=${fingerprint('any-key-0')}`]).toBe(2);
    expect(accepted[`bot=${fingerprint(`any-key-${MAX_BOT_LABELS - 1}`)}`]).toBe(1);
  });
});
