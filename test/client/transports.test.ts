/**
 * The two transports on their own, against real servers on 127.0.0.1 (node:http servers, and raw
 * node:net servers for answers a well-behaved server never gives): what goes over the wire, what
 * comes back, how they fail, and how the default transport uses its sockets.
 */
import axios from 'axios';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import tls from 'node:tls';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAxiosTransport, type AxiosLike } from '../../src/client/transports/axios.js';
import { createNodeHttpTransport, type NodeHttpTransportOptions } from '../../src/client/transports/node-http.js';
import {
  HOLD_IN_FLIGHT,
  MAX_RESPONSE_BODY_CHARS,
  SEND_DIRECT,
  type DirectRequest,
  type DirectTransport,
  type HoldingTransport,
  type Transport,
  type TransportResponse,
} from '../../src/client/transport.js';
import { closedPort } from '../helpers/ports.js';

// A self-signed certificate for localhost and 127.0.0.1 (EC P-256, valid 2026–2126), for these tests only.
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg320gEegI65CW4WeS
5Ui2NDgNEx5TmFcGA6L4ZLTNk1OhRANCAATX9G3xA/YZn0jWhPE0kRoq2nUjaion
hkUPlEuundpcQfOsUi+f/Lgy1tRJvsS9zhA9nC6sPCLhp3cZqbodEeGH
-----END PRIVATE KEY-----
`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBmjCCAUGgAwIBAgIUDU7qBS50YwF+lWH9KzLtyqCarc8wCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNTIxNTkzMFoYDzIxMjYxMTAx
MjE1OTMwWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAATX9G3xA/YZn0jWhPE0kRoq2nUjaionhkUPlEuundpcQfOsUi+f/Lgy
1tRJvsS9zhA9nC6sPCLhp3cZqbodEeGHo28wbTAdBgNVHQ4EFgQU5eBDYOm9qajE
OD+NuiUsy7O8cbMwHwYDVR0jBBgwFoAU5eBDYOm9qajEOD+NuiUsy7O8cbMwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
zj0EAwIDRwAwRAIgXisbZmY05QKRmoQMp6CV4YQ2/zwKXunCDfHWZdqsLxoCIBUU
q7PMGvUPj6pSs31dxZ1z2k+6s5ooKQCuhX5fd/7I
-----END CERTIFICATE-----
`;

const SECRET = 'secret-key-123';

/** What a test server saw of one request. */
interface Received {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
  /** The TLS server name the client asked for (https servers only): false when it sent none. */
  servername?: string | false | null;
  /** The connection it came on (1 for the server's first). */
  connection: number;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, received: Received) => void;

interface TestServer {
  port: number;
  /** `http(s)://127.0.0.1:port` */
  origin: string;
  requests: Received[];
  /** Connections accepted so far. */
  connections: number;
  /** Connections the client has closed so far. */
  closedConnections: number;
  /** Connections open now. */
  open: number;
  /** Answers held by a handler that does not answer at once (see `hold`). */
  held: http.ServerResponse[];
}

const cleanups: (() => unknown)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function track<T extends Transport>(transport: T): T {
  cleanups.push(() => transport.close?.());
  return transport;
}

function nodeHttp(options?: NodeHttpTransportOptions): DirectTransport & HoldingTransport {
  return track(createNodeHttpTransport(options) as DirectTransport & HoldingTransport);
}

/** A handler that answers `status` with `body` and `headers` (a raw list: name, value, …). */
function answer(status: number, body: string | Buffer = '', headers: string[] = []): Handler {
  return (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };
}

/** A handler that keeps every answer in `server.held` until the test answers it. */
const hold: Handler = () => undefined;

/**
 * Starts an HTTP (or HTTPS) server on `host`, port 0, that records every request and passes it to
 * `handler`. Its sockets (and itself) do not keep the process alive, so that a test can count the
 * client's. Closed after the test.
 */
async function startServer(handler: Handler, options: { secure?: boolean; host?: string } = {}): Promise<TestServer> {
  const sockets = new Set<net.Socket>();
  const state: TestServer = { port: 0, origin: '', requests: [], connections: 0, closedConnections: 0, open: 0, held: [] };
  const connectionOf = new WeakMap<net.Socket, number>();
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const socket = req.socket as tls.TLSSocket;
      const received: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks),
        connection: connectionOf.get(socket) ?? 0,
      };
      if (options.secure) received.servername = socket.servername;
      state.requests.push(received);
      if (handler === hold) state.held.push(res);
      else handler(req, res, received);
    });
  };
  const server = options.secure ? https.createServer({ key: TEST_KEY, cert: TEST_CERT }, onRequest) : http.createServer(onRequest);
  // For https, the TLS socket the request arrives on; for http, the TCP socket.
  server.on(options.secure ? 'secureConnection' : 'connection', (socket: net.Socket) => {
    state.connections++;
    state.open++;
    connectionOf.set(socket, state.connections);
    sockets.add(socket);
    socket.unref();
    socket.on('close', () => {
      state.closedConnections++;
      state.open--;
      sockets.delete(socket);
    });
  });
  if (options.secure) server.on('connection', (socket: net.Socket) => socket.unref());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host ?? '127.0.0.1', () => resolve());
  });
  server.unref();
  state.port = (server.address() as AddressInfo).port;
  state.origin = `${options.secure ? 'https' : 'http'}://127.0.0.1:${state.port}`;
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return state;
}

