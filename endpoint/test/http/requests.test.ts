/**
 * How the endpoint answers requests before any handler: malformed HTTP, slow and oversized
 * headers, request targets in every form, unknown paths and methods, the `Host` it answers to,
 * and a handler that fails. Raw sockets where fetch would not send the request as written.
 */
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { Q, connect, message, readUntilClose, request, start, track } from '../helpers.js';

let endpoint: TrackingEndpoint | undefined;
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await endpoint?.close();
  endpoint = undefined;
});

async function begin(options: Parameters<typeof start>[0] = {}): Promise<TrackingEndpoint> {
  endpoint = await start(options);
  return endpoint;
}

/** Sends `text` on a new connection and reads until the endpoint closes it: status line, headers, body. */
async function raw(target: TrackingEndpoint, text: string): Promise<{ statusLine: string; headers: Record<string, string>; body: any; closed: boolean }> {
  const socket = await connect(target);
  sockets.push(socket);
  socket.write(text);
  const { data, closed } = await readUntilClose(socket, 10_000);
  const end = data.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = data.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { statusLine, headers, body: JSON.parse(data.slice(end + 4)), closed };
}

const trackPath = `/track?${new URLSearchParams(Q.universalIn)}`;
const body = JSON.stringify(message('u1', 'hi'));
const post = (target: string, host = '127.0.0.1') => `POST ${target} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;

describe('requests Node cannot take', () => {
  it('answers a request that is not HTTP with "400 Bad Request", a JSON reason, and closes the connection', async () => {
    const ep = await begin();
    const res = await raw(ep, 'HELLO THERE\r\n\r\n');
    expect(res.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(res.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', connection: 'close' });
    expect(res.body).toEqual({ ok: false, error: 'The request is not valid HTTP.' });
    expect(res.closed).toBe(true);
  });

  it('answers headers over the size limit with "431 Request Header Fields Too Large"', async () => {
    const ep = await begin();
    const res = await raw(ep, `GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(res.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(res.body).toEqual({ ok: false, error: 'The request headers are too large.' });
    expect(res.closed).toBe(true);
  });

  it('answers a body that stops arriving with "408 Request Timeout", saying to send the whole request at once', async () => {
    const ep = await begin({ requestTimeoutMs: 300, headersTimeoutMs: 300 });
    const res = await raw(ep, `POST ${trackPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"te`);
    expect(res.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(res.body).toEqual({ ok: false, error: 'The request took too long to arrive; the connection is closed. Send the whole request at once.' });
    expect(res.closed).toBe(true);
  });
});

