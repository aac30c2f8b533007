/**
 * `POST /track`'s query string and headers in detail: what each problem says, the scripted form
 * with and without platform and v, Content-Type forms, and the body kept as received.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import type { RecordStore } from '../../src/store/store.js';
import { KEY, Q, message, request, start, track } from '../helpers.js';

const ALLOWED_PLATFORMS = 'one of "sms", "universal", "twitter", "facebook"';
/** What a refused `v` is told besides the spec's versions, unless the endpoint runs with strictVersions. */
const OR_CLIENT = ', or a client version such as "12.1.0-npm"';

let endpoint: TrackingEndpoint;
beforeAll(async () => {
  endpoint = await start();
});
afterAll(() => endpoint.close());

const problems = async (query: Record<string, string>, body: unknown = message('u1', 'hi')) => {
  const res = await track(endpoint, query, body);
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('The query string does not make a valid tracking request.');
  return res.body.problems;
};

describe('what a refused query says', () => {
  it('names each missing parameter and what it takes', async () => {
    expect(await problems({ apiKey: KEY })).toEqual([
      { path: 'type', expected: 'one of "incoming", "outgoing", "event"', received: 'missing' },
      { path: 'platform', expected: ALLOWED_PLATFORMS, received: 'missing' },
      { path: 'v', expected: 'one of "11.1.0-rest", "10.1.1-rest"' + OR_CLIENT, received: 'missing' },
    ]);
  });

  it('names an unknown type, and says generic is for the scripted form', async () => {
    expect(await problems({ ...Q.universalIn, type: 'generics' })).toEqual([
      { path: 'type', expected: 'one of "incoming", "outgoing", "event" (or "generic" for the scripted form)', received: '"generics"' },
    ]);
  });

  it('shows at most 40 characters of a value it refuses', async () => {
    const long = 'p'.repeat(45);
    expect(await problems({ ...Q.universalIn, platform: long })).toEqual([{ path: 'platform', expected: ALLOWED_PLATFORMS, received: JSON.stringify(`${'p'.repeat(40)}…`) }]);
    const exactly = 'p'.repeat(40);
    expect((await problems({ ...Q.universalIn, platform: exactly }))[0].received).toBe(JSON.stringify(exactly));
  });

  it('states the version rule that applies: universal messages, or every other platform and every event', async () => {
    expect(await problems({ ...Q.universalIn, v: '11.1.0-rest' })).toEqual([
      { path: 'v', expected: '"10.1.1-rest" (the version for universal-platform messages)' + OR_CLIENT, received: '"11.1.0-rest"' },
    ]);
    expect(await problems({ ...Q.smsIn, v: '10.1.1-rest' })).toEqual([
      { path: 'v', expected: '"11.1.0-rest" (the version for sms, direct-message and messenger platforms, and for every event)' + OR_CLIENT, received: '"10.1.1-rest"' },
    ]);
    expect(await problems({ ...Q.dmEvent, platform: 'universal', v: '10.1.1-rest' }, { name: 'e', type: 'customEvent', userId: 'u1' })).toEqual([
      { path: 'v', expected: '"11.1.0-rest" (the version for sms, direct-message and messenger platforms, and for every event)' + OR_CLIENT, received: '"10.1.1-rest"' },
    ]);
  });

  it('checks v against the known versions when the platform or type is unknown', async () => {
    expect(await problems({ ...Q.universalIn, platform: 'telegram', v: '9.0' })).toEqual([
      { path: 'platform', expected: ALLOWED_PLATFORMS, received: '"telegram"' },
      { path: 'v', expected: 'one of "11.1.0-rest", "10.1.1-rest"' + OR_CLIENT, received: '"9.0"' },
    ]);
    expect(await problems({ ...Q.universalIn, platform: 'telegram', v: '11.1.0-rest' })).toEqual([{ path: 'platform', expected: ALLOWED_PLATFORMS, received: '"telegram"' }]);
    expect(await problems({ ...Q.universalIn, type: 'x', v: '11.1.0-rest' })).toHaveLength(1);
  });

  it('lists every repeated parameter with how many times it came', async () => {
    const res = await request(endpoint, `/track?${new URLSearchParams(Q.smsIn)}&platform=sms&v=11.1.0-rest&v=11.1.0-rest`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message('u1', 'hi')),
    });
    expect(res.body.problems).toEqual([
      { path: 'platform', expected: 'given once', received: 'given 2 times' },
      { path: 'v', expected: 'given once', received: 'given 3 times' },
    ]);
  });
});

