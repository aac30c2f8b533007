/**
 * How long a request may wait, on a real endpoint (issue 26, part 2): a request being worked on is
 * never cut by the socket's idle timer (1 s here); a read waits for the views at most
 * `maxReadWaitMs`, a write for room at most `maxWriteWaitMs` (uncommitted), and past that each
 * is answered 503 with `Retry-After` and how far behind the views are; a write refused so is not
 * stored, and sent again once there is room it is stored once. The views are held back by hand
 * (their planner told to build nothing), so each wait lasts exactly as long as the test says.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrackingEndpoint, TrackingEndpointOptions } from '../../src/index.js';
import { Q, connect, message, readUntilClose, request, start, tempDir, track } from '../helpers.js';

/** The socket idle timeout of these endpoints: 1 ms of keep-alive and Node's 1 s margin, the request timeout 500 ms. */
const IDLE_MS = 1_001;
const TIMEOUTS: TrackingEndpointOptions = { requestTimeoutMs: 500, headersTimeoutMs: 500, keepAliveTimeoutMs: 1 };

interface Internals {
  projection: { plan(): { limit: number; share: number }; msPerRecord: number; running: Promise<void> | undefined };
  appends: unknown;
  backend: { commitRecords(rows: readonly unknown[]): Promise<number[]> };
}

const internals = (endpoint: TrackingEndpoint) => endpoint.store as unknown as Internals;

/** Holds the views back (nothing is built, once a run under way ends) until the function it resolves with is called. */
async function holdViews(endpoint: TrackingEndpoint): Promise<() => void> {
  const projection = internals(endpoint).projection;
  const plan = projection.plan;
  projection.plan = () => ({ limit: 0, share: 0 });
  while (projection.running) await projection.running;
  return () => {
    projection.plan = plan;
  };
}

/** Stores 5,000 records (through the store: quicker than 5,000 requests) that the views, held back, do not take. */
async function fillViewsBacklog(target: TrackingEndpoint): Promise<void> {
  const store = target.store as unknown as { append(record: unknown): Promise<unknown> };
  await Promise.all(Array.from({ length: 5_000 }, (_, i) => store.append({ platform: 'universal', platformKind: 'universal', v: '10.1.1-rest', type: 'incoming', bot: 'b0', body: { text: `before ${i}`, userId: 'u0' } })));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let endpoint: TrackingEndpoint | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
  await cleanup?.();
  cleanup = undefined;
});

async function startOnFile(options: TrackingEndpointOptions): Promise<TrackingEndpoint> {
  const folder = await tempDir();
  cleanup = folder.cleanup;
  endpoint = await start({ database: join(folder.dir, 'waits.db'), ...TIMEOUTS, ...options });
  return endpoint;
}

describe('a read that waits for the views', () => {
  it('is answered once the views catch up, though it waited longer than a connection may stay idle', async () => {
    const e = await startOnFile({ maxReadWaitMs: 5_000 });
    expect((await track(e, Q.universalIn, message('u1', 'hello'))).status).toBe(200);
    const release = await holdViews(e);
    expect((await track(e, Q.universalIn, message('u1', 'again'))).status).toBe(200);
    setTimeout(release, IDLE_MS + 500);
    const started = performance.now();
    const summary = await request(e, '/api/summary');
    expect(performance.now() - started).toBeGreaterThan(IDLE_MS + 400);
    expect(summary.status).toBe(200);
    expect(summary.body.records).toBe(2);
  });

  it('past maxReadWaitMs is answered 503 with Retry-After and how far behind the views are, then 200 once they caught up', async () => {
    const e = await startOnFile({ maxReadWaitMs: 1_500 });
    const release = await holdViews(e);
    for (const text of ['one', 'two', 'three']) expect((await track(e, Q.universalIn, message('u1', text))).status).toBe(200);
    await sleep(200);
    const started = performance.now();
    const refused = await request(e, '/api/users');
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(1_450);
    expect(waited).toBeLessThan(3_000);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toEqual({ ok: false, error: expect.stringContaining('catching up (3 records to go)'), catchingUp: { behindRecords: 3, behindSeconds: expect.any(Number) } });
    expect(refused.body.error).toContain('maxReadWaitMs');
    expect(refused.body.catchingUp.behindSeconds).toBeGreaterThanOrEqual(1.5);
    expect(refused.body.catchingUp.behindSeconds).toBeLessThan(4);
    release();
    const answered = await request(e, '/api/users');
    expect(answered.status).toBe(200);
    expect(answered.body.users).toHaveLength(1);
  });

  it('past maxReadWaitMs on a view of several queries: 503 as well, never a cut connection', async () => {
    const e = await startOnFile({ maxReadWaitMs: 300 });
    const release = await holdViews(e);
    expect((await track(e, Q.universalIn, message('u1', 'x'))).status).toBe(200);
    const answers = await Promise.all(['/api/summary', '/api/analytics/sessions', '/api/conversations', '/api/transcript?user=u1'].map((path) => request(e, path)));
    expect(answers.map((a) => a.status)).toEqual([503, 503, 503, 503]);
    for (const a of answers) expect(a.body.catchingUp).toEqual({ behindRecords: 1, behindSeconds: expect.any(Number) });
    release();
  });
});