describe('how connections end', () => {
  it('cuts, without a second answer, a connection that sends garbage while an answer is under way', async () => {
    const ep = await begin();
    const socket = await connect(ep);
    sockets.push(socket);
    const started = new Promise((resolve) => socket.once('data', resolve));
    const all = readUntilClose(socket, 10_000);
    socket.write('GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await started;
    socket.write('NOT HTTP AT ALL\r\n\r\n');
    const { data, closed } = await all;
    expect(closed).toBe(true);
    expect(data).toMatch(/^HTTP\/1\.1 200 /);
    expect(data.match(/HTTP\/1\.1 /g)).toHaveLength(1);
  });

  it('closes a connection it answered for bad HTTP at once, even when the client keeps its own side open', async () => {
    const ep = await begin();
    const socket = net.connect({ port: ep.port, host: '127.0.0.1', allowHalfOpen: true });
    sockets.push(socket);
    socket.on('error', () => undefined);
    socket.resume();
    const ended = new Promise((resolve) => socket.once('end', resolve));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write('HELLO THERE\r\n\r\n');
    await ended;
    const endedAt = performance.now();
    // Writing to a connection the endpoint has closed is refused (a reset), which the next write here notices.
    let isClosed = false;
    void closed.then(() => (isClosed = true));
    while (!isClosed && performance.now() - endedAt < 900) {
      socket.write('anyone there?');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(isClosed).toBe(true);
    expect(performance.now() - endedAt).toBeLessThan(700);
  });

  it('closes a connection whose headers stop arriving soon after headersTimeoutMs, checking often enough', async () => {
    const ep = await begin({ requestTimeoutMs: 240, headersTimeoutMs: 240 });
    const socket = await connect(ep);
    sockets.push(socket);
    socket.write(`POST ${trackPath} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
    const { closed, ms } = await readUntilClose(socket, 5_000);
    expect(closed).toBe(true);
    expect(ms).toBeLessThan(700);
  });
});

describe('starting', () => {
  it('refuses to start on a port already in use, saying so', async () => {
    const ep = await begin();
    await expect(start({ port: ep.port })).rejects.toThrow(`Port ${ep.port} on 127.0.0.1 is already in use.`);
    expect((await request(ep, '/healthz')).status).toBe(200);
  });
});

describe('request targets', () => {
  it('takes a target in absolute form (http://host/track?…)', async () => {
    const ep = await begin();
    const res = await raw(ep, post(`http://127.0.0.1:${ep.port}${trackPath}`));
    expect(res.statusLine).toMatch(/^HTTP\/1\.1 200 /);
    expect(res.body).toEqual({ ok: true, id: 1 });
  });

  it('reads a target it cannot make sense of as /', async () => {
    const ep = await begin();
    const res = await raw(ep, 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(res.statusLine).toMatch(/^HTTP\/1\.1 405 /);
    expect(res.body.error).toBe('OPTIONS is not allowed on /; use GET, HEAD.');
  });

  it('takes a path with a trailing slash as the same path', async () => {
    const ep = await begin();
    expect((await track(ep, Q.universalIn, message('u1', 'hi'))).status).toBe(200);
    const res = await raw(ep, post(`/track/?${new URLSearchParams(Q.universalIn)}`));
    expect(res.body).toEqual({ ok: true, id: 2 });
    expect((await request(ep, '/api/summary/')).body.records).toBe(2);
  });

  it('answers an unknown path with 404 naming it (cut to 100 characters) and where to go', async () => {
    const ep = await begin();
    expect((await request(ep, '/v1/track?apiKey=x')).body).toEqual({ ok: false, error: 'Nothing at /v1/track. Tracking requests go to POST /track; the index at /api lists the read endpoints.' });
    const long = `/${'a'.repeat(150)}`;
    expect((await request(ep, long)).body.error).toBe(`Nothing at ${long.slice(0, 100)}. Tracking requests go to POST /track; the index at /api lists the read endpoints.`);
  });

  it('answers a method a path does not take with 405, naming the method, the path and what it takes', async () => {
    const ep = await begin();
    const onTrack = await request(ep, trackPath, { method: 'GET' });
    expect(onTrack.body).toEqual({ ok: false, error: 'GET is not allowed on /track; use POST.' });
    const onRead = await request(ep, '/api/summary', { method: 'DELETE' });
    expect(onRead.body).toEqual({ ok: false, error: 'DELETE is not allowed on /api/summary; use GET, HEAD.' });
    expect(onRead.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('HEAD', () => {
  it('answers HEAD on a read route as GET would, without a body', async () => {
    const ep = await begin();
    await track(ep, Q.universalIn, message('u1', 'hi'));
    const get = await fetch(`${ep.url}/api/summary`);
    const head = await fetch(`${ep.url}/api/summary`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(await head.text()).toBe('');
  });

  it('refuses HEAD with 405 on a path that takes only POST, and stores nothing', async () => {
    const ep = await begin();
    const res = await fetch(`${ep.url}${trackPath}`, { method: 'HEAD' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await ep.store.count()).toBe(0);
  });
});

describe('the Host it answers to', () => {
  /** The status of a GET /api/summary addressed to `host` (`undefined`: no Host header, HTTP/1.0). */
  async function statusFor(target: TrackingEndpoint, host: string | undefined): Promise<number> {
    const head = host === undefined ? 'GET /api/summary HTTP/1.0\r\n\r\n' : `GET /api/summary HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
    return Number((await raw(target, head)).statusLine.split(' ')[1]);
  }

  it.each([
    'localhost', 'LOCALHOST:3979', 'app.localhost', 'app.localhost:8080', '127.0.0.1', '127.1.2.3:80', '[::1]', '[::1]:3979', '[::ffff:127.0.0.1]:80',
  ])('answers a request addressed to the loopback name %s', async (host) => {
    const ep = await begin();
    expect(await statusFor(ep, host)).toBe(200);
  });

  it.each([
    'evil.example', 'localhost.evil.example', 'xlocalhost', '127.0.0.1.evil.example', '128.0.0.1', '127.0.0', '[::2]', '[::ffff:128.0.0.1]', '::1',
  ])('refuses a request addressed to %s (403), saying which names it answers', async (host) => {
    const ep = await begin();
    const res = await raw(ep, `GET /api/summary HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    expect(res.statusLine).toMatch(/^HTTP\/1\.1 403 /);
    expect(res.body).toEqual({ ok: false, error: 'This endpoint answers only requests addressed to its own name (localhost, the address it listens on, or a name given with allowedHosts / --allowed-host).' });
  });

  it('answers a request without a Host (HTTP/1.0) or with an empty one', async () => {
    const ep = await begin();
    expect(await statusFor(ep, undefined)).toBe(200);
    expect(await statusFor(ep, '')).toBe(200);
  });

  it('takes the names given with allowedHosts whatever their case', async () => {
    const ep = await begin({ allowedHosts: ['tracking.example'] });
    expect(await statusFor(ep, 'TRACKING.Example:443')).toBe(200);
    expect(await statusFor(ep, 'tracking.example.evil')).toBe(403);
  });

  it('answers any Host when listening on every interface with no names given', async () => {
    const ep = await begin({ host: '0.0.0.0' });
    const status = await new Promise<number>((resolve, reject) => {
      http.get(`http://127.0.0.1:${ep.port}/api`, { headers: { host: 'anything.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });
    expect(status).toBe(200);
  });
});

describe('close()', () => {
  it('cuts a request still arriving closeGraceMs after close(), and stores nothing of it', async () => {
    const ep = await begin({ closeGraceMs: 200, requestTimeoutMs: 60_000, headersTimeoutMs: 60_000 });
    const socket = await connect(ep);
    sockets.push(socket);
    const closed = readUntilClose(socket, 15_000);
    socket.write(`POST ${trackPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"te`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await ep.close();
    expect((await closed).closed).toBe(true);
    endpoint = undefined;
  });

  it('lets a request in progress finish, then closes its connection without waiting for closeGraceMs', async () => {
    const ep = await begin({ closeGraceMs: 10_000, keepAliveTimeoutMs: 15_000 });
    const socket = await connect(ep);
    sockets.push(socket);
    const answer = readUntilClose(socket, 15_000);
    socket.write(`POST ${trackPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = ep.close();
    socket.write(body.slice(5));
    const { data, closed, ms } = await answer;
    expect(data).toMatch(/^HTTP\/1\.1 200 /);
    expect(closed).toBe(true);
    expect(ms).toBeLessThan(6_000);
    await closing;
    endpoint = undefined;
  });

  it('closes idle keep-alive connections at once, without waiting for closeGraceMs', async () => {
    const ep = await begin({ closeGraceMs: 15_000, keepAliveTimeoutMs: 15_000 });
    const socket = await connect(ep);
    sockets.push(socket);
    const answered = new Promise((resolve) => socket.once('data', resolve));
    const answer = readUntilClose(socket, 15_000);
    socket.write(`GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await answered;
    const started = performance.now();
    await ep.close();
    endpoint = undefined;
    expect(performance.now() - started).toBeLessThan(10_000);
    expect((await answer).closed).toBe(true);
  });
});
