import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { KEY, Q, message, request, start, track } from '../helpers.js';

let endpoint: TrackingEndpoint;
beforeAll(async () => {
  endpoint = await start({ maxBodyBytes: 4096 });
});
afterAll(() => endpoint.close());

describe('401: the API key', () => {
  it('refuses a request without apiKey', async () => {
    const { apiKey: _omit, ...query } = Q.universalIn;
    const res = await track(endpoint, query, message('u1', 'hi'));
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ ok: false, problems: [{ path: 'apiKey', received: 'missing' }] });
  });

  it('refuses the placeholder <API_KEY>', async () => {
    const res = await track(endpoint, { ...Q.universalIn, apiKey: '<API_KEY>' }, message('u1', 'hi'));
    expect(res.status).toBe(401);
    expect(res.body.problems).toEqual([{ path: 'apiKey', expected: 'a real API key, not a placeholder such as <API_KEY>', received: 'placeholder' }]);
  });

  it('refuses a key the endpoint was not started with', async () => {
    const res = await track(endpoint, { ...Q.universalIn, apiKey: 'some-other-key' }, message('u1', 'hi'));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      ok: false,
      error: 'Unknown API key: use one of the keys this endpoint was started with (--key).',
      problems: [{ path: 'apiKey', expected: 'a key this endpoint accepts', received: 'an unknown key' }],
    });
  });

  it('says a real key is required when the key is missing, empty or a placeholder', async () => {
    for (const apiKey of [undefined, '', '<API_KEY>']) {
      const { apiKey: _omit, ...query } = Q.universalIn;
      const res = await track(endpoint, apiKey === undefined ? query : { ...query, apiKey }, message('u1', 'hi'));
      expect(res.body.error).toBe('A real API key is required in the apiKey query parameter.');
    }
  });

  it('checks the key before the body: a bad key with a bad body is still 401', async () => {
    const res = await track(endpoint, { ...Q.universalIn, apiKey: 'nope' }, 'not json');
    expect(res.status).toBe(401);
  });
});

describe('with no keys configured', () => {
  let open: TrackingEndpoint;
  beforeAll(async () => {
    open = await start({ apiKeys: [] });
  });
  afterAll(() => open.close());

  it('accepts any key that is not a placeholder', async () => {
    expect(open.acceptsAnyKey).toBe(true);
    expect((await track(open, { ...Q.universalIn, apiKey: 'whatever-key' }, message('u1', 'hi'))).status).toBe(200);
  });

  it.each(['<API_KEY>', '{api_key}', '$TRACKING_API_KEY', ''])('still refuses the placeholder %j', async (apiKey) => {
    expect((await track(open, { ...Q.universalIn, apiKey }, message('u1', 'hi'))).status).toBe(401);
  });
});

describe('405, 404: methods and paths', () => {
  it.each(['GET', 'PUT', 'DELETE'])('answers %s /track with 405 and Allow: POST', async (method) => {
    const res = await request(endpoint, `/track?${new URLSearchParams(Q.universalIn)}`, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.body.ok).toBe(false);
  });

  it('answers an unknown path with 404 and a JSON body', async () => {
    const res = await request(endpoint, '/v1/track', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ ok: false, error: expect.stringContaining('/v1/track') });
  });
});

describe('415: Content-Type', () => {
  it.each([['text/plain'], ['application/x-www-form-urlencoded'], ['application/jsonp']])('refuses %s', async (type) => {
    const res = await track(endpoint, Q.universalIn, message('u1', 'hi'), { 'content-type': type });
    expect(res.status).toBe(415);
    expect(res.body.error).toMatch(/application\/json/);
  });

  it('refuses a request without Content-Type', async () => {
    const res = await request(endpoint, `/track?${new URLSearchParams(Q.universalIn)}`, { method: 'POST', body: new Uint8Array(Buffer.from('{"text":"hi","userId":"u"}')) });
    expect(res.status).toBe(415);
  });
});