/** A raw TCP server that writes `reply` to each connection once it has received a request's headers, then does `after`. */
async function startRawServer(reply: string, after: 'destroy' | 'end' | 'keep'): Promise<{ origin: string }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let seen = '';
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      if (!seen.includes('\r\n\r\n')) return;
      seen = '';
      socket.write(reply, () => {
        if (after === 'destroy') socket.destroy();
        else if (after === 'end') socket.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}


/** The raw header list as pairs, without the ones Node's client adds on its own (`Connection`). */
function pairs(raw: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() !== 'connection') out.push([raw[i], raw[i + 1]]);
  return out;
}

function direct(transport: DirectTransport, request: DirectRequest): Promise<{ error: (Error & { code?: string }) | undefined; response: TransportResponse | undefined }> {
  return new Promise((resolve) => transport[SEND_DIRECT](request, (error, response) => resolve({ error, response })));
}

function post(url: string, body: string = '{}', headers: Record<string, string> = { 'content-type': 'application/json' }, timeoutMs = 2_000) {
  return { url, body, headers, timeoutMs };
}

/** Handles that keep the process alive now, of one kind (Node lists only ref'd handles and timers). */
function alive(kind: 'TCPSocketWrap' | 'Timeout'): number {
  return process.getActiveResourcesInfo().filter((name) => name === kind).length;
}

/** The error `sent` rejects with; fails the test if it resolves. */
async function rejection(sent: Promise<unknown>): Promise<Error & { code?: string }> {
  let answer: unknown;
  try {
    answer = await sent;
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return error as Error & { code?: string };
  }
  throw new Error(`expected a rejection, got ${JSON.stringify(answer)}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * With a request held in flight by `server` (`sent`): its socket adds nothing to what keeps the
 * process alive (`sockets` before it) until HOLD_IN_FLIGHT, which adds exactly that one; then the
 * server answers `body` and the request resolves with it.
 */
async function heldOnlyWhenAsked(transport: HoldingTransport, server: TestServer, sent: Promise<TransportResponse>, sockets: number, body: string): Promise<void> {
  await vi.waitFor(() => expect(server.held).toHaveLength(1), { timeout: 2_000, interval: 5 });
  expect(alive('TCPSocketWrap')).toBe(sockets);
  transport[HOLD_IN_FLIGHT]();
  expect(alive('TCPSocketWrap')).toBe(sockets + 1);
  server.held.shift()!.end(body);
  expect(await sent).toMatchObject({ status: 200, body });
}

describe('node:http transport: what goes over the wire', () => {
  it('POSTs to the path with its query string, one header per name whatever its case (the last value, spelled as last given, where the name first appeared), then Host and the length', async () => {
    const server = await startServer(answer(204));
    const transport = nodeHttp();
    await transport.send(post(`${server.origin}/track/sms?platform=sms&type=incoming`, '{"a":1}', { 'X-Trace': 'a', 'content-type': 'application/json', 'x-trace': 'b', 'X-TRACE': 'c', 'user-agent': 'bot/1' }));
    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/track/sms?platform=sms&type=incoming');
    expect(pairs(request.rawHeaders)).toEqual([
      ['X-TRACE', 'c'],
      ['content-type', 'application/json'],
      ['user-agent', 'bot/1'],
      ['Host', `127.0.0.1:${server.port}`],
      ['content-length', '7'],
    ]);
    expect(request.body.toString()).toBe('{"a":1}');
  });

  it("replaces the caller's content-length (in any case) with the body's length in UTF-8 bytes, not characters", async () => {
    const server = await startServer(answer(200));
    const body = '{"text":"héllo € 😀"}';
    expect(body.length).toBe(21);
    await nodeHttp().send(post(`${server.origin}/t`, body, { 'Content-Length': '999', 'content-type': 'application/json', 'CONTENT-LENGTH': '3' }));
    const [request] = server.requests;
    expect(pairs(request.rawHeaders)).toEqual([
      ['content-type', 'application/json'],
      ['Host', `127.0.0.1:${server.port}`],
      ['content-length', '26'],
    ]);
    expect(request.body.toString('utf8')).toBe(body);
  });

  it('sends a Buffer body (SEND_DIRECT) with its length in bytes', async () => {
    const server = await startServer(answer(200));
    const bytes = Buffer.from('{"t":"ééé"}', 'utf8');
    const { error, response } = await direct(nodeHttp(), { url: `${server.origin}/b`, body: bytes, headers: { 'content-length': '1' }, timeoutMs: 2_000 });
    expect(error).toBeUndefined();
    expect(response).toEqual({ status: 200, retryAfter: undefined, body: '' });
    expect(pairs(server.requests[0].rawHeaders)).toEqual([
      ['Host', `127.0.0.1:${server.port}`],
      ['content-length', '14'],
    ]);
    expect(server.requests[0].body.equals(bytes)).toBe(true);
  });

  it("keeps the caller's own Host header (in any case) and adds none", async () => {
    const server = await startServer(answer(200));
    await nodeHttp().send(post(`${server.origin}/h`, '{}', { HOST: 'bot.example:8443', accept: '*/*' }));
    expect(pairs(server.requests[0].rawHeaders)).toEqual([
      ['HOST', 'bot.example:8443'],
      ['accept', '*/*'],
      ['content-length', '2'],
    ]);
  });

  it('gives the same headers object, reused for two hosts, the Host of each', async () => {
    const first = await startServer(answer(200));
    const second = await startServer(answer(200));
    const transport = nodeHttp();
    const headers = { 'content-type': 'application/json' };
    await transport.send(post(`${first.origin}/1`, '{}', headers));
    await transport.send(post(`${second.origin}/2`, '{}', headers));
    await transport.send(post(`${first.origin}/3`, '{}', headers));
    expect(pairs(first.requests[0].rawHeaders)).toEqual([['content-type', 'application/json'], ['Host', `127.0.0.1:${first.port}`], ['content-length', '2']]);
    expect(pairs(second.requests[0].rawHeaders)).toEqual([['content-type', 'application/json'], ['Host', `127.0.0.1:${second.port}`], ['content-length', '2']]);
    expect(pairs(first.requests[1].rawHeaders)).toEqual([['content-type', 'application/json'], ['Host', `127.0.0.1:${first.port}`], ['content-length', '2']]);
  });

  it('sends each request with the same headers object its own single content-length, and a new headers object as given', async () => {
    const server = await startServer(answer(200));
    const transport = nodeHttp();
    const headers = { 'x-a': '1' };
    await transport.send(post(`${server.origin}/1`, '{"n":1}', headers));
    await transport.send(post(`${server.origin}/2`, '{"n":22}', headers));
    await transport.send(post(`${server.origin}/3`, '{}', { 'x-a': '2' }));
    expect(server.requests.map((r) => pairs(r.rawHeaders))).toEqual([
      [['x-a', '1'], ['Host', `127.0.0.1:${server.port}`], ['content-length', '7']],
      [['x-a', '1'], ['Host', `127.0.0.1:${server.port}`], ['content-length', '8']],
      [['x-a', '2'], ['Host', `127.0.0.1:${server.port}`], ['content-length', '2']],
    ]);
    expect(server.requests.map((r) => r.body.toString())).toEqual(['{"n":1}', '{"n":22}', '{}']);
  });

  it('sends to an IPv6 address in brackets, with the brackets in Host only', async () => {
    let server: TestServer;
    try {
      server = await startServer(answer(200, 'v6'), { host: '::1' });
    } catch (error) {
      // This machine has no IPv6 loopback: nothing to send to.
      expect(['EADDRNOTAVAIL', 'EAFNOSUPPORT']).toContain((error as { code?: string }).code);
      return;
    }
    const response = await nodeHttp().send(post(`http://[::1]:${server.port}/v6?x=1`));
    expect(response).toEqual({ status: 200, retryAfter: undefined, body: 'v6' });
    expect(server.requests[0].url).toBe('/v6?x=1');
    expect(pairs(server.requests[0].rawHeaders)).toEqual([['content-type', 'application/json'], ['Host', `[::1]:${server.port}`], ['content-length', '2']]);
  });
});

