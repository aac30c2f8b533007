/**
 * What happens to the connection when `POST /track` is refused. A body the endpoint will not read
 * (over the limit, or of unknown size) is not drained: the answer says `Connection: close` and the
 * connection is closed. A refused request whose body is small enough to drain keeps its
 * connection for the next request. Raw sockets, to see the headers and the connection itself.
 */
import type net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { KEY, Q, connect, message, start } from '../helpers.js';

const LIMIT = 4096;
const path = (query: Record<string, string>) => `/track?${new URLSearchParams(query)}`;

let endpoint: TrackingEndpoint;
const sockets: net.Socket[] = [];
beforeEach(async () => {
  endpoint = await start({ maxBodyBytes: LIMIT });
});
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await endpoint.close();
});

interface Reply {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** A raw connection: writes what it is given, and reads the answers (Content-Length bodies) as they come. */
async function open() {
  const socket = await connect(endpoint);
  sockets.push(socket);
  let data = Buffer.alloc(0);
  let closed = false;
  let wake: () => void = () => undefined;
  socket.on('data', (chunk: Buffer) => {
    data = Buffer.concat([data, chunk]);
    wake();
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    closed = true;
    wake();
  });
  const parse = (): Reply | undefined => {
    const end = data.indexOf('\r\n\r\n');
    if (end === -1) return undefined;
    const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length']);
    if (data.length < end + 4 + length) return undefined;
    const body = JSON.parse(data.subarray(end + 4, end + 4 + length).toString('utf8'));
    data = data.subarray(end + 4 + length);
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  };
  const waitFor = <T>(check: () => T | undefined, what: string): Promise<T> => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${what} within 10 s`)), 10_000);
    wake = () => {
      const value = check();
      if (value !== undefined) {
        clearTimeout(timer);
        resolve(value);
      }
    };
    wake();
  });
  return {
    write: (text: string | Buffer) => socket.write(text),
    /** The next answer on this connection. */
    reply: () => waitFor(parse, 'answer'),
    /** Resolves once the endpoint has closed the connection. */
    closed: () => waitFor(() => (closed ? true : undefined), 'close'),
    /** True while the connection is open (checked after an answer that should keep it). */
    get open() {
      return !closed;
    },
  };
}

const head = (target: string, headers: string) => `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${headers}\r\n\r\n`;

describe('a body the endpoint will not read', () => {
  it('answers 413 and closes the connection (Connection: close) for an upload whose Content-Length is over the limit', async () => {
    const connection = await open();
    connection.write(head(path(Q.universalIn), `Content-Length: ${LIMIT + 1}`) + '{"text":"');
    const reply = await connection.reply();
    expect(reply.status).toBe(413);
    expect(reply.headers.connection).toBe('close');
    expect(reply.body).toEqual({ ok: false, error: `The body is larger than ${LIMIT} bytes, the limit of this endpoint.` });
    await connection.closed();
    expect(await endpoint.store.count()).toBe(0);
  });

  it('answers 413 and closes the connection (Connection: close) for a chunked upload once it passes the limit', async () => {
    const connection = await open();
    connection.write(head(path(Q.universalIn), 'Transfer-Encoding: chunked'));
    const chunk = 'x'.repeat(1024);
    for (let i = 0; i < 5; i++) connection.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    const reply = await connection.reply();
    expect(reply.status).toBe(413);
    expect(reply.headers.connection).toBe('close');
    await connection.closed();
    expect(await endpoint.store.count()).toBe(0);
  });

  it.each([
    ['a wrong key (401)', { ...Q.universalIn, apiKey: 'not-a-key' }, 'application/json', 401],
    ['a bad query (400)', { ...Q.universalIn, v: '1' }, 'application/json', 400],
    ['another Content-Type (415)', Q.universalIn, 'text/plain', 415],
  ])('refuses %s without reading a chunked upload, and closes the connection (Connection: close)', async (_name, query, type, status) => {
    const connection = await open();
    connection.write(`POST ${path(query)} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n`);
    const reply = await connection.reply();
    expect(reply.status).toBe(status);
    expect(reply.headers.connection).toBe('close');
    await connection.closed();
  });

  it('refuses a wrong key without reading a body declared over the limit, and closes the connection (Connection: close)', async () => {
    const connection = await open();
    connection.write(head(path({ ...Q.universalIn, apiKey: 'not-a-key' }), `Content-Length: ${LIMIT + 1}`));
    const reply = await connection.reply();
    expect(reply.status).toBe(401);
    expect(reply.headers.connection).toBe('close');
    await connection.closed();
  });
});

describe('a refused request with a body small enough to drain', () => {
  it('keeps the connection for the next request when the body is exactly at the limit', async () => {
    const connection = await open();
    const refused = JSON.stringify(message('u1', 'x'.repeat(LIMIT - JSON.stringify(message('u1', '')).length)));
    expect(Buffer.byteLength(refused)).toBe(LIMIT);
    connection.write(head(path({ ...Q.universalIn, apiKey: 'not-a-key' }), `Content-Length: ${LIMIT}`) + refused);
    const first = await connection.reply();
    expect(first.status).toBe(401);
    expect(first.headers.connection).toBe('keep-alive');
    const accepted = JSON.stringify(message('u1', 'next'));
    connection.write(head(path(Q.universalIn), `Content-Length: ${accepted.length}`) + accepted);
    expect(await connection.reply()).toMatchObject({ status: 200, body: { ok: true, id: 1 } });
    expect(connection.open).toBe(true);
  });

  it('keeps the connection after refusing a request that has no body at all', async () => {
    const connection = await open();
    connection.write(`POST ${path({ ...Q.universalIn, apiKey: KEY, type: 'nope' })} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\r\n`);
    const first = await connection.reply();
    expect(first.status).toBe(400);
    expect(first.headers.connection).toBe('keep-alive');
    const accepted = JSON.stringify(message('u1', 'next'));
    connection.write(head(path(Q.universalIn), `Content-Length: ${accepted.length}`) + accepted);
    expect((await connection.reply()).status).toBe(200);
  });
});