/** Sends `size` bytes in 1 KiB chunks without a Content-Length (chunked), returns status and body. */
function postChunked(size: number): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${endpoint.url}/track?${new URLSearchParams(Q.universalIn)}`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

describe('413: body size', () => {
  it('refuses a body whose Content-Length is over the limit', async () => {
    const res = await track(endpoint, Q.universalIn, message('u1', 'x'.repeat(5000)));
    expect(res.status).toBe(413);
    expect(res.body.error).toMatch(/4096 bytes/);
  });

  it('refuses a streamed body as soon as it passes the limit', async () => {
    const res = await postChunked(64 * 1024);
    expect(res.status).toBe(413);
    expect(res.body.ok).toBe(false);
  });

  it('accepts a body just under the limit', async () => {
    const body = JSON.stringify(message('u1', ''));
    const text = 'y'.repeat(4096 - body.length);
    expect((await track(endpoint, Q.universalIn, message('u1', text))).status).toBe(200);
  });
});

describe('400: body not JSON', () => {
  it.each([['not json at all'], ['{"text": "hi", '], ['']])('refuses %j', async (body) => {
    const res = await track(endpoint, Q.universalIn, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/not valid JSON/);
  });

  it('refuses a body nested deeper than the limit', async () => {
    const deep = `{"text":"hi","userId":"u1","platformJson":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}`;
    const res = await track(endpoint, Q.universalIn, deep);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/more than 64 levels/);
  });
});

describe('400: query string', () => {
  it('lists every missing parameter', async () => {
    const res = await track(endpoint, { apiKey: KEY }, message('u1', 'hi'));
    expect(res.status).toBe(400);
    expect(res.body.problems.map((p: { path: string }) => p.path)).toEqual(['type', 'platform', 'v']);
  });

  it('refuses an unknown platform, naming the allowed ones', async () => {
    const res = await track(endpoint, { ...Q.universalIn, platform: 'telegram' }, message('u1', 'hi'));
    expect(res.body.problems).toEqual([{ path: 'platform', expected: 'one of "sms", "universal", "twitter", "facebook"', received: '"telegram"' }]);
  });

  it('refuses an unknown type', async () => {
    const res = await track(endpoint, { ...Q.universalIn, type: 'message' }, message('u1', 'hi'));
    expect(res.status).toBe(400);
    expect(res.body.problems[0]).toMatchObject({ path: 'type', received: '"message"' });
  });

  it('refuses a parameter given twice', async () => {
    const res = await request(endpoint, `/track?${new URLSearchParams(Q.universalIn)}&platform=sms`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message('u1', 'hi')),
    });
    expect(res.status).toBe(400);
    expect(res.body.problems).toEqual([{ path: 'platform', expected: 'given once', received: 'given 2 times' }]);
  });

  it.each([
    ['v', `&v=${Q.universalIn.v}`],
    ['type', `&type=${Q.universalIn.type}`],
    ['apiKey', `&apiKey=${KEY}`],
  ])('refuses duplicate %s query parameters (400), even when both say the same, and stores nothing', async (name, repeat) => {
    const before = await endpoint.store.count();
    const res = await request(endpoint, `/track?${new URLSearchParams(Q.universalIn)}${repeat}${repeat}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message('u1', 'hi')),
    });
    expect(res.status).toBe(400);
    expect(res.body.problems).toEqual([{ path: name, expected: 'given once', received: 'given 3 times' }]);
    expect(await endpoint.store.count()).toBe(before);
  });
});