describe('a write that waits', () => {
  it('past maxWriteWaitMs while the views make room is answered 503, not stored; sent again once there is room it is stored once', async () => {
    const e = await startOnFile({ maxWriteWaitMs: 1_500 });
    const release = await holdViews(e);
    // At 10 ms of work a record, the views may fall 5,000 records behind (pace.ts) before acknowledgements wait for them.
    internals(e).projection.msPerRecord = 10;
    await fillViewsBacklog(e);
    const started = performance.now();
    const refused = await track(e, Q.universalIn, message('u1', 'the one'));
    const waited = performance.now() - started;
    expect(refused.status).toBe(503);
    expect(waited).toBeGreaterThanOrEqual(1_450);
    expect(waited).toBeLessThan(3_000);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.body).toEqual({ ok: false, error: expect.stringContaining('was not stored'), catchingUp: { behindRecords: 5_000, behindSeconds: expect.any(Number) } });
    expect(await e.store.count()).toBe(5_000);
    release();
    internals(e).projection.msPerRecord = 0.1;
    const again = await track(e, Q.universalIn, message('u1', 'the one'));
    expect(again.status).toBe(200);
    const stored = await e.store.records({ after: 5_000 });
    expect(stored.map((r) => (r.body as { text: string }).text)).toEqual(['the one']);
  });

  it('is answered 200 once committed, though the commit took longer than a connection may stay idle', async () => {
    const e = await startOnFile({});
    const backend = internals(e).backend;
    const commit = backend.commitRecords.bind(backend);
    backend.commitRecords = async (rows) => {
      await sleep(IDLE_MS + 500);
      return commit(rows);
    };
    const started = performance.now();
    const answer = await track(e, Q.universalIn, message('u1', 'slow'));
    expect(performance.now() - started).toBeGreaterThan(IDLE_MS + 400);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ok: true, id: 1 });
    backend.commitRecords = commit;
  });

  it('waiting for room when the endpoint closes is answered 503 and not stored, rather than cut and committed after', async () => {
    const folder = await tempDir();
    cleanup = folder.cleanup;
    const database = join(folder.dir, 'closing.db');
    const e = await start({ database, ...TIMEOUTS, maxWriteWaitMs: 10_000, closeGraceMs: 5_000 });
    await holdViews(e);
    internals(e).projection.msPerRecord = 10;
    await fillViewsBacklog(e);
    const waiting = track(e, Q.universalIn, message('u1', 'in flight'));
    await sleep(300);
    const started = performance.now();
    const closed = e.close();
    const answer = await waiting;
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(answer.status).toBe(503);
    expect(answer.body.error).toContain('was not stored');
    await closed;
    endpoint = await start({ database });
    expect(await endpoint.store.count()).toBe(5_000);
  });
});

describe('the minute summary', () => {
  it('counts the reads and the writes answered 503 after waiting past their bound, and says the writes were not stored', async () => {
    const lines: string[] = [];
    const e = await startOnFile({ maxReadWaitMs: 300, maxWriteWaitMs: 300, log: (line) => lines.push(line) });
    await holdViews(e);
    internals(e).projection.msPerRecord = 10;
    await fillViewsBacklog(e);
    const write = await track(e, Q.universalIn, message('u1', 'late'));
    const read = await request(e, '/api/users');
    const other = await track(e, { ...Q.universalIn, apiKey: '<API_KEY>' }, message('u1', 'refused'));
    expect([write.status, read.status, other.status]).toEqual([503, 503, 401]);
    await e.close();
    endpoint = undefined;
    // The line at close counts since start, as a minute's line counts that minute.
    expect(lines.at(-1)).toMatch(/^tracking endpoint: since start: 0 records accepted, 3 requests refused \(401: 1, 503: 2\); waited past their bound for the views: 1 read, 1 write \(not stored\); records kept in SQLite .*waits\.db\.$/);
  });
});

describe('idle connections', () => {
  it('closes a keep-alive connection with no request in progress after its timeout', async () => {
    const e = await start({ keepAliveTimeoutMs: 200, requestTimeoutMs: 500, headersTimeoutMs: 500 });
    endpoint = e;
    const socket = await connect(e);
    socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    const { data, closed, ms } = await readUntilClose(socket, 5_000);
    expect(data).toMatch(/^HTTP\/1\.1 200 /);
    expect(closed).toBe(true);
    // Node closes it keepAliveTimeoutMs plus its own 1 s margin after the answer.
    expect(ms).toBeGreaterThan(1_000);
    expect(ms).toBeLessThan(2_500);
  });
});