describe('node:http transport: the answer', () => {
  it('send() returns the status and the body of a 2xx, with no Retry-After when there is none', async () => {
    const server = await startServer(answer(201, 'created'));
    expect(await nodeHttp().send(post(`${server.origin}/`))).toStrictEqual({ status: 201, retryAfter: undefined, body: 'created' });
  });

  it("gives '' for an empty body", async () => {
    const server = await startServer(answer(204));
    expect(await nodeHttp().send(post(`${server.origin}/`))).toStrictEqual({ status: 204, retryAfter: undefined, body: '' });
    const failing = await startServer(answer(503));
    expect(await direct(nodeHttp(), post(`${failing.origin}/`))).toStrictEqual({ error: undefined, response: { status: 503, retryAfter: undefined, body: '' } });
  });

  it.each([
    ['Retry-After', ['Retry-After', '7'], '7'],
    ['retry-after', ['retry-after', '8'], '8'],
    ['RETRY-AFTER', ['RETRY-AFTER', 'Wed, 21 Oct 2015 07:28:00 GMT'], 'Wed, 21 Oct 2015 07:28:00 GMT'],
    ['the first of two', ['X-Other', 'o', 'Retry-After', '5', 'retry-after', '9'], '5'],
    ['none', ['X-Other', 'o'], undefined],
    ['none, and another header of 11 characters', ['x-retry-aft', '3'], undefined],
    ['after another header of 11 characters', ['x-retry-aft', '3', 'Retry-After', '4'], '4'],
    ['after a header whose value is Retry-After', ['Access-Control-Expose-Headers', 'Retry-After', 'Retry-After', '2'], '2'],
    ['none, with a header whose value is Retry-After', ['Access-Control-Expose-Headers', 'Retry-After', 'Content-Language', 'en'], undefined],
  ] as [string, string[], string | undefined][])('reads Retry-After: %s', async (_name, headers, expected) => {
    const server = await startServer(answer(429, 'slow down', headers));
    expect(await nodeHttp().send(post(`${server.origin}/`))).toStrictEqual({ status: 429, retryAfter: expected, body: 'slow down' });
  });

  it("through SEND_DIRECT, drops a 2xx answer's body and Retry-After (200 and 299) but returns those of any other (300, 400, 500)", async () => {
    let status = 200;
    const server = await startServer((_req, res) => {
      res.writeHead(status, ['Retry-After', '6']);
      res.end(`body of ${status}`);
    });
    const transport = nodeHttp();
    const results: unknown[] = [];
    for (status of [200, 299, 300, 400, 500]) results.push(await direct(transport, post(`${server.origin}/`)));
    expect(results).toStrictEqual([
      { error: undefined, response: { status: 200, retryAfter: undefined, body: '' } },
      { error: undefined, response: { status: 299, retryAfter: undefined, body: '' } },
      { error: undefined, response: { status: 300, retryAfter: '6', body: 'body of 300' } },
      { error: undefined, response: { status: 400, retryAfter: '6', body: 'body of 400' } },
      { error: undefined, response: { status: 500, retryAfter: '6', body: 'body of 500' } },
    ]);
    // send() returns the 2xx body SEND_DIRECT drops.
    status = 299;
    expect(await transport.send(post(`${server.origin}/`))).toStrictEqual({ status: 299, retryAfter: '6', body: 'body of 299' });
  });

  /** A handler that writes `count` chunks of `piece`, each a little after the one before, so that they arrive apart. */
  function inChunks(status: number, piece: string, count: number): Handler {
    return (_req, res) => {
      res.writeHead(status, ['content-type', 'text/plain; charset=utf-8']);
      let sent = 0;
      const next = (): void => {
        if (sent++ === count) {
          res.end();
          return;
        }
        res.write(piece);
        setTimeout(next, 1);
      };
      next();
    };
  }

  it.each([
    ['in one piece', 'x', 5_000, 1],
    ['in many chunks', 'y', 100, 40],
    ["of 2-byte characters ('é'), in many chunks", 'é', 100, 30],
    ["of 3-byte characters ('€'), in many chunks", '€', 100, 30],
    ['of emoji (4 bytes, 2 UTF-16 units), in many chunks', '😀', 50, 30],
  ] as [string, string, number, number][])('keeps exactly MAX_RESPONSE_BODY_CHARS characters of a longer body %s', async (_name, char, perChunk, chunks) => {
    const server = await startServer(inChunks(500, char.repeat(perChunk), chunks));
    const transport = nodeHttp();
    const expected = char.repeat(perChunk * chunks).slice(0, MAX_RESPONSE_BODY_CHARS);
    expect(MAX_RESPONSE_BODY_CHARS).toBe(2048);
    expect(expected.length).toBe(2048);
    expect(await transport.send(post(`${server.origin}/`))).toStrictEqual({ status: 500, retryAfter: undefined, body: expected });
    expect(await direct(transport, post(`${server.origin}/`))).toStrictEqual({ error: undefined, response: { status: 500, retryAfter: undefined, body: expected } });
  });

  it('returns a body shorter than the limit whole, from many chunks', async () => {
    const server = await startServer(inChunks(400, 'ab€', 20));
    expect(await nodeHttp().send(post(`${server.origin}/`))).toStrictEqual({ status: 400, retryAfter: undefined, body: 'ab€'.repeat(20) });
  });
});

