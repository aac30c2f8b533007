/**
 * A client started on a `persistDir` with records an earlier process saved: it says what it
 * re-sends, paces the backlog so live records keep their room, keeps for the next start what fails
 * again or is not sent before close(), and leaves the directory empty once all is delivered.
 * The last block drives a replay directly (replaySaved on a real store in a temp directory, the
 * client's side played by the test), to reach what a client rarely shows: a write-back that fails,
 * an enqueue that throws, keep() or finish() after the end, the pacing timer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TrackingClient, type Logger, type TrackingClientOptions } from '../../src/index.js';
import type { TrackResult } from '../../src/client/delivery-queue.js';
import { SafeLogger } from '../../src/client/logger.js';
import { UndeliveredStore } from '../../src/client/persistence.js';
import { replaySaved, type HeldRecord, type ReplayTarget } from '../../src/client/replay.js';
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
  fields: Record<string, unknown>;
}

function capture(): { logger: Logger; entries: Entry[] } {
  const entries: Entry[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void entries.push({ level, message, fields });
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, entries };
}

function make(options: TrackingClientOptions = {}): TrackingClient {
  return new TrackingClient({ apiKey: 'replay-key-1', baseUrl: sink.url, logger: false, persistDir: dir, initialBackoffMs: 5, maxBackoffMs: 10, ...options });
}

/** Saves `count` sms records as an earlier process would have, users round `users`. */
function saveBacklog(count: number, users = 5, prefix = 'saved'): void {
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, i + 1], key: `${prefix}-k${i}`, body: { text: `${prefix} ${i}`, userId: `${prefix}-u${i % users}` } }));
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

describe('what a client logs about a replay, for loggers that index fields', () => {
  it('closed before its first batch: sends nothing, keeps every saved record for the next start, and gives each count it logs as a field', async () => {
    const lines = [
      JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, 1], body: { text: 'saved 0', userId: 'u0' } }),
      '{"platform":"sms","type":"incoming","at":[1,2],"bo',
      JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, 3], body: { text: 'saved 1', userId: 'u1' } }),
      JSON.stringify({ platform: 'fax', type: 'incoming', at: [1, 4], body: { text: 'fax', userId: 'u2' } }),
      JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, 5], body: { text: 'saved 2', userId: 'u0' } }),
    ];
    fs.writeFileSync(path.join(dir, 'records-1-earlier.ndjson'), `${lines.join('\n')}\n`);
    const { logger, entries } = capture();
    const c = make({ logger });
    const closed = await c.close();
    expect(entries).toEqual([
      {
        level: 'warn',
        message: 'skipped 2 saved lines in persistDir that cannot be re-sent (1 unreadable, 1 unknown platform); the other 3 are re-sent',
        fields: { skipped: { unreadable: 1, 'unknown platform': 1 } },
      },
      { level: 'info', message: 're-sending 3 records saved in persistDir by an earlier process', fields: { records: 3 } },
      { level: 'info', message: '3 saved records not re-sent yet stay in persistDir for the next start', fields: { records: 3 } },
    ]);
    expect(closed.stats).toMatchObject({ logged: 0, queued: 0, inFlight: 0 });
    expect(sink.requests).toEqual([]);
    // Written back to the client's own file, in the order they were logged; the claimed file is gone.
    expect(fs.readdirSync(dir)).toHaveLength(1);
    expect(fs.readdirSync(dir)[0]).toMatch(new RegExp(`^records-${process.pid}-[^.]+\\.ndjson$`));
    expect(savedLines()).toEqual(['saved 0', 'saved 1', 'saved 2']);
  });
});

const DELIVERED: TrackResult = { status: 'delivered', httpStatus: 200, attempts: 1 };

/** A saved record offered to the target: its number in the replay, its text, and how to settle it. */
interface Offered {
  index: number;
  text: string;
  deliver(): void;
  fail(): void;
}

/**
 * The client's side of a replay, played by the test: every saved record offered is listed and
 * settles only when the test says (unless `enqueue` is given); the queue is always reported empty,
 * and `queueLooks()` counts how often the replay looked at it (once per round).
 */
function replayTarget(options: { maxQueueSize?: number; enqueue?: ReplayTarget['enqueue'] } = {}) {
  const { logger, entries } = capture();
  const offered: Offered[] = [];
  let queueLooks = 0;
  const target: ReplayTarget = {
    log: new SafeLogger(logger, [], false),
    maxQueueSize: options.maxQueueSize ?? 100,
    check: (record) => ({ userId: (record.body as { userId: string }).userId }),
    queued: () => {
      queueLooks++;
      return 0;
    },
    enqueue:
      options.enqueue ??
      ((record, index) =>
        new Promise<TrackResult>((resolve, reject) => {
          offered.push({ index, text: (JSON.parse(record.body) as { text: string }).text, deliver: () => resolve(DELIVERED), fail: () => reject(new Error('failed again')) });
        })),
  };
  return { target, entries, offered, queueLooks: () => queueLooks };
}

