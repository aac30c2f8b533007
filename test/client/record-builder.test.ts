/**
 * From a log call to a record ready to send: the spec checked before and after the user's hooks,
 * the hooks' results taken or kept, maxBodyBytes counted in UTF-8 bytes, and every access token
 * seen (logged, or put in by a hook) kept out of what the client reports.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrackingClient, TrackingValidationError, type TrackingClientOptions, type TrackingError } from '../../src/index.js';
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

function make(options: TrackingClientOptions = {}): TrackingClient {
  client = new TrackingClient({ apiKey: 'builder-key-1', baseUrl: sink.url, logger: false, initialBackoffMs: 5, maxBackoffMs: 10, ...options });
  return client;
}

async function refusal(promise: Promise<unknown>): Promise<TrackingValidationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TrackingValidationError);
  return error as TrackingValidationError;
}

const outgoing = (token: string, psid = 'psid-1') => ({ json: { recipient: { id: psid }, message: { text: 'hi' } }, qs: { access_token: token }, uri: 'https://graph.example/me/messages' });

describe('maxBodyBytes', () => {
  it('counts UTF-8 bytes: a record of exactly maxBodyBytes is sent, one byte more is refused naming both sizes', async () => {
    const c = make({ maxBodyBytes: 100 });
    const overhead = JSON.stringify({ text: '', userId: 'u' }).length;
    await expect(c.sms.logIncoming({ text: 'a'.repeat(100 - overhead), userId: 'u' })).resolves.toMatchObject({ status: 'delivered' });
    const error = await refusal(c.sms.logIncoming({ text: 'a'.repeat(101 - overhead), userId: 'u' }));
    expect(error.message).toBe('The sms incoming record does not conform to the tracking spec and was not sent: (root): expected at most 100 bytes of JSON (maxBodyBytes), got 101 bytes');
    expect(sink.requests).toHaveLength(1);
  });

  it('refuses a record with fewer characters than maxBodyBytes when its UTF-8 bytes are more', async () => {
    const c = make({ maxBodyBytes: 100 });
    const error = await refusal(c.sms.logIncoming({ text: '€'.repeat(60), userId: 'u' })); // 60 characters, 180 bytes
    expect(error.issues).toEqual([{ path: '(root)', expected: 'at most 100 bytes of JSON (maxBodyBytes)', received: `${Buffer.byteLength(JSON.stringify({ text: '€'.repeat(60), userId: 'u' }))} bytes` }]);
  });

  it('sends a record whose characters times three pass maxBodyBytes while its bytes do not', async () => {
    const c = make({ maxBodyBytes: 100 });
    await expect(c.sms.logIncoming({ text: 'a'.repeat(60), userId: 'u' })).resolves.toMatchObject({ status: 'delivered' });
    expect(sink.requests[0].body.text).toBe('a'.repeat(60));
  });
});

describe('the hooks', () => {
  it('redact returning nothing keeps the record it changed; returning a record sends that one', async () => {
    const c = make({ redact: (record) => (record.platform === 'sms' ? undefined : { ...record, body: { ...(record.body as object), text: 'replaced' } }) });
    await c.sms.logIncoming({ text: 'kept', userId: 'u' });
    await c.universal.logIncoming({ text: 'original', userId: 'u' });
    expect(sink.requests.map((r) => r.body.text)).toEqual(['kept', 'replaced']);
  });

  it('beforeSend returning nothing keeps the record; returning null skips it as dropped-by-before-send', async () => {
    const c = make({ beforeSend: (record) => ((record.body as { text: string }).text === 'drop' ? null : undefined) });
    await expect(c.sms.logIncoming({ text: 'drop', userId: 'u' })).resolves.toEqual({ status: 'skipped', reason: 'dropped-by-before-send' });
    await expect(c.sms.logIncoming({ text: 'send', userId: 'u' })).resolves.toMatchObject({ status: 'delivered' });
    expect(sink.requests.map((r) => r.body.text)).toEqual(['send']);
  });

  it('beforeSend runs after redact and sees its result', async () => {
    const seen: string[] = [];
    const c = make({
      redact: (record) => ({ ...record, body: { ...(record.body as object), text: 'redacted' } }),
      beforeSend: (record) => void seen.push((record.body as { text: string }).text),
    });
    await c.sms.logIncoming({ text: 'secret', userId: 'u' });
    expect(seen).toEqual(['redacted']);
    expect(sink.requests[0].body.text).toBe('redacted');
  });

  it('a hook that breaks the record is refused naming the fields, after redact/beforeSend', async () => {
    const c = make({ redact: (record) => ({ ...record, body: { text: 5 } }) });
    const error = await refusal(c.sms.logIncoming({ text: 'x', userId: 'u' }));
    expect(error.message).toMatch(/^The sms incoming record \(after redact\/beforeSend\) does not conform to the tracking spec and was not sent: /);
    expect(error.issues.map((i) => i.path).sort()).toEqual(['text', 'userId']);
    expect(sink.requests).toHaveLength(0);
  });

  it('a hook that throws refuses the record with the error\'s message', async () => {
    const c = make({
      beforeSend: () => {
        throw new Error('hook broke');
      },
    });
    const error = await refusal(c.sms.logIncoming({ text: 'x', userId: 'u' }));
    expect(error.message).toBe('The sms incoming record does not conform to the tracking spec and was not sent: (hook): expected redact/beforeSend to return a record, got an error (hook broke)');
    const throwsText = make({
      redact: () => {
        throw 'plain text';
      },
    });
    expect((await refusal(throwsText.sms.logIncoming({ text: 'x', userId: 'u' }))).issues[0].received).toBe('an error (plain text)');
    const throwsNull = make({
      redact: () => {
        throw null;
      },
    });
    expect((await refusal(throwsNull.sms.logIncoming({ text: 'x', userId: 'u' }))).issues[0].received).toBe('an error (null)');
  });

  it('an invalid record is refused before any hook sees it', async () => {
    let calls = 0;
    const c = make({ redact: () => void calls++, beforeSend: () => void calls++, ignoreUsers: () => (calls++, false) });
    const error = await refusal(c.sms.logIncoming({ text: 'x' } as never));
    expect(error.message).toMatch(/^The sms incoming record does not conform/);
    expect(calls).toBe(0);
  });

  it('a body that cannot be serialized is refused, naming the error', async () => {
    const c = make();
    const error = await refusal(c.sms.logIncoming({ text: 'x', userId: 'u', extra: 10n } as never));
    expect(error.issues).toEqual([{ path: '(root)', expected: 'JSON-serializable data (no cycles, no BigInt)', received: 'TypeError' }]);
    expect(error.message).toBe('The sms incoming record does not conform to the tracking spec and was not sent: (root): expected JSON-serializable data (no cycles, no BigInt), got TypeError');
  });
});

describe('ignoreUsers', () => {
  it('a predicate must return true to skip: a truthy value or a throw sends the record', async () => {
    const c = make({
      ignoreUsers: (id) => {
        if (id === 'throws') throw new Error('predicate broke');
        return (id === 'truthy' ? 'yes' : id === 'skip') as boolean;
      },
    });
    await expect(c.sms.logIncoming({ text: 'x', userId: 'skip' })).resolves.toEqual({ status: 'skipped', reason: 'ignored-user' });
    await expect(c.sms.logIncoming({ text: 'x', userId: 'truthy' })).resolves.toMatchObject({ status: 'delivered' });
    await expect(c.sms.logIncoming({ text: 'x', userId: 'throws' })).resolves.toMatchObject({ status: 'delivered' });
    expect(sink.requests.map((r) => r.body.userId)).toEqual(['truthy', 'throws']);
  });

  it('a predicate also sees the record, and a list skips only the users on it', async () => {
    const seen: Array<{ type: string; platform: string }> = [];
    const c = make({ ignoreUsers: (_id, record) => (seen.push({ type: record.type, platform: record.platform }), false) });
    await c.sms.logIncoming({ text: 'x', userId: 'u' });
    expect(seen).toEqual([{ type: 'incoming', platform: 'sms' }]);
    const list = make({ ignoreUsers: ['a', 'b'] });
    await expect(list.sms.logIncoming({ text: 'x', userId: 'b' })).resolves.toEqual({ status: 'skipped', reason: 'ignored-user' });
    await expect(list.sms.logIncoming({ text: 'x', userId: 'c' })).resolves.toMatchObject({ status: 'delivered' });
  });
});

describe("each user's lane", () => {
  it('sends the records of two users at once: a slow answer for one does not hold up the other', async () => {
    sink.behave(() => ({ delayMs: 300 }));
    const c = make();
    const sent = [c.sms.logIncoming({ text: 'a', userId: 'user-a' }), c.sms.logIncoming({ text: 'b', userId: 'user-b' })];
    await new Promise((r) => setTimeout(r, 150));
    expect(sink.requests.map((r) => r.body.userId).sort()).toEqual(['user-a', 'user-b']);
    await Promise.all(sent);
  });
});

describe('access tokens', () => {
  function collect(): { errors: TrackingError[]; onError: (e: TrackingError) => void } {
    const errors: TrackingError[] = [];
    return { errors, onError: (e) => void errors.push(e) };
  }

  it('the token of a messenger outgoing record is masked when the endpoint echoes it back; other records carry none', async () => {
    sink.behave((request) => ({ status: 400, body: `rejected ${request.body?.qs?.access_token ?? request.body?.text}` }));
    const { errors, onError } = collect();
    const c = make({ onError });
    await c.messenger.logOutgoing(outgoing('EAAGtoken-one')).catch(() => undefined);
    await c.sms.logIncoming({ text: 'EAAGtoken-two', userId: 'u' }).catch(() => undefined);
    expect(errors).toHaveLength(2);
    expect(errors[0].message).toContain('rejected ***');
    expect(errors[0].message).not.toContain('EAAGtoken-one');
    // Text in an sms record is not a token the client has seen: it is not masked.
    expect(errors[1].message).toContain('rejected EAAGtoken-two');
  });

  it('only the page token of a messenger outgoing record is taken for one, not a qs.access_token in any other record', async () => {
    sink.behave((request) => ({ status: 400, body: `rejected ${request.body?.qs?.access_token}` }));
    const { errors, onError } = collect();
    const c = make({ onError });
    await c.sms.logOutgoing({ text: 'x', userId: 'u', qs: { access_token: 'sms-field-1' } } as never).catch(() => undefined);
    const incoming = { object: 'page', entry: [{ id: 'P', time: 1, messaging: [{ sender: { id: 'S' }, recipient: { id: 'P' }, timestamp: 1 }] }], qs: { access_token: 'incoming-field-2' } };
    await c.messenger.logIncoming(incoming as never).catch(() => undefined);
    expect(errors.map((e) => e.message.match(/rejected ([\w-]+)/)?.[1])).toEqual(['sms-field-1', 'incoming-field-2']);
  });

  it('a token a hook puts into a record is masked too', async () => {
    sink.behave((request) => ({ status: 400, body: `rejected ${request.body?.qs?.access_token}` }));
    const { errors, onError } = collect();
    const c = make({ onError, beforeSend: (record) => ({ ...record, body: { ...(record.body as object), qs: { access_token: 'EAAGfrom-hook' } } }) });
    await c.messenger.logOutgoing(outgoing('EAAGlogged')).catch(() => undefined);
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toContain('rejected ***');
    expect(errors[0].message).not.toContain('EAAGfrom-hook');
  });

  it('a messenger outgoing record without an access token is refused and reported as any other', async () => {
    sink.behave(() => ({ status: 400, body: 'no token here' }));
    const { errors, onError } = collect();
    const c = make({ onError });
    await c.messenger.logOutgoing({ json: { recipient: { id: 'psid-1' }, message: { text: 'hi' } }, uri: 'https://graph.example/me/messages' }).catch(() => undefined);
    await c.sms.logIncoming({ text: 'x', userId: 'u' }).catch(() => undefined);
    expect(errors.map((e) => e.message.includes('no token here'))).toEqual([true, true]);
  });

  it('an empty token masks nothing', async () => {
    sink.behave(() => ({ status: 400, body: 'plain words' }));
    const { errors, onError } = collect();
    const c = make({ onError });
    await c.messenger.logOutgoing(outgoing('')).catch(() => undefined);
    expect(errors[0].message).toContain('plain words');
  });
});