describe('node:http transport: failures', () => {
  it("rejects a request the server never answers with code ETIMEDOUT after timeoutMs, saying how long it waited", async () => {
    const server = await startServer(hold);
    const started = Date.now();
    const error = await rejection(nodeHttp().send(post(`${server.origin}/`, '{}', {}, 120)));
    expect(error).toMatchObject({ code: 'ETIMEDOUT', message: 'tracking request timed out after 120 ms' });
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(110);
    expect(waited).toBeLessThan(1_000);
    expect(server.requests).toHaveLength(1);
  });

  it('times out a request that waits for a free connection (maxSockets) at its own timeoutMs, not once a connection frees up', async () => {
    const server = await startServer((_req, res) => void setTimeout(() => res.end(), 600));
    const transport = nodeHttp({ maxSockets: 1 });
    const first = transport.send(post(`${server.origin}/`, '{}', {}, 5_000));
    const started = Date.now();
    const error = await rejection(transport.send(post(`${server.origin}/`, '{}', {}, 100)));
    expect(error).toMatchObject({ code: 'ETIMEDOUT', message: 'tracking request timed out after 100 ms' });
    expect(Date.now() - started).toBeLessThan(450);
    expect((await first).status).toBe(200);
    // The request that timed out is not sent once the connection is free.
    await sleep(100);
    expect(server.requests).toHaveLength(1);
  });

  it('through SEND_DIRECT, calls done once with the timeout error, also when the body had started to arrive', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(500);
      res.write('partial');
    });
    const calls: [Error | undefined, TransportResponse | undefined][] = [];
    nodeHttp()[SEND_DIRECT](post(`${server.origin}/`, '{}', {}, 100), (error, response) => calls.push([error, response]));
    await vi.waitFor(() => expect(calls).toHaveLength(1), { timeout: 2_000, interval: 5 });
    await sleep(50);
    expect(calls).toHaveLength(1);
    expect(calls[0][1]).toBeUndefined();
    expect(calls[0][0]).toMatchObject({ code: 'ETIMEDOUT', message: 'tracking request timed out after 100 ms' });
  });

  it('rejects with code ECONNREFUSED when nothing listens', async () => {
    const port = await closedPort();
    const error = await rejection(nodeHttp().send(post(`http://127.0.0.1:${port}/`)));
    expect(error.code).toBe('ECONNREFUSED');
  });

  it("rejects an answer cut off midway with code ECONNRESET and 'tracking response aborted', through send() and SEND_DIRECT, a 2xx too", async () => {
    const refused = await startRawServer('HTTP/1.1 500 Oops\r\nContent-Length: 100\r\n\r\nonly part', 'destroy');
    const error = await rejection(nodeHttp().send(post(`${refused.origin}/`)));
    expect({ code: error.code, message: error.message }).toEqual({ code: 'ECONNRESET', message: 'tracking response aborted' });

    const accepted = await startRawServer('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part', 'destroy');
    const result = await direct(nodeHttp(), post(`${accepted.origin}/`));
    expect(result.response).toBeUndefined();
    expect({ code: result.error?.code, message: result.error?.message }).toEqual({ code: 'ECONNRESET', message: 'tracking response aborted' });
  });

  it('rejects when the connection closes before any answer, and on an answer that is not HTTP', async () => {
    const silent = await startRawServer('', 'destroy');
    expect(await rejection(nodeHttp().send(post(`${silent.origin}/`)))).toMatchObject({ code: 'ECONNRESET', message: 'socket hang up' });
    const garbage = await startRawServer('this is not http\r\n\r\n', 'keep');
    const result = await direct(nodeHttp(), post(`${garbage.origin}/`));
    expect(result.response).toBeUndefined();
    expect(result.error?.code).toBe('HPE_INVALID_CONSTANT');
  });

  it('SEND_DIRECT throws a URL it cannot parse at once; send() rejects with it', async () => {
    const transport = nodeHttp();
    const done = vi.fn();
    expect(() => transport[SEND_DIRECT](post('not a url'), done)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_URL' }));
    await sleep(5);
    expect(done).not.toHaveBeenCalled();
    await expect(transport.send(post('not a url'))).rejects.toMatchObject({ code: 'ERR_INVALID_URL' });
  });

  it('calls done of SEND_DIRECT exactly once, on a later tick than the call, with the answer', async () => {
    const server = await startServer(answer(500, 'no'));
    const calls: unknown[] = [];
    let returned = false;
    nodeHttp()[SEND_DIRECT](post(`${server.origin}/`), (error, response) => calls.push({ returned, error, response }));
    returned = true;
    expect(calls).toEqual([]);
    await vi.waitFor(() => expect(calls).toHaveLength(1), { timeout: 2_000, interval: 5 });
    await sleep(50);
    expect(calls).toStrictEqual([{ returned: true, error: undefined, response: { status: 500, retryAfter: undefined, body: 'no' } }]);
  });

  it('calls done after the socket is free again: a request sent from done goes over the same connection', async () => {
    const server = await startServer(answer(200));
    const transport = nodeHttp();
    const second = await new Promise<{ error: Error | undefined; response: TransportResponse | undefined }>((resolve) =>
      transport[SEND_DIRECT](post(`${server.origin}/1`), () => transport[SEND_DIRECT](post(`${server.origin}/2`), (error, response) => resolve({ error, response }))),
    );
    expect(second).toStrictEqual({ error: undefined, response: { status: 200, retryAfter: undefined, body: '' } });
    expect(server.requests.map((r) => [r.url, r.connection])).toEqual([
      ['/1', 1],
      ['/2', 1],
    ]);
    expect(server.connections).toBe(1);
  });
});

