/**
 * Each record's idempotency key, as a real HTTP server sees it: one key per record, sent as the
 * `Idempotency-Key` header of every attempt (retries after a 504, a 503 or a lost connection), and
 * kept with the record in `persistDir`, so that a client started after a restart sends it with the
 * same key. The endpoint stores a record once per key (endpoint/test/api/track-idempotency.test.ts).
 */
import axios from 'axios';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAxiosTransport, createNodeHttpTransport, TrackingClient, type TrackingClientOptions, type Transport } from '../../src/index.js';
import { startSink, type ReceivedRequest, type Sink } from '../helpers/sink.js';

const KEY = 'idempotency-key-31';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let sink: Sink;
let dir: string;
let clients: TrackingClient[] = [];
beforeEach(async () => {
  sink = await startSink();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idempotency-'));
});
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close(500)));
  clients = [];
  await sink.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function client(options: TrackingClientOptions = {}): TrackingClient {
  const c = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger: false, initialBackoffMs: 5, maxBackoffMs: 10, ...options });
  clients.push(c);
  return c;
}

const keyOf = (request: ReceivedRequest) => request.headers['idempotency-key'];
const textOf = (request: ReceivedRequest) => (request.body as { text: string }).text;

/** The keys the sink received, by the text of the record they came with. */
function keysByText(): Map<string, (string | string[] | undefined)[]> {
  const keys = new Map<string, (string | string[] | undefined)[]>();
  for (const request of sink.requests) keys.set(textOf(request), [...(keys.get(textOf(request)) ?? []), keyOf(request)]);
  return keys;
}

const transports: [string, () => Transport][] = [
  ['node:http', () => createNodeHttpTransport()],
  ['axios', () => createAxiosTransport({ axios: axios.create() })],
];

describe.each(transports)('the Idempotency-Key header over %s', (_name, makeTransport) => {
  it('is the same on every attempt of a record (after a 504, a 503, a reset connection), and differs between records', async () => {
    const failures = new Map<string, number>();
    sink.behave((request) => {
      const n = failures.get(textOf(request)) ?? 0;
      failures.set(textOf(request), n + 1);
      if (n === 0) return { status: 504, body: '{"ok":false}' };
      if (n === 1) return { reset: true };
      if (n === 2) return { status: 503, body: '{"ok":false}' };
      return undefined;
    });
    const c = client({ transport: makeTransport() });
    const results = await Promise.all(['one', 'two', 'three'].map((text) => c.sms.logIncoming({ text, userId: `u-${text}` })));
    expect(results.map((result) => result.status === 'delivered' && result.attempts)).toEqual([4, 4, 4]);
    const keys = keysByText();
    for (const text of ['one', 'two', 'three']) {
      const sent = keys.get(text)!;
      expect(sent).toHaveLength(4);
      expect(sent[0]).toMatch(UUID);
      expect(new Set(sent).size).toBe(1);
    }
    expect(new Set([...keys.values()].map((sent) => sent[0])).size).toBe(3);
  });
});

describe('the Idempotency-Key of a record saved to persistDir', () => {
  it('is the one its earlier attempts were sent with, when a client started after a restart sends it', async () => {
    sink.behave(() => ({ status: 504, body: '{"ok":false}' }));
    const first = client({ persistDir: dir, maxAttempts: 2 });
    const outcome = await first.sms.logIncoming({ text: 'kept', userId: 'u1' }).catch((error: { reason: string }) => error.reason);
    expect(outcome).toBe('persisted');
    await first.close(500);
    const before = sink.requests.map(keyOf);
    expect(before).toHaveLength(2);
    expect(before[0]).toMatch(UUID);
    expect(before[1]).toBe(before[0]);

    sink.behave(() => undefined);
    const restarted = client({ persistDir: dir });
    await waitFor(() => sink.requests.length === 3);
    await restarted.flush({ timeoutMs: 2_000 });
    expect(textOf(sink.requests[2])).toBe('kept');
    expect(keyOf(sink.requests[2])).toBe(before[0]);
  });

  it('stays its key across more than one restart, and a record saved at a full queue (never sent) is sent with the key saved with it', async () => {
    sink.behave(() => ({ status: 503, body: '{"ok":false}' }));
    const first = client({ persistDir: dir, maxAttempts: 1, maxQueueSize: 1 });
    const [sent, unsent] = await Promise.allSettled([first.sms.logIncoming({ text: 'sent', userId: 'u1' }), first.sms.logIncoming({ text: 'unsent', userId: 'u2' })]);
    expect([sent.status, unsent.status]).toEqual(['rejected', 'rejected']);
    await first.close(500);
    expect(sink.requests.map(textOf)).toEqual(['sent']);
    const saved = fs.readdirSync(dir).flatMap((file) => fs.readFileSync(path.join(dir, file), 'utf8').split('\n').filter((line) => line.trim() !== '')).map((line) => JSON.parse(line) as { key: string; body: { text: string } });
    const savedKeys = new Map(saved.map((line) => [line.body.text, line.key]));
    expect(savedKeys.get('sent')).toBe(keyOf(sink.requests[0]));
    expect(savedKeys.get('unsent')).toMatch(UUID);
    expect(savedKeys.get('unsent')).not.toBe(savedKeys.get('sent'));

    // A second process fails too (its attempts saved again), then a third delivers.
    const second = client({ persistDir: dir, maxAttempts: 1 });
    await waitFor(() => sink.requests.length === 3);
    await second.close(500);
    sink.behave(() => undefined);
    const third = client({ persistDir: dir });
    await waitFor(() => sink.requests.length === 5);
    await third.flush({ timeoutMs: 2_000 });
    const keys = keysByText();
    expect(keys.get('sent')).toEqual([savedKeys.get('sent'), savedKeys.get('sent'), savedKeys.get('sent')]);
    expect(keys.get('unsent')).toEqual([savedKeys.get('unsent'), savedKeys.get('unsent')]);
  });

  it('is kept for a new record held behind its user\'s saved ones and saved when the client closes', async () => {
    sink.behave(() => ({ status: 503, body: '{"ok":false}' }));
    const first = client({ persistDir: dir, maxAttempts: 1 });
    await first.sms.logIncoming({ text: 'saved first', userId: 'u1' }).catch(() => undefined);
    await first.close(500);
    // The endpoint answers slowly: the saved record is in flight when the new one comes, which waits behind it.
    sink.behave(() => ({ status: 503, body: '{"ok":false}', delayMs: 200 }));
    const second = client({ persistDir: dir, maxAttempts: 1 });
    const held = second.sms.logIncoming({ text: 'held', userId: 'u1' }).catch((error: { reason: string; message: string }) => error);
    await second.close(50);
    expect(await held).toMatchObject({ reason: 'persisted', message: expect.stringContaining("waited behind its user's records saved by an earlier process") });
    const heldLine = fs.readdirSync(dir).flatMap((file) => fs.readFileSync(path.join(dir, file), 'utf8').split('\n')).find((line) => line.includes('"held"'));
    const heldKey = (JSON.parse(heldLine!) as { key: string }).key;
    expect(heldKey).toMatch(UUID);
    sink.behave(() => undefined);
    const third = client({ persistDir: dir });
    await waitFor(() => sink.requests.some((request) => textOf(request) === 'held'));
    await third.flush({ timeoutMs: 2_000 });
    expect(keyOf(sink.requests.find((request) => textOf(request) === 'held')!)).toBe(heldKey);
  });
});

async function waitFor(check: () => boolean, ms = 10_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
