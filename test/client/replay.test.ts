/**
 * A client started on a `persistDir` with records an earlier process saved: it says what it
 * re-sends, paces the backlog so live records keep their room, keeps for the next start what fails
 * again or is not sent before close(), and leaves the directory empty once all is delivered.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrackingClient, type Logger, type TrackingClientOptions } from '../../src/index.js';
import { startSink, type Sink } from '../helpers/sink.js';

let sink: Sink;
let dir: string;

beforeEach(async () => {
  sink = await startSink();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bca-replay-'));
});

afterEach(async () => {
  await sink.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Entry {
  level: string;
  message: string;
}

function capture(): { logger: Logger; entries: Entry[] } {
  const entries: Entry[] = [];
  const at = (level: string) => (_fields: Record<string, unknown>, message: string) => void entries.push({ level, message });
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, entries };
}

function make(options: TrackingClientOptions = {}): TrackingClient {
  return new TrackingClient({ apiKey: 'replay-key-1', baseUrl: sink.url, logger: false, persistDir: dir, initialBackoffMs: 5, maxBackoffMs: 10, ...options });
}

/** Saves `count` sms records as an earlier process would have, users round `users`. */
function saveBacklog(count: number, users = 5, prefix = 'saved'): void {
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, i + 1], body: { text: `${prefix} ${i}`, userId: `${prefix}-u${i % users}` } }));
  fs.writeFileSync(path.join(dir, 'records-1-earlier.ndjson'), `${lines.join('\n')}\n`);
}

async function waitFor(check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const savedLines = () =>
  fs
    .readdirSync(dir)
    .flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n'))
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { body: { text: string } }).body.text);

