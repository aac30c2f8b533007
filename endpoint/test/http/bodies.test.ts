/**
 * Reading and parsing a body: the size limit for declared and chunked bodies, bodies that arrive
 * in pieces, how deep they may nest, and the keys removed because they could change an object's
 * prototype.
 */
import type net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { Q, connect, message, readUntilClose, start, track } from '../helpers.js';

const LIMIT = 2048;
const trackPath = `/track?${new URLSearchParams(Q.universalIn)}`;

let endpoint: TrackingEndpoint | undefined;
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await endpoint?.close();
  endpoint = undefined;
});

async function begin(options: Parameters<typeof start>[0] = {}): Promise<TrackingEndpoint> {
  endpoint = await start({ maxBodyBytes: LIMIT, ...options });
  return endpoint;
}

/** POSTs `parts` as chunks of a chunked body, each written on its own after a pause; the status and the JSON answer. */
async function chunked(target: TrackingEndpoint, parts: Buffer[]): Promise<{ status: number; body: any }> {
  const socket = await connect(target);
  sockets.push(socket);
  const answer = readUntilClose(socket, 10_000);
  socket.write(`POST ${trackPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`);
  for (const part of parts) {
    socket.write(Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  socket.write('0\r\n\r\n');
  const { data } = await answer;
  return { status: Number(data.split(' ')[1]), body: JSON.parse(data.slice(data.indexOf('\r\n\r\n') + 4)) };
}

/** `message(userId, text)` as JSON, its text padded so the whole is `size` bytes. */
function bodyOfSize(size: number): string {
  const empty = JSON.stringify(message('u1', ''));
  return JSON.stringify(message('u1', 'x'.repeat(size - empty.length)));
}

describe('the size limit', () => {
  it('accepts a chunked body of exactly the limit, and refuses one a byte longer (413)', async () => {
    const ep = await begin();
    const exact = Buffer.from(bodyOfSize(LIMIT));
    expect((await chunked(ep, [exact.subarray(0, 1000), exact.subarray(1000)])).status).toBe(200);
    const over = Buffer.from(bodyOfSize(LIMIT + 1));
    const refused = await chunked(ep, [over.subarray(0, 1000), over.subarray(1000)]);
    expect(refused).toEqual({ status: 413, body: { ok: false, error: `The body is larger than ${LIMIT} bytes, the limit of this endpoint.` } });
    expect(await ep.store.count()).toBe(1);
  });

  it('accepts a declared body of exactly the limit, and refuses one a byte longer (413)', async () => {
    const ep = await begin();
    expect((await track(ep, Q.universalIn, bodyOfSize(LIMIT))).status).toBe(200);
    expect((await track(ep, Q.universalIn, bodyOfSize(LIMIT + 1))).status).toBe(413);
  });
});

describe('a body in pieces', () => {
  it('is read whole, a character split between two pieces included', async () => {
    const ep = await begin();
    const whole = Buffer.from(JSON.stringify(message('u1', 'crème brûlée — 🍕')));
    const split = whole.indexOf(Buffer.from('🍕')) + 2;
    expect((await chunked(ep, [whole.subarray(0, 5), whole.subarray(5, split), whole.subarray(split)])).status).toBe(200);
    const [stored] = await ep.store.records();
    expect(stored.body).toEqual(message('u1', 'crème brûlée — 🍕'));
  });

  it('is refused as not JSON (400) when empty', async () => {
    const ep = await begin();
    const res = await chunked(ep, []);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^The body is not valid JSON: /);
  });
});

describe('nesting', () => {
  const nested = (depth: number, open = '{"a":', close = '}') => `${open.repeat(depth)}1${close.repeat(depth)}`;
  /** A message whose platformJson nests `depth` levels (the body itself is one more). */
  const bodyNesting = (depth: number, open?: string, close?: string) => `{"text":"hi","userId":"u1","platformJson":${nested(depth - 1, open, close)}}`;

  it('accepts objects and arrays nested exactly maxBodyDepth deep, and refuses one level more (400)', async () => {
    const ep = await begin({ maxBodyDepth: 6 });
    expect((await track(ep, Q.universalIn, bodyNesting(6))).status).toBe(200);
    const deeper = await track(ep, Q.universalIn, bodyNesting(7));
    expect(deeper).toMatchObject({ status: 400, body: { ok: false, error: 'The body nests objects and arrays more than 6 levels deep.' } });
    const arrays = `{"text":"hi","userId":"u1","platformJson":{"a":${nested(5, '[', ']')}}}`;
    expect((await track(ep, Q.universalIn, arrays)).status).toBe(400);
  });

  it('counts each level once: closing brackets end it, and siblings are not deeper', async () => {
    const ep = await begin({ maxBodyDepth: 4 });
    const wide = `{"text":"hi","userId":"u1","platformJson":{${Array.from({ length: 20 }, (_, i) => `"k${i}":{"a":[1]}`).join(',')}}}`;
    expect((await track(ep, Q.universalIn, wide)).status).toBe(200);
  });

  it('does not count brackets inside strings, escaped quotes and backslashes included', async () => {
    const ep = await begin({ maxBodyDepth: 4 });
    const text = `{"text":"a \\\\\\" ${'[{'.repeat(20)} \\\\","userId":"u1","platformJson":{"b":"\\\\","c":"${'{'.repeat(20)}"}}`;
    expect(JSON.parse(text).text).toBe(`a \\" ${'[{'.repeat(20)} \\`);
    expect((await track(ep, Q.universalIn, text)).status).toBe(200);
  });
});

describe('keys that could change a prototype', () => {
  const stored = async (ep: TrackingEndpoint, text: string) => {
    const res = await track(ep, Q.universalIn, text);
    expect(res.status).toBe(200);
    return (await ep.store.record(res.body.id))!.body;
  };

  it('removes __proto__, written plainly or escaped', async () => {
    const ep = await begin();
    expect(await stored(ep, '{"text":"hi","userId":"u1","__proto__":{"x":1}}')).toEqual(message('u1', 'hi'));
    expect(await stored(ep, '{"text":"hi","userId":"u1","\\u005f\\u005fproto\\u005f\\u005f":{"x":1}}')).toEqual(message('u1', 'hi'));
  });

  it('removes constructor when it holds a prototype, in objects inside arrays too', async () => {
    const ep = await begin();
    expect(await stored(ep, '{"text":"hi","userId":"u1","platformJson":{"constructor":{"prototype":{"x":1}},"keep":1}}')).toEqual(message('u1', 'hi', { platformJson: { keep: 1 } }));
    expect(await stored(ep, '{"text":"hi","userId":"u1","platformJson":{"list":[1,{"__proto__":{"x":1},"a":1},[{"constructor":{"prototype":null}}]]}}'))
      .toEqual(message('u1', 'hi', { platformJson: { list: [1, { a: 1 }, [{}]] } }));
  });

  it('keeps a constructor key that holds anything else, and a prototype under any other key', async () => {
    const ep = await begin();
    const platformJson = { a: { constructor: null }, b: { constructor: 'x' }, c: { constructor: { name: 'x' } }, d: { constructor: 3 }, e: { constructor: [1] }, f: { other: { prototype: 1 } } };
    expect(await stored(ep, JSON.stringify(message('u1', 'constructor', { platformJson })))).toEqual(message('u1', 'constructor', { platformJson }));
  });
});