describe('node:http transport: connections', () => {
  it("keeps the connection alive between requests, also once a finished request's timeout has passed", async () => {
    const server = await startServer(answer(200, 'ok'));
    const transport = nodeHttp();
    await transport.send(post(`${server.origin}/1`, '{}', {}, 100));
    await transport.send(post(`${server.origin}/2`));
    // The first request's timer is over: it does not cut the idle (or reused) connection.
    await sleep(150);
    await transport.send(post(`${server.origin}/3`));
    expect(server.connections).toBe(1);
    expect(server.closedConnections).toBe(0);
  });

  it('passes agentOptions to the agents (keepAlive: false opens a connection per request)', async () => {
    const server = await startServer(answer(200));
    const transport = nodeHttp({ agentOptions: { keepAlive: false } });
    await transport.send(post(`${server.origin}/1`));
    await transport.send(post(`${server.origin}/2`));
    expect(server.requests.map((r) => r.connection)).toEqual([1, 2]);
  });

  /** Sends `count` requests at once to a server that holds them, and returns how many connections it saw once it had as many as it will get. */
  async function parallel(transport: Transport, count: number, expected: number): Promise<number> {
    const server = await startServer(hold);
    const sent = Array.from({ length: count }, (_, i) => transport.send(post(`${server.origin}/${i}`)));
    await vi.waitFor(() => expect(server.requests).toHaveLength(expected), { timeout: 2_000, interval: 5 });
    // Give any further connection time to show up.
    await sleep(60);
    const seen = server.connections;
    const seenRequests = server.requests.length;
    // Answer everything, the queued requests as they arrive.
    const release = setInterval(() => {
      for (const res of server.held.splice(0)) res.end('done');
    }, 2);
    try {
      const responses = await Promise.all(sent);
      expect(responses.map((r) => r.status)).toEqual(Array(count).fill(200));
    } finally {
      clearInterval(release);
    }
    expect(server.connections).toBe(seen);
    expect(seenRequests).toBe(expected);
    return seen;
  }

  it('opens at most maxSockets connections to a host (2 for 5 requests at once), and sends the rest over them', async () => {
    expect(await parallel(nodeHttp({ maxSockets: 2 }), 5, 2)).toBe(2);
  });

  it('opens at most 16 connections to a host by default', async () => {
    expect(await parallel(nodeHttp(), 20, 16)).toBe(16);
  });

  it('lets agentOptions override maxSockets', async () => {
    expect(await parallel(nodeHttp({ maxSockets: 4, agentOptions: { maxSockets: 1 } }), 3, 1)).toBe(1);
  });

  it('close() closes the idle kept-alive connections', async () => {
    const server = await startServer(answer(200));
    const transport = nodeHttp();
    await transport.send(post(`${server.origin}/`));
    await sleep(10);
    expect(server.open).toBe(1);
    await transport.close!();
    await vi.waitFor(() => expect(server.closedConnections).toBe(1), { timeout: 2_000, interval: 5 });
    expect(server.open).toBe(0);
  });

  it('does not keep the process alive with a request in flight, or with an idle connection, unless HOLD_IN_FLIGHT is called for the requests in flight', async () => {
    const server = await startServer(hold);
    const transport = nodeHttp();
    const sockets = alive('TCPSocketWrap');

    // In flight on a new connection: neither its timeout (counted on the same tick, so that no
    // other timer comes or goes meanwhile) nor its socket keeps the process alive.
    const timers = alive('Timeout');
    const first = transport.send(post(`${server.origin}/1`, '{}', {}, 5_000));
    expect(alive('Timeout')).toBe(timers);
    await heldOnlyWhenAsked(transport, server, first, sockets, '1');

    // Idle in the pool: let go again.
    await sleep(10);
    expect(alive('TCPSocketWrap')).toBe(sockets);

    // In flight on the reused connection: not kept alive either, until held.
    const second = transport.send(post(`${server.origin}/2`, '{}', {}, 5_000));
    await heldOnlyWhenAsked(transport, server, second, sockets, '2');
    expect(server.connections).toBe(1);
    await sleep(10);
    expect(alive('TCPSocketWrap')).toBe(sockets);
  });

  it('HOLD_IN_FLIGHT with nothing in flight keeps nothing alive', async () => {
    const server = await startServer(answer(200));
    const transport = nodeHttp();
    const sockets = alive('TCPSocketWrap');
    transport[HOLD_IN_FLIGHT]();
    expect(alive('TCPSocketWrap')).toBe(sockets);
    await transport.send(post(`${server.origin}/`));
    await sleep(10);
    transport[HOLD_IN_FLIGHT]();
    expect(alive('TCPSocketWrap')).toBe(sockets);
  });
});