describe('re-sending what an earlier process saved', () => {
  it('says how many records it re-sends, sends them all in order, and leaves the directory empty', async () => {
    saveBacklog(7);
    const { logger, entries } = capture();
    const c = make({ logger });
    await waitFor(() => sink.requests.length >= 7);
    await c.flush();
    await waitFor(() => fs.readdirSync(dir).length === 0);
    await c.close();
    // Each user's in the order they were logged (users are sent to in parallel).
    for (let u = 0; u < 5; u++) {
      expect(sink.requests.filter((r) => r.body.userId === `saved-u${u}`).map((r) => r.body.text)).toEqual([u, u + 5].filter((i) => i < 7).map((i) => `saved ${i}`));
    }
    expect(sink.requests).toHaveLength(7);
    expect(entries.filter((e) => e.level === 'info').map((e) => e.message)).toEqual(['re-sending 7 records saved in persistDir by an earlier process']);
    expect(c.stats()).toMatchObject({ logged: 7, delivered: 7 });
  });

  it('says nothing and sends nothing when the directory holds no record', async () => {
    fs.writeFileSync(path.join(dir, 'records-1-empty.ndjson'), '\n\n');
    const { logger, entries } = capture();
    const c = make({ logger });
    await c.flush();
    await c.close();
    expect(entries).toEqual([]);
    expect(sink.requests).toEqual([]);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('paces a large backlog a batch at a time and leaves a batch of the queue free for records logged meanwhile', async () => {
    saveBacklog(200, 20);
    sink.behave(() => ({ delayMs: 2_000 }));
    // maxQueueSize 8: batches of 2, and 2 places kept free for live records.
    const c = make({ maxQueueSize: 8, maxConcurrency: 1 });
    await new Promise((r) => setTimeout(r, 600));
    expect(c.stats().queued + c.stats().inFlight).toBe(6);
    // Logged while the replay is under way, for users with nothing saved: taken, not saved for later.
    const live = [0, 1].map((i) => c.sms.logIncoming({ text: `live ${i}`, userId: `live-${i}` }));
    expect(c.stats()).toMatchObject({ persisted: 0, dropped: 0, queued: 7 });
    await c.close(50);
    await Promise.allSettled(live);
  }, 20_000);

  it('re-sends a backlog with a queue of one record (maxQueueSize 1)', async () => {
    saveBacklog(3, 3);
    sink.behave(() => ({ delayMs: 30 }));
    const c = make({ maxQueueSize: 1, maxConcurrency: 1 });
    await waitFor(() => sink.requests.length >= 3);
    await c.flush();
    await c.close();
    expect(sink.requests.map((r) => r.body.text)).toEqual(['saved 0', 'saved 1', 'saved 2']);
    expect(c.stats()).toMatchObject({ delivered: 3, dropped: 0, failed: 0 });
  });

  it('keeps for the next start, once, a saved record that fails again', async () => {
    saveBacklog(3, 3);
    sink.behave(() => ({ status: 503 }));
    const c = make({ maxAttempts: 1 });
    await waitFor(() => sink.requests.length >= 3);
    await waitFor(() => fs.readdirSync(dir).every((f) => !f.includes('.claimed-')));
    await c.close();
    expect(savedLines().sort()).toEqual(['saved 0', 'saved 1', 'saved 2']);
    expect(c.stats()).toMatchObject({ failed: 0 });
  });

  it('on close() mid-replay, says how many were not re-sent yet and keeps them, with those that failed, for the next start', async () => {
    saveBacklog(300, 30);
    sink.behave(() => ({ delayMs: 50 }));
    const { logger, entries } = capture();
    const c = make({ logger, maxQueueSize: 8, maxConcurrency: 2 });
    await waitFor(() => sink.requests.length >= 1);
    await c.close(100);
    const note = entries.find((e) => e.message.endsWith('saved records not re-sent yet stay in persistDir for the next start'));
    expect(note?.level).toBe('info');
    const notSent = Number(note!.message.split(' ')[0]);
    expect(notSent).toBeGreaterThan(200);
    expect(notSent).toBeLessThan(300);
    // Every saved record is either stored by the endpoint or still on disk (none twice on disk).
    const onDisk = savedLines();
    expect(new Set(onDisk).size).toBe(onDisk.length);
    const answered = new Set(sink.requests.map((r) => r.body.text));
    for (let i = 0; i < 300; i++) expect(answered.has(`saved ${i}`) || onDisk.includes(`saved ${i}`)).toBe(true);
    expect(onDisk.length).toBeGreaterThanOrEqual(notSent);
  }, 20_000);

  it('checks each saved record as a new one: an invalid one, or one past maxBodyBytes, is skipped and said; one of exactly maxBodyBytes is sent', async () => {
    const body = { text: 'x'.repeat(30), userId: 'u' };
    const size = Buffer.byteLength(JSON.stringify(body));
    const lines = [
      { platform: 'sms', type: 'incoming', at: [1, 1], body },
      { platform: 'sms', type: 'incoming', at: [1, 2], body: { ...body, text: 'x'.repeat(31) } },
      { platform: 'sms', type: 'outgoing', at: [1, 3], body: { text: 'no user' } },
    ];
    fs.writeFileSync(path.join(dir, 'records-1-earlier.ndjson'), lines.map((l) => JSON.stringify(l)).join('\n'));
    const { logger, entries } = capture();
    const c = make({ logger, maxBodyBytes: size });
    await waitFor(() => sink.requests.length >= 1);
    await c.flush();
    await c.close();
    expect(sink.requests.map((r) => r.body.text)).toEqual(['x'.repeat(30)]);
    expect(entries.filter((e) => e.level === 'warn').map((e) => e.message)).toEqual([
      'skipped 2 saved lines in persistDir that cannot be re-sent (1 larger than maxBodyBytes, 1 not a valid sms outgoing record); the other 1 are re-sent',
    ]);
  });

  it("flush() waits for a record held behind its user's saved records: it resolves once that record is delivered, after them", async () => {
    saveBacklog(6, 1);
    // maxQueueSize 4: one saved record queued every 100 ms, so the live record is held for half a second.
    const c = make({ maxQueueSize: 4 });
    const live = c.sms.logIncoming({ text: 'live', userId: 'saved-u0' });
    expect(c.stats().queued).toBe(1);
    await c.flush();
    expect(sink.requests.map((r) => r.body.text)).toEqual(['saved 0', 'saved 1', 'saved 2', 'saved 3', 'saved 4', 'saved 5', 'live']);
    await expect(live).resolves.toMatchObject({ status: 'delivered' });
    await c.close();
  });

  it("keeps a user's saved records before their new ones when the new ones alone would fill the queue: what does not fit goes to disk after them", async () => {
    saveBacklog(3, 1);
    // maxQueueSize 4 and 4 new records of the same user at start: holding all 4 would leave no room for the 3 saved ones.
    const c = make({ maxQueueSize: 4 });
    const live = [0, 1, 2, 3].map((i) => c.sms.logIncoming({ text: `live ${i}`, userId: 'saved-u0' }));
    // The 4th is saved to disk (behind the saved ones): held records always leave room for a saved one.
    await expect(live[3]).rejects.toMatchObject({ reason: 'persisted' });
    await c.flush();
    expect(sink.requests.map((r) => r.body.text)).toEqual(['saved 0', 'saved 1', 'saved 2', 'live 0', 'live 1', 'live 2']);
    for (const record of live.slice(0, 3)) await expect(record).resolves.toMatchObject({ status: 'delivered' });
    await c.close();
    expect(savedLines()).toEqual(['live 3']);
    // The next start sends it.
    const next = make({ maxQueueSize: 4 });
    await waitFor(() => sink.requests.length === 7);
    await next.close();
    expect(sink.requests.map((r) => r.body.text).slice(6)).toEqual(['live 3']);
    expect(savedLines()).toEqual([]);
  });

  it("re-sends each saved user's records on that user's lane: two users' records go out at once", async () => {
    saveBacklog(2, 2);
    sink.behave(() => ({ delayMs: 300 }));
    const c = make();
    await new Promise((r) => setTimeout(r, 200));
    expect(sink.requests.map((r) => r.body.userId).sort()).toEqual(['saved-u0', 'saved-u1']);
    await c.flush();
    await c.close();
  });
});
