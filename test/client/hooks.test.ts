import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrackingClient, type TrackingClientOptions, type TrackingError } from '../../src/index.js';
import { startSink, type Sink } from '../helpers/sink.js';

let sink: Sink;
let client: TrackingClient | undefined;

beforeEach(async () => {
  sink = await startSink();
});

afterEach(async () => {
  await client?.close();
  client = undefined;
  await sink.close();
});

function make(options: TrackingClientOptions): TrackingClient {
  client = new TrackingClient({ apiKey: 'hooks-key-1', baseUrl: sink.url, logger: false, initialBackoffMs: 5, ...options });
  return client;
}

describe('hooks', () => {
  it('redact scrubs a record before it is sent', async () => {
    const c = make({
      redact: (record) => {
        const body = record.body as { text: string };
        body.text = body.text.replace(/\d{4}-\d{4}/g, '[card]');
      },
    });
    await c.sms.logIncoming({ text: 'my card is 1234-5678', userId: 'u' });
    expect(sink.requests[0].body.text).toBe('my card is [card]');
  });

  it('ignoreUsers as a list skips those users, resolving as skipped', async () => {
    const c = make({ ignoreUsers: ['tester'] });
    await expect(c.sms.logIncoming({ text: 'x', userId: 'tester' })).resolves.toEqual({ status: 'skipped', reason: 'ignored-user' });
    await c.sms.logIncoming({ text: 'x', userId: 'real' });
    await c.messenger.logOutgoing({ json: { recipient: { id: 'tester' }, message: { text: 'x' } } });
    expect(sink.requests.map((r) => r.body.userId)).toEqual(['real']);
  });

  it('ignoreUsers as a predicate sees the user id of every record family', async () => {
    const seen: string[] = [];
    const c = make({ ignoreUsers: (id) => (seen.push(id), id.startsWith('bot-')) });
    await c.logEvent({ type: 'customEvent', name: 'e', userId: 'bot-1' });
    await c.messenger.logIncoming({ object: 'page', entry: [{ id: 'P', time: 1, messaging: [{ sender: { id: 'bot-2' }, recipient: { id: 'P' }, timestamp: 1 }] }] });
    await c.universal.logIncoming({ text: 'x', userId: 'person' });
    expect(seen).toEqual(['bot-1', 'bot-2', 'person']);
    expect(sink.requests).toHaveLength(1);
  });

  it('beforeSend may change a record, and its result is validated again', async () => {
    const c = make({ beforeSend: (record) => ({ ...record, body: { ...(record.body as object), text: 'changed' } }) });
    await c.sms.logIncoming({ text: 'original', userId: 'u' });
    expect(sink.requests[0].body.text).toBe('changed');

    const breaking = make({ beforeSend: (record) => ({ ...record, body: { text: 'no user' } }) });
    await expect(breaking.sms.logIncoming({ text: 'x', userId: 'u' })).rejects.toMatchObject({ name: 'TrackingValidationError', issues: [{ path: 'userId' }] });
  });

  it('beforeSend returning null drops the record', async () => {
    const c = make({ beforeSend: (record) => ((record.body as { text: string }).text === 'drop me' ? null : record) });
    await expect(c.sms.logIncoming({ text: 'drop me', userId: 'u' })).resolves.toEqual({ status: 'skipped', reason: 'dropped-by-before-send' });
    await c.sms.logIncoming({ text: 'keep me', userId: 'u' });
    expect(sink.requests.map((r) => r.body.text)).toEqual(['keep me']);
  });

  it('a hook that throws refuses the record instead of throwing into the caller', async () => {
    const c = make({
      redact: () => {
        throw new Error('boom');
      },
    });
    const attempt = () => c.sms.logIncoming({ text: 'x', userId: 'u' });
    expect(attempt).not.toThrow();
    await expect(attempt()).rejects.toMatchObject({ name: 'TrackingValidationError', issues: [{ path: '(hook)' }] });
  });

  it('onError hears about every refused and given-up record, with the reason', async () => {
    const errors: TrackingError[] = [];
    sink.behave(() => ({ status: 400 }));
    const c = make({ onError: (error) => errors.push(error) });
    void c.sms.logIncoming({ text: 1 } as never);
    void c.sms.logIncoming({ text: 'x', userId: 'u' });
    await c.flush();
    expect(errors.map((e) => e.name)).toEqual(['TrackingValidationError', 'TrackingDeliveryError']);
    expect(errors[1]).toMatchObject({ reason: 'rejected', status: 400 });
  });
});

describe('promises nobody awaits', () => {
  it('never become unhandled rejections', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      sink.behave(() => ({ status: 500 }));
      const c = make({ maxAttempts: 2, maxQueueSize: 2 });
      c.sms.logIncoming({ text: 1 } as never); // invalid
      c.sms.logIncoming({ text: 'a', userId: 'u' }); // given up after retries
      c.sms.logIncoming({ text: 'b', userId: 'u' });
      c.sms.logIncoming({ text: 'c', userId: 'u' }); // queue full
      await c.close();
      c.sms.logIncoming({ text: 'd', userId: 'u' }); // after close
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(c.stats()).toMatchObject({ failed: 2, dropped: 2 });
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });
});

describe('defer', () => {
  it('runs tasks after the caller returns, and flush() runs pending tasks first', async () => {
    const c = make({});
    const order: string[] = [];
    c.defer(() => {
      order.push('task');
      void c.sms.logIncoming({ text: 'deferred', userId: 'u' });
    });
    order.push('caller');
    await c.flush();
    expect(order).toEqual(['caller', 'task']);
    expect(sink.requests.map((r) => r.body.text)).toEqual(['deferred']);
  });

  it('refuses tasks after close(), counting and reporting them', async () => {
    const errors: string[] = [];
    const c = make({ onError: (e) => errors.push((e as { reason?: string }).reason ?? e.name) });
    await c.close();
    let ran = false;
    c.defer(() => void (ran = true));
    await new Promise((r) => setImmediate(r));
    expect(ran).toBe(false);
    expect(c.stats().dropped).toBe(1);
    expect(errors).toEqual(['client-closed']);
  });

  it('reports a task that throws instead of rethrowing it', async () => {
    const errors: string[] = [];
    const c = make({ onError: (e) => errors.push(e.message) });
    c.defer(() => {
      throw new Error('mapping failed');
    });
    await c.flush();
    expect(errors).toEqual([expect.stringContaining('mapping failed')]);
  });
});