/** Lets the replay's first batch (queued on the next turn of the event loop) and the settling of records run. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

const claimedFiles = () => fs.readdirSync(dir).filter((f) => f.includes('.claimed-'));

function heldRecord(text: string, userId: string) {
  const calls: string[] = [];
  const record: HeldRecord = {
    platform: 'sms',
    type: 'incoming',
    at: [2, 1],
    key: `held-${text}`,
    body: JSON.stringify({ text, userId }),
    send: () => void calls.push('send'),
    saved: () => void calls.push('saved'),
    lost: () => void calls.push('lost'),
  };
  return { record, calls };
}

describe('a replay, driven directly (replaySaved on a real store)', () => {
  it('ends, and deletes the claimed file, only once every record it queued has settled', async () => {
    saveBacklog(2, 2);
    const { target, offered } = replayTarget();
    const replay = replaySaved(new UndeliveredStore(dir, 1_000_000), target)!;
    await turn();
    expect(offered.map((o) => o.text)).toEqual(['saved 0', 'saved 1']);
    offered[0].deliver();
    await turn();
    // One still out: the replay goes on and its file stays claimed.
    expect(replay.active).toBe(true);
    expect(claimedFiles()).toHaveLength(1);
    offered[1].deliver();
    await turn();
    expect(replay.active).toBe(false);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('stopped, it is not ended by its records settling: finish() then writes back the one that failed and was kept', async () => {
    saveBacklog(3, 3);
    const { target, offered, entries } = replayTarget();
    const replay = replaySaved(new UndeliveredStore(dir, 1_000_000), target)!;
    await turn();
    expect(offered.map((o) => o.index)).toEqual([0, 1, 2]);
    replay.stop();
    offered[0].deliver();
    // The client keeps a record that failed again before its promise rejects.
    expect(replay.keep(1)).toBe(true);
    offered[1].fail();
    offered[2].deliver();
    await turn();
    expect(replay.active).toBe(true);
    expect(claimedFiles()).toHaveLength(1);
    replay.finish();
    expect(replay.active).toBe(false);
    expect(claimedFiles()).toEqual([]);
    expect(savedLines()).toEqual(['saved 1']);
    // All were queued: nothing is said about records not re-sent.
    expect(entries.map((e) => e.message)).toEqual(['re-sending 3 records saved in persistDir by an earlier process']);
  });

  it('stopped before its first batch: queues nothing, and finish() writes every record back and says how many were never re-sent', async () => {
    saveBacklog(4, 2);
    const { target, offered, entries } = replayTarget();
    const replay = replaySaved(new UndeliveredStore(dir, 1_000_000), target)!;
    replay.stop();
    await turn();
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(offered).toEqual([]);
    expect(replay.active).toBe(true);
    replay.finish();
    expect(replay.active).toBe(false);
    expect(savedLines()).toEqual(['saved 0', 'saved 1', 'saved 2', 'saved 3']);
    expect(entries).toEqual([
      { level: 'info', message: 're-sending 4 records saved in persistDir by an earlier process', fields: { records: 4 } },
      { level: 'info', message: '4 saved records not re-sent yet stay in persistDir for the next start', fields: { records: 4 } },
    ]);
  });

  it('finished before its first batch (finish() without stop()): queues nothing afterwards, so no record is both sent and written back', async () => {
    saveBacklog(3, 3);
    const { target, offered } = replayTarget();
    const replay = replaySaved(new UndeliveredStore(dir, 1_000_000), target)!;
    replay.finish();
    await turn();
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(offered).toEqual([]);
    expect(savedLines()).toEqual(['saved 0', 'saved 1', 'saved 2']);
  });

  it('warns, naming how many, when what is left cannot be written back, and leaves the claimed file there unclaimed', async () => {
    saveBacklog(3, 3);
    const store = new UndeliveredStore(dir, 1_000_000);
    // A record of this process's own, saved before: the file the store writes to.
    expect(store.save([{ platform: 'sms', type: 'incoming', at: [2, 1], key: 'own-key', body: JSON.stringify({ text: 'own', userId: 'own-u' }) }])).toBe(1);
    const own = fs.readdirSync(dir).find((f) => f.startsWith(`records-${process.pid}-`))!;
    const earlier = fs.readFileSync(path.join(dir, 'records-1-earlier.ndjson'), 'utf8');
    const { target, offered, entries } = replayTarget();
    const replay = replaySaved(store, target)!;
    replay.stop();
    expect(claimedFiles()).toHaveLength(1);
    // That file can no longer be written to (a directory took its name).
    fs.rmSync(path.join(dir, own));
    fs.mkdirSync(path.join(dir, own));
    replay.finish();
    expect(offered).toEqual([]);
    expect(entries).toEqual([
      { level: 'info', message: 're-sending 3 records saved in persistDir by an earlier process', fields: { records: 3 } },
      {
        level: 'warn',
        message: 'could not write 3 saved records back to persistDir; the files they came from are left there for the next start, which may send some records twice',
        fields: { records: 3 },
      },
    ]);
    expect(fs.readdirSync(dir).sort()).toEqual([own, 'records-1-earlier.ndjson'].sort());
    expect(fs.readFileSync(path.join(dir, 'records-1-earlier.ndjson'), 'utf8')).toBe(earlier);
  });

  it('a saved record whose enqueue throws does not stop the replay: the next ones are queued, the replay ends, and that record stays for the next start', async () => {
    saveBacklog(3, 3);
    const tried: number[] = [];
    const { target } = replayTarget({
      enqueue: (_record, index) => {
        tried.push(index);
        if (index === 1) throw new Error('cannot queue this one');
        return Promise.resolve(DELIVERED);
      },
    });
    const replay = replaySaved(new UndeliveredStore(dir, 1_000_000), target)!;
    await turn();
    await turn();
    expect(tried).toEqual([0, 1, 2]);
    expect(replay.active).toBe(false);
    expect(claimedFiles()).toEqual([]);
    expect(savedLines()).toEqual(['saved 1']);
  });

  it('once finished, keep() refuses a record (returns false: the caller saves it itself) and writes nothing', async () => {
    saveBacklog(2, 2);
    const { target, offered } = replayTarget();
    const replay = replaySaved(new UndeliveredStore(dir, 1_000_000), target)!;
    await turn();
    expect(offered).toHaveLength(2);
    replay.stop();
    replay.finish();
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(replay.keep(0)).toBe(false);
    expect(replay.keep(1)).toBe(false);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("holds a new record only for a user whose saved records still wait to be queued, and sends it once they are", async () => {
    saveBacklog(2, 1);
    // maxQueueSize 4: one saved record queued per round, every 100 ms.
    const { target, offered } = replayTarget({ maxQueueSize: 4 });
    const replay = replaySaved(new UndeliveredStore(dir, 1_000_000), target)!;
    const other = heldRecord('other', 'someone-else');
    expect(replay.holds('someone-else')).toBe(false);
    expect(replay.hold('someone-else', other.record)).toBe(false);
    const mine = heldRecord('live', 'saved-u0');
    expect(replay.holds('saved-u0')).toBe(true);
    expect(replay.hold('saved-u0', mine.record)).toBe(true);
    expect(replay.held()).toBe(1);
    await turn();
    expect(offered.map((o) => o.text)).toEqual(['saved 0']);
    expect(mine.calls).toEqual([]);
    await waitFor(() => offered.length === 2);
    expect(mine.calls).toEqual(['send']);
    expect(replay.held()).toBe(0);
    // Nothing of that user waits any more: their next record is not held.
    expect(replay.holds('saved-u0')).toBe(false);
    expect(replay.hold('saved-u0', heldRecord('live 2', 'saved-u0').record)).toBe(false);
    expect(other.calls).toEqual([]);
    for (const o of offered) o.deliver();
    await turn();
    expect(replay.active).toBe(false);
  });

  it("finish() saves records held behind their user's saved ones after them; one that does not fit under maxBytes is given up", async () => {
    saveBacklog(1, 1);
    const lineBytes = (at: [number, number], key: string, body: object) => Buffer.byteLength(`${JSON.stringify({ platform: 'sms', type: 'incoming', at, key, body })}\n`);
    // Room for the saved record written back (after a blank line) and, in a second write, one held record only.
    const maxBytes = 1 + lineBytes([1, 1], 'saved-k0', { text: 'saved 0', userId: 'saved-u0' }) + 1 + lineBytes([2, 1], 'held-live 0', { text: 'live 0', userId: 'saved-u0' });
    const { target, offered } = replayTarget();
    const replay = replaySaved(new UndeliveredStore(dir, maxBytes), target)!;
    const first = heldRecord('live 0', 'saved-u0');
    const second = heldRecord('live 1', 'saved-u0');
    expect(replay.hold('saved-u0', first.record)).toBe(true);
    expect(replay.hold('saved-u0', second.record)).toBe(true);
    replay.stop();
    replay.finish();
    expect(offered).toEqual([]);
    expect(first.calls).toEqual(['saved']);
    expect(second.calls).toEqual(['lost']);
    expect(replay.held()).toBe(0);
    expect(savedLines()).toEqual(['saved 0', 'live 0']);
  });

  it('paces a backlog a round every 100 ms and plans no round after the one that queues the last record', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'setInterval', 'clearInterval'] });
    try {
      saveBacklog(3, 3);
      // maxQueueSize 4: batches of one record.
      const { target, offered, queueLooks } = replayTarget({ maxQueueSize: 4 });
      const replay = replaySaved(new UndeliveredStore(dir, 1_000_000), target)!;
      vi.advanceTimersByTime(0);
      expect(offered.map((o) => o.index)).toEqual([0]);
      vi.advanceTimersByTime(99);
      expect(offered).toHaveLength(1);
      vi.advanceTimersByTime(1);
      expect(offered.map((o) => o.index)).toEqual([0, 1]);
      vi.advanceTimersByTime(100);
      expect(offered.map((o) => o.index)).toEqual([0, 1, 2]);
      expect(queueLooks()).toBe(3);
      // Left: the claimed file's toucher only.
      expect(vi.getTimerCount()).toBe(1);
      vi.advanceTimersByTime(1_000);
      expect(queueLooks()).toBe(3);
      replay.stop();
      replay.finish();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