describe('the scripted form (type=generic)', () => {
  it('is stored without platform and v when it gives neither', async () => {
    const res = await track(endpoint, Q.scripted, { text: 'nightly job done' });
    expect(res.status).toBe(200);
    expect((await endpoint.store.record(res.body.id))).toMatchObject({ type: 'generic', platform: null, platformKind: null, v: null });
  });

  it('keeps the platform and v it gives, when they are values the spec allows', async () => {
    const res = await track(endpoint, { ...Q.scripted, platform: 'universal', v: '11.1.0-rest' }, { text: 'from a script' });
    expect(res.status).toBe(200);
    expect((await endpoint.store.record(res.body.id))).toMatchObject({ type: 'generic', platform: 'universal', platformKind: 'universal', v: '11.1.0-rest', body: { text: 'from a script' } });
  });

  it('refuses a platform or v the spec does not know', async () => {
    expect(await problems({ ...Q.scripted, platform: 'telegram' }, { text: 'x' })).toEqual([{ path: 'platform', expected: ALLOWED_PLATFORMS, received: '"telegram"' }]);
    expect(await problems({ ...Q.scripted, v: '1.0' }, { text: 'x' })).toEqual([{ path: 'v', expected: 'one of "11.1.0-rest", "10.1.1-rest"' + OR_CLIENT, received: '"1.0"' }]);
  });

  it('says which form a body does not match', async () => {
    const res = await track(endpoint, { ...Q.scripted, platform: 'sms' }, { message: 'x' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, error: 'The body does not match the spec for the scripted form (type=generic, body {text}); see problems.', problems: [{ path: 'text', expected: 'required', received: 'missing' }] });
    const event = await track(endpoint, Q.dmEvent, { name: 'e', type: 'customEvent' });
    expect(event.body.error).toBe('The body does not match the spec for an event record on twitter; see problems.');
  });
});

describe('Content-Type', () => {
  it.each(['application/json', 'APPLICATION/JSON', 'application/json;charset=utf-8', 'application/json \t; charset=utf-8'])('accepts %j', async (type) => {
    expect((await track(endpoint, Q.universalIn, message('u1', 'hi'), { 'content-type': type })).status).toBe(200);
  });

  it.each(['application/json-seq', 'text/json', 'application/jsonp; charset=utf-8', 'json'])('refuses %j (415)', async (type) => {
    const res = await track(endpoint, Q.universalIn, message('u1', 'hi'), { 'content-type': type });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ ok: false, error: 'Content-Type must be application/json (a charset parameter is fine).' });
  });
});

describe('the body as kept', () => {
  /** The JSON text the database holds for record `seq`. */
  async function storedText(seq: number): Promise<string> {
    const { rows } = await sql<{ body: string }>`select body from records where seq = ${seq}`.execute((endpoint.store as RecordStore).db);
    return rows[0].body;
  }

  it('keeps the JSON text as received, on one line and without surrounding space', async () => {
    const text = '\r\n  {"text": "two\\nlines",\r\n\r\n   "userId": "u1"}\n\t ';
    const res = await track(endpoint, Q.universalIn, text);
    expect(res.status).toBe(200);
    expect(await storedText(res.body.id)).toBe('{"text": "two\\nlines",    "userId": "u1"}');
    const plain = await track(endpoint, Q.universalIn, '  {"text": "hi",  "userId": "u2"} ');
    expect(await storedText(plain.body.id)).toBe('{"text": "hi",  "userId": "u2"}');
  });

  it('keeps the text as received when a body only looks suspicious (the word constructor, an escape) but nothing is removed', async () => {
    const res = await track(endpoint, Q.universalIn, '{"text": "constructor \\u00e9",  "userId": "u1", "platformJson": {"constructor": "x"}}');
    expect(await storedText(res.body.id)).toBe('{"text": "constructor \\u00e9",  "userId": "u1", "platformJson": {"constructor": "x"}}');
  });

  it('writes the body anew when keys were removed from it, so that what was removed is not kept', async () => {
    const res = await track(endpoint, Q.universalIn, '{"text": "hi", "userId": "u1", "platformJson": {"constructor": {"prototype": {"x": 1}}, "keep": 1}}');
    expect(await storedText(res.body.id)).toBe('{"text":"hi","userId":"u1","platformJson":{"keep":1}}');
  });
});