describe('node:http transport over https', () => {
  const ca = { agentOptions: { ca: TEST_CERT } };

  it('sends over TLS with the agent options (a private CA), asking for the host name (SNI), with Host and keep-alive', async () => {
    const server = await startServer(answer(202, 'secure'), { secure: true });
    const transport = nodeHttp(ca);
    const url = `https://localhost:${server.port}/s?x=1`;
    expect(await transport.send(post(url))).toStrictEqual({ status: 202, retryAfter: undefined, body: 'secure' });
    expect(await direct(transport, post(url))).toStrictEqual({ error: undefined, response: { status: 202, retryAfter: undefined, body: '' } });
    expect(server.requests.map((r) => [r.method, r.url, r.servername, r.connection])).toEqual([
      ['POST', '/s?x=1', 'localhost', 1],
      ['POST', '/s?x=1', 'localhost', 1],
    ]);
    expect(pairs(server.requests[0].rawHeaders)).toEqual([['content-type', 'application/json'], ['Host', `localhost:${server.port}`], ['content-length', '2']]);
  });

  it('asks for no server name when the URL has an IP address', async () => {
    const server = await startServer(answer(200), { secure: true });
    await nodeHttp(ca).send(post(`https://127.0.0.1:${server.port}/`));
    expect(server.requests[0].servername).toBe(false);
  });

  it('refuses a certificate the agent options do not trust', async () => {
    const server = await startServer(answer(200), { secure: true });
    const error = await rejection(nodeHttp().send(post(`https://localhost:${server.port}/`)));
    expect(error.code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    expect(server.requests).toHaveLength(0);
  });

  it('close() closes the idle https connections too, and HOLD_IN_FLIGHT holds an https request', async () => {
    const server = await startServer(hold, { secure: true });
    const transport = nodeHttp(ca);
    const sockets = alive('TCPSocketWrap');
    await heldOnlyWhenAsked(transport, server, transport.send(post(`https://localhost:${server.port}/`)), sockets, 'ok');
    await sleep(10);
    expect(server.open).toBe(1);
    await transport.close!();
    await vi.waitFor(() => expect(server.closedConnections).toBe(1), { timeout: 2_000, interval: 5 });
  });
});

/** A stand-in for an axios instance: records each config and answers as told. */
function fakeAxios(reply: (config: Record<string, unknown>) => Promise<{ status: number; headers?: unknown; data?: unknown }>): AxiosLike & { configs: Record<string, unknown>[] } {
  const configs: Record<string, unknown>[] = [];
  return {
    configs,
    request(config) {
      configs.push(config);
      return reply(config);
    },
  };
}

describe('axios transport', () => {
  const URL_PATH = `/track?platform=sms&apiKey=${SECRET}&type=incoming`;

  it('POSTs through the given instance and returns every status (404, 500) with Retry-After and the body as text', async () => {
    let status = 404;
    const server = await startServer((_req, res) => {
      res.writeHead(status, ['Retry-After', '12', 'content-type', 'application/json']);
      res.end(`{"status":${status}}`);
    });
    const transport = createAxiosTransport({ axios: axios.create() });
    const headers = { 'content-type': 'application/json', 'x-api-key': SECRET };
    expect(await transport.send(post(`${server.origin}${URL_PATH}`, '{"a":"é"}', headers))).toStrictEqual({ status: 404, retryAfter: '12', body: '{"status":404}' });
    status = 500;
    expect(await transport.send(post(`${server.origin}${URL_PATH}`, '{"a":"é"}', headers))).toStrictEqual({ status: 500, retryAfter: '12', body: '{"status":500}' });
    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.url).toBe(URL_PATH);
    expect(request.body.toString('utf8')).toBe('{"a":"é"}');
    const sent = Object.fromEntries(pairs(request.rawHeaders).map(([n, v]) => [n.toLowerCase(), v]));
    expect(sent).toMatchObject({ 'content-type': 'application/json', 'x-api-key': SECRET });
  });

  it('loads the axios package when given no instance', async () => {
    const server = await startServer(answer(201, '{"ok":true}', ['content-type', 'application/json']));
    const transport = createAxiosTransport();
    expect(await transport.send(post(`${server.origin}/a`))).toStrictEqual({ status: 201, retryAfter: undefined, body: '{"ok":true}' });
    expect(await transport.send(post(`${server.origin}/b`))).toStrictEqual({ status: 201, retryAfter: undefined, body: '{"ok":true}' });
    expect(server.requests.map((r) => r.url)).toEqual(['/a', '/b']);
  });

  it('loads the axios package on the first send, once', async () => {
    const server = await startServer(answer(200, 'real'));
    const loadedBefore = createAxiosTransport();
    const notYetLoaded = createAxiosTransport();
    expect(await loadedBefore.send(post(`${server.origin}/1`))).toMatchObject({ status: 200, body: 'real' });
    // What `import('axios')` gives from now on.
    const fake = fakeAxios(async () => ({ status: 299, data: 'fake' }));
    vi.doMock('axios', () => ({ default: fake }));
    try {
      // Made before, first sent now: it loads the package now.
      expect(await notYetLoaded.send(post(`${server.origin}/2`))).toStrictEqual({ status: 299, retryAfter: undefined, body: 'fake' });
      // Sent before: it keeps the instance it loaded then.
      expect(await loadedBefore.send(post(`${server.origin}/3`))).toMatchObject({ status: 200, body: 'real' });
    } finally {
      vi.doUnmock('axios');
    }
    expect(fake.configs.map((c) => c.url)).toEqual([`${server.origin}/2`]);
    expect(server.requests.map((r) => r.url)).toEqual(['/1', '/3']);
  });

  it('returns a redirect as it is, without following it', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/from') res.writeHead(302, ['Location', '/to']).end('moved');
      else res.writeHead(200).end('followed');
    });
    expect(await createAxiosTransport({ axios: axios.create() }).send(post(`${server.origin}/from`))).toStrictEqual({ status: 302, retryAfter: undefined, body: 'moved' });
    expect(server.requests.map((r) => r.url)).toEqual(['/from']);
  });

  it('keeps exactly MAX_RESPONSE_BODY_CHARS characters of a longer body', async () => {
    const server = await startServer(answer(500, '€'.repeat(3_000)));
    expect(await createAxiosTransport({ axios: axios.create() }).send(post(`${server.origin}/`))).toStrictEqual({ status: 500, retryAfter: undefined, body: '€'.repeat(MAX_RESPONSE_BODY_CHARS) });
  });

  it('passes axios a POST of the body and headers, with the timeout, no redirects, text, every status valid and the data left as is', async () => {
    const fake = fakeAxios(async () => ({ status: 200, headers: {}, data: 'ok' }));
    const headers = { 'content-type': 'application/json' };
    expect(await createAxiosTransport({ axios: fake }).send({ url: 'http://t.example/track?x=1', body: '{"b":2}', headers, timeoutMs: 1_234 })).toStrictEqual({ status: 200, retryAfter: undefined, body: 'ok' });
    expect(fake.configs).toHaveLength(1);
    const { validateStatus, transformResponse, ...rest } = fake.configs[0] as { validateStatus: (s: number) => unknown; transformResponse: ((d: unknown) => unknown)[]; headers: unknown };
    expect(rest).toStrictEqual({ url: 'http://t.example/track?x=1', method: 'POST', data: '{"b":2}', headers, timeout: 1_234, responseType: 'text', maxRedirects: 0 });
    expect(rest.headers).toBe(headers);
    expect([100, 200, 302, 404, 500, 599].map((s) => validateStatus(s))).toEqual(Array(6).fill(true));
    expect(transformResponse).toHaveLength(1);
    const data = { kept: true };
    expect(transformResponse[0]('{"a":1}')).toBe('{"a":1}');
    expect(transformResponse[0](data)).toBe(data);
  });

  it.each([
    ['a plain object', { 'retry-after': '30' }, '30'],
    ['a plain object, without it', { 'content-type': 'text/plain' }, undefined],
    ['a plain object with a number', { 'retry-after': 30 }, undefined],
    ['an object with get() (as AxiosHeaders)', { get: (name: string) => (name.toLowerCase() === 'retry-after' ? '45' : undefined) }, '45'],
    ['an object with get() that gives a non-string', { get: () => ['45'], 'retry-after': '1' }, undefined],
    ['null', null, undefined],
    ['undefined', undefined, undefined],
    ['a string', 'retry-after: 5', undefined],
  ] as [string, unknown, string | undefined][])('reads Retry-After from headers that are %s', async (_name, headers, expected) => {
    const fake = fakeAxios(async () => ({ status: 503, headers, data: 'later' }));
    expect(await createAxiosTransport({ axios: fake }).send(post('http://t.example/'))).toStrictEqual({ status: 503, retryAfter: expected, body: 'later' });
  });

  it('reads Retry-After from real AxiosHeaders', async () => {
    const fake = fakeAxios(async () => ({ status: 429, headers: new axios.AxiosHeaders({ 'Retry-After': '15' }), data: '' }));
    expect(await createAxiosTransport({ axios: fake }).send(post('http://t.example/'))).toStrictEqual({ status: 429, retryAfter: '15', body: '' });
  });

  it.each([
    ['an object', { parsed: true }],
    ['a Buffer', Buffer.from('bytes')],
    ['missing', undefined],
  ] as [string, unknown][])('gives no body when data is %s', async (_name, data) => {
    const fake = fakeAxios(async () => ({ status: 400, headers: {}, data }));
    expect(await createAxiosTransport({ axios: fake }).send(post('http://t.example/'))).toStrictEqual({ status: 400, retryAfter: undefined, body: undefined });
  });

  it('cuts a string body from axios to MAX_RESPONSE_BODY_CHARS characters', async () => {
    const fake = fakeAxios(async () => ({ status: 500, data: 'z'.repeat(MAX_RESPONSE_BODY_CHARS + 1) }));
    expect(await createAxiosTransport({ axios: fake }).send(post('http://t.example/'))).toStrictEqual({ status: 500, retryAfter: undefined, body: 'z'.repeat(MAX_RESPONSE_BODY_CHARS) });
  });

  /** Asserts that `error` is a plain Error that shows nothing of the key, of URL_PATH's query or of the request. */
  function expectNothingSecret(error: unknown): void {
    expect(error).toBeInstanceOf(Error);
    const e = error as Error & Record<string, unknown>;
    for (const text of [JSON.stringify(e), e.message, e.stack ?? '', String(e)]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('platform=sms');
    }
    expect('config' in e).toBe(false);
    expect('request' in e).toBe(false);
    expect('response' in e).toBe(false);
    expect('cause' in e).toBe(false);
  }

  it("re-throws axios's own timeout (ECONNABORTED) as a plain error with code ETIMEDOUT", async () => {
    const server = await startServer(hold);
    const error = await rejection(createAxiosTransport({ axios: axios.create() }).send(post(`${server.origin}${URL_PATH}`, '{}', { 'x-api-key': SECRET }, 80)));
    expect({ name: error.name, code: error.code, message: error.message, stack: error.stack }).toEqual({
      name: 'AxiosError',
      code: 'ETIMEDOUT',
      message: 'timeout of 80ms exceeded',
      stack: 'AxiosError: timeout of 80ms exceeded',
    });
    expectNothingSecret(error);
  });

  it('re-throws a refused connection with its code ECONNREFUSED and nothing of the request', async () => {
    const port = await closedPort();
    const error = await rejection(createAxiosTransport({ axios: axios.create() }).send(post(`http://127.0.0.1:${port}${URL_PATH}`, `{"apiKey":"${SECRET}"}`, { 'x-api-key': SECRET, authorization: `Bearer ${SECRET}` })));
    expect({ name: error.name, code: error.code, message: error.message }).toEqual({ name: 'Error', code: 'ECONNREFUSED', message: `connect ECONNREFUSED 127.0.0.1:${port}` });
    expectNothingSecret(error);
  });

  it.each([
    ['ECONNABORTED', 'ETIMEDOUT'],
    ['ETIMEDOUT', 'ETIMEDOUT'],
    ['ECONNRESET', 'ECONNRESET'],
    ['ERR_BAD_RESPONSE', 'ERR_BAD_RESPONSE'],
    [undefined, undefined],
  ] as [string | undefined, string | undefined][])('re-throws an error with code %s as code %s, its message scrubbed of the key', async (code, expected) => {
    const fake = fakeAxios(async (config) => {
      throw Object.assign(new Error(`failed to send to http://t.example/track?apiKey=${SECRET}&x=1`), { name: 'AxiosError', code, config, request: {}, response: { status: 0 } });
    });
    const error = await rejection(createAxiosTransport({ axios: fake }).send(post(`http://t.example/track?apiKey=${SECRET}&x=1`, '{}', { 'x-api-key': SECRET })));
    expect({ name: error.name, code: error.code, message: error.message }).toStrictEqual({ name: 'AxiosError', code: expected, message: 'failed to send to http://t.example/track?apiKey=***&x=1' });
    expect('code' in error).toBe(expected !== undefined);
    expectNothingSecret(error);
  });
});
