/**
 * The delivery queue driven directly, with a transport of the test's own that holds each request
 * until the test answers it: what each attempt's outcome tells the debug log (`onAttempt`), what is
 * pending by kind (`pendingBy`, for the line said when a process ends), the hint a record given up
 * at the close deadline gets, and a flush result that stays as it was resolved.
 */
import { describe, expect, it } from 'vitest';
import { DeliveryQueue, QueuedRecord } from '../../src/client/delivery-queue.js';
import type { TrackingDeliveryError } from '../../src/client/errors.js';
import type { Transport, TransportRequest, TransportResponse } from '../../src/client/transport.js';

interface Held {
  request: TransportRequest;
  answer(response: TransportResponse): void;
  fail(error: Error): void;
}

function heldTransport(): Transport & { held: Held[] } {
  const held: Held[] = [];
  return { held, send: (request) => new Promise<TransportResponse>((resolve, reject) => held.push({ request, answer: resolve, fail: reject })) };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const URL = 'http://127.0.0.1:9/track?platform=sms&v=1&type=incoming&apiKey=k';
const target = { url: URL, label: 'sms incoming', platform: 'sms' as const, type: 'incoming' as const };
const settings = { maxQueueSize: 100, maxConcurrency: 8, requestTimeoutMs: 2_000, maxAttempts: 2, maxRetryDurationMs: 60_000, initialBackoffMs: 1, maxBackoffMs: 1, maxRetryAfterMs: 1_000 };

function setup(overrides: Partial<typeof settings> = {}) {
  const transport = heldTransport();
  const attempts: Array<{ text: string; outcome: Record<string, unknown> }> = [];
  const errors: TrackingDeliveryError[] = [];
  const queue = new DeliveryQueue(transport, { ...settings, ...overrides }, {
    scrub: (text) => text,
    excerpt: (text) => text,
    safeCause: (error) => error,
    onGiveUp: (error) => void errors.push(error),
    onAttempt: (record, outcome) => void attempts.push({ text: (JSON.parse(record.text) as { text: string }).text, outcome: { ...outcome } }),
  });
  let seq = 0;
  const add = (text: string, user = text) => {
    const record = new QueuedRecord(target, JSON.stringify({ text, userId: user }), user, ++seq, undefined, { resolve: () => undefined, reject: () => undefined });
    queue.enqueue(record);
    return record;
  };
  return { transport, queue, attempts, errors, add };
}

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });

describe('what each attempt tells the debug log', () => {
  it('delivered, refused, given up after its attempts, retried with its delay, and a failure without an answer', async () => {
    const { transport, queue, attempts } = setup();
    add4(queue);
    await tick();
    expect(transport.held).toHaveLength(4);
    transport.held[0].answer({ status: 200 });
    transport.held[1].answer({ status: 400 });
    transport.held[2].answer({ status: 503 });
    transport.held[3].fail(refused());
    await tick();
    expect(attempts.find((a) => a.text === 'ok')?.outcome).toEqual({ status: 200, attempt: 1 });
    expect(attempts.find((a) => a.text === 'bad')?.outcome).toEqual({ status: 400, attempt: 1 });
    expect(attempts.find((a) => a.text === 'busy')?.outcome).toEqual({ status: 503, error: undefined, attempt: 1, delayMs: expect.any(Number) });
    const down = attempts.find((a) => a.text === 'down')!.outcome;
    expect(down).toMatchObject({ status: undefined, attempt: 1, delayMs: expect.any(Number) });
    expect((down.error as Error).message).toContain('ECONNREFUSED');
    // Second attempts: maxAttempts 2 gives both up.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await tick();
    expect(transport.held).toHaveLength(6);
    transport.held[4].answer({ status: 503 });
    transport.held[5].fail(refused());
    await tick();
    expect(attempts.filter((a) => a.text === 'busy').at(-1)?.outcome).toEqual({ status: 503, error: undefined, attempt: 2 });
    expect(attempts.filter((a) => a.text === 'down').at(-1)?.outcome).toMatchObject({ status: undefined, attempt: 2 });
    expect(queue.size).toBe(0);
  });

  it('a retry that would pass maxRetryDurationMs: given up, told with its status and attempt, after a failure without an answer too', async () => {
    const { transport, queue, attempts, errors } = setup({ maxAttempts: 10, maxRetryDurationMs: 0.5, initialBackoffMs: 50, maxBackoffMs: 50 });
    const { add } = { add: (text: string) => queue.enqueue(new QueuedRecord(target, JSON.stringify({ text, userId: text }), text, 1, undefined, undefined)) };
    add('busy');
    add('down');
    await tick();
    transport.held[0].answer({ status: 500 });
    transport.held[1].fail(refused());
    await tick();
    expect(attempts.map((a) => [a.text, a.outcome.status, a.outcome.attempt, 'delayMs' in a.outcome])).toEqual([
      ['busy', 500, 1, false],
      ['down', undefined, 1, false],
    ]);
    expect(errors.map((e) => e.reason)).toEqual(['retry-budget-exceeded', 'retry-budget-exceeded']);
  });

  it('a failure that no retry can overcome (a TLS mismatch): given up at once, told with its error', async () => {
    const { transport, queue, attempts, errors } = setup();
    queue.enqueue(new QueuedRecord(target, '{"text":"tls","userId":"u"}', 'u', 1, undefined, undefined));
    await tick();
    transport.held[0].fail(Object.assign(new Error('wrong version number'), { code: 'ERR_SSL_WRONG_VERSION_NUMBER' }));
    await tick();
    expect(attempts).toHaveLength(1);
    expect(attempts[0].outcome).toEqual({ error: expect.any(Error), attempt: 1 });
    expect(errors.map((e) => e.reason)).toEqual(['rejected']);
  });

  function add4(queue: DeliveryQueue): void {
    for (const text of ['ok', 'bad', 'busy', 'down']) queue.enqueue(new QueuedRecord(target, JSON.stringify({ text, userId: text }), text, 1, undefined, undefined));
  }
});