describe('400: the version rule', () => {
  it.each([
    ['universal message with 11.1.0-rest', { ...Q.universalIn, v: '11.1.0-rest' }, '"10.1.1-rest"'],
    ['sms message with 10.1.1-rest', { ...Q.smsIn, v: '10.1.1-rest' }, '"11.1.0-rest"'],
    ['direct-message message with 10.1.1-rest', { ...Q.dmOut, v: '10.1.1-rest' }, '"11.1.0-rest"'],
    ['messenger webhook with 10.1.1-rest', { ...Q.fbIn, v: '10.1.1-rest' }, '"11.1.0-rest"'],
    ['event on universal with 10.1.1-rest', { ...Q.dmEvent, platform: 'universal', v: '10.1.1-rest' }, '"11.1.0-rest"'],
    ['unknown version (not even in the client MAJOR.MINOR.PATCH-SOURCE form)', { ...Q.smsIn, v: '12.0-rest' }, '"11.1.0-rest"'],
  ])('refuses a %s', async (_name, query, wanted) => {
    const res = await track(endpoint, query, message('u1', 'hi'));
    expect(res.status).toBe(400);
    expect(res.body.problems).toHaveLength(1);
    expect(res.body.problems[0].path).toBe('v');
    expect(res.body.problems[0].expected.startsWith(wanted)).toBe(true);
  });

  it('accepts an event on the universal platform with 11.1.0-rest', async () => {
    const res = await track(endpoint, { ...Q.dmEvent, platform: 'universal' }, { name: 'e', type: 'customEvent', userId: 'u1' });
    expect(res.status).toBe(200);
  });
});

describe('400: body shape, with every problem and its path', () => {
  it('generic message: lists each missing or mistyped field', async () => {
    const res = await track(endpoint, Q.dmIn, { text: 42, buttons: [{ id: 'a', label: 3, value: 'a' }], intent: { name: 'x' }, postback: { buttonClick: {} } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/incoming record on twitter/);
    expect(res.body.problems).toEqual([
      { path: 'text', expected: 'a string', received: 'number' },
      { path: 'userId', expected: 'required', received: 'missing' },
      { path: 'intent.inputs', expected: 'required', received: 'missing' },
      { path: 'buttons[0].label', expected: 'a string', received: 'number' },
      { path: 'postback.buttonClick.buttonId', expected: 'required', received: 'missing' },
    ]);
  });

  it('messenger webhook: paths into entry[].messaging[]', async () => {
    const res = await track(endpoint, Q.fbIn, { object: 'page', entry: [{ id: 'p', time: 1, messaging: [{ sender: {}, recipient: { id: 'p' }, timestamp: 'soon' }] }] });
    expect(res.status).toBe(400);
    expect(res.body.problems).toEqual([
      { path: 'entry[0].messaging[0].sender.id', expected: 'required', received: 'missing' },
      { path: 'entry[0].messaging[0].timestamp', expected: 'a finite number', received: 'string' },
    ]);
  });

  it('messenger send-API payload: json.recipient.id and json.message are required', async () => {
    const res = await track(endpoint, Q.fbOut, { json: { recipient: {} } });
    expect(res.body.problems).toEqual([
      { path: 'json.recipient.id', expected: 'required', received: 'missing' },
      { path: 'json.message', expected: 'required', received: 'missing' },
    ]);
  });

  it('revenueEvent: amount is required and must be a number', async () => {
    const res = await track(endpoint, Q.dmEvent, { name: 'buy', type: 'revenueEvent', userId: 'u1', amount: '9.99' });
    expect(res.body.problems).toEqual([{ path: 'amount', expected: 'a finite number', received: 'string' }]);
  });

  it('event: an unknown type is named', async () => {
    const res = await track(endpoint, Q.dmEvent, { name: 'x', type: 'clickEvent', userId: 'u1' });
    expect(res.body.problems[0]).toMatchObject({ path: 'type', received: 'string' });
  });

  it('refuses a body that is not an object', async () => {
    const res = await track(endpoint, Q.universalIn, [message('u1', 'hi')]);
    expect(res.body.problems).toEqual([{ path: '(root)', expected: 'an object', received: 'array' }]);
  });

  it('stores nothing that was refused', async () => {
    const before = (await endpoint.store.count());
    await track(endpoint, Q.universalIn, { text: 'no user' });
    expect((await endpoint.store.count())).toBe(before);
  });
});