describe('what is pending, by kind', () => {
  it('counts every unsettled record, in flight or waiting behind its user, once, by the kind given', async () => {
    const { transport, queue, add } = setup();
    add('a1', 'u1');
    add('a2', 'u1');
    add('b1', 'u2');
    await tick();
    expect(transport.held).toHaveLength(2);
    const kind = (record: QueuedRecord) => (JSON.parse(record.text) as { text: string }).text[0];
    expect(Object.fromEntries(queue.pendingBy(kind))).toEqual({ a: 2, b: 1 });
    transport.held[0].answer({ status: 200 });
    await tick();
    expect(Object.fromEntries(queue.pendingBy(kind))).toEqual({ a: 1, b: 1 });
  });
});

describe('the hint of a record given up at the close deadline', () => {
  it('none for a record never sent, or in flight with no failure seen; the failure\'s for one that failed', async () => {
    const { transport, queue } = setup({ maxConcurrency: 1, maxAttempts: 5, initialBackoffMs: 10_000, maxBackoffMs: 10_000 });
    queue.enqueue(new QueuedRecord(target, '{"text":"failed","userId":"u1"}', 'u1', 1, undefined, undefined));
    await tick();
    transport.held[0].answer({ status: 502 });
    await tick();
    // u1's record waits for its retry; u2's is sent, and in flight when the deadline comes; u3's never left the queue.
    queue.enqueue(new QueuedRecord(target, '{"text":"in flight","userId":"u2"}', 'u2', 2, undefined, undefined));
    queue.enqueue(new QueuedRecord(target, '{"text":"waiting","userId":"u3"}', 'u3', 3, undefined, undefined));
    await tick();
    const hints = new Map<string, string | undefined>();
    queue.abandon('close-deadline', (record, _attempts, _status, hint) => {
      hints.set((JSON.parse(record.text) as { text: string }).text, hint);
      return 'closed';
    });
    expect(hints.get('failed')).toEqual(expect.stringContaining('502'));
    expect(hints.get('in flight')).toBeUndefined();
    expect(hints.get('waiting')).toBeUndefined();
  });

  it('after a failure without an answer, a record in flight since gets that failure\'s hint', async () => {
    const { transport, queue } = setup({ maxAttempts: 5, initialBackoffMs: 10_000, maxBackoffMs: 10_000 });
    queue.enqueue(new QueuedRecord(target, '{"text":"refused","userId":"u1"}', 'u1', 1, undefined, undefined));
    queue.enqueue(new QueuedRecord(target, '{"text":"sent","userId":"u2"}', 'u2', 2, undefined, undefined));
    await tick();
    transport.held[0].fail(refused());
    await tick();
    const hints = new Map<string, string | undefined>();
    queue.abandon('close-deadline', (record, _a, _s, hint) => {
      hints.set((JSON.parse(record.text) as { text: string }).text, hint);
      return 'closed';
    });
    expect(hints.get('refused')).toEqual(expect.stringContaining('Nothing is listening at http://127.0.0.1:9'));
    expect(hints.get('sent')).toEqual(hints.get('refused'));
  });
});

describe('a refusal', () => {
  it('of HTTP 407 comes with the hint about a proxy', async () => {
    const { transport, queue, errors } = setup();
    queue.enqueue(new QueuedRecord(target, '{"text":"x","userId":"u"}', 'u', 1, undefined, undefined));
    await tick();
    transport.held[0].answer({ status: 407 });
    await tick();
    expect(errors[0].message).toMatch(/refused the sms incoming record \(HTTP 407\); it is not retried\. \S/);
    expect(errors[0].message.toLowerCase()).toContain('proxy');
  });
});

describe('a flush that timed out', () => {
  it('keeps the result it resolved with: records settled later do not change it', async () => {
    const { transport, queue, add } = setup();
    add('a');
    const result = await queue.flush(10);
    expect(result).toEqual({ delivered: 0, givenUp: 0, saved: 0, pending: 1 });
    await tick();
    transport.held[0].answer({ status: 200 });
    await queue.flush();
    expect(result).toEqual({ delivered: 0, givenUp: 0, saved: 0, pending: 1 });
  });
});
