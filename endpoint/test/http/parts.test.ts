/**
 * The small parts of http/ on their own, where a case cannot be reached from outside the
 * endpoint (or only by timing): which names are loopback, the host of a Host header, how long a
 * silent connection may stay, answering a request only once, and reading a body whose client went
 * away.
 */
import { EventEmitter } from 'node:events';
import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readBody } from '../../src/http/body.js';
import { hostHeaderName, isLoopback } from '../../src/http/hosts.js';
import { sendError, sendJson } from '../../src/http/respond.js';
import { keepWorking, socketIdleTimeoutMs } from '../../src/http/server.js';

describe('isLoopback', () => {
  it.each([
    'localhost', 'LocalHost', 'app.localhost', 'a.b.localhost', '127.0.0.1', '127.255.0.9', '::1', '[::1]', '[::ffff:127.0.0.1]', '::ffff:127.1.2.3',
  ])('takes %s as loopback', (host) => {
    expect(isLoopback(host)).toBe(true);
  });

  it.each([
    '', 'localhost.example', 'xlocalhost', '0.0.0.0', '128.0.0.1', '10.0.0.1', '127.0.0', '127.0.0.1.example', '::2', '[::2]', '::ffff:10.0.0.1', '::ffff:127.0.0',
    '[localhos]t', 'a[.localhost]', '[::1]:80', '[127.0.0.1]x',
  ])('does not take %j as loopback', (host) => {
    expect(isLoopback(host)).toBe(false);
  });
});

describe('hostHeaderName', () => {
  it.each([
    [undefined, undefined], ['', undefined], ['example.com', 'example.com'], ['example.com:8080', 'example.com'], ['[::1]', '[::1]'], ['[::1]:3979', '[::1]'],
    ['[fe80::1]:80', '[fe80::1]'], ['127.0.0.1:80', '127.0.0.1'],
  ])('reads the host of %j as %j', (header, host) => {
    expect(hostHeaderName(header)).toBe(host);
  });
});

describe('socketIdleTimeoutMs', () => {
  it('keeps a silent connection as long as a request may take, and at least a second longer than keep-alive', () => {
    expect(socketIdleTimeoutMs({ requestTimeoutMs: 5000, keepAliveTimeoutMs: 2000 })).toBe(5000);
    expect(socketIdleTimeoutMs({ requestTimeoutMs: 300, keepAliveTimeoutMs: 2000 })).toBe(3000);
    expect(socketIdleTimeoutMs({ requestTimeoutMs: 3000, keepAliveTimeoutMs: 2000 })).toBe(3000);
  });
});

describe('keepWorking', () => {
  /** A response and its socket as the idle timer sees them: whether the answer has started, and whether the socket was destroyed. */
  function timedOut(headersSent: boolean): { handled: boolean; destroyed: boolean } {
    const res = Object.assign(new EventEmitter(), { headersSent });
    let destroyed = false;
    const socket = { destroy: () => (destroyed = true) };
    keepWorking(res as unknown as http.ServerResponse);
    const handled = res.emit('timeout', socket);
    return { handled, destroyed };
  }

  it('keeps the connection of a request being worked on (no answer started): Node destroys it only when no one listens', () => {
    expect(timedOut(false)).toEqual({ handled: true, destroyed: false });
  });

  it('cuts the connection of an answer the client stopped reading', () => {
    expect(timedOut(true)).toEqual({ handled: true, destroyed: true });
  });
});

describe('answering', () => {
  let server: http.Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  async function serve(handler: http.RequestListener): Promise<string> {
    server = http.createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('answers a request once: a second answer to it is ignored, not an error', async () => {
    const errors: unknown[] = [];
    const url = await serve((_req, res) => {
      try {
        sendJson(res, 200, { first: true });
        sendError(res, 500, 'second');
        sendJson(res, 201, { third: true }, { 'X-Third': 'yes' });
      } catch (error) {
        errors.push(error);
      }
    });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-third')).toBeNull();
    expect(await res.json()).toEqual({ first: true });
    expect(errors).toEqual([]);
  });

  it('sends a refusal as { ok: false, error, problems }, and without problems when none are given', async () => {
    const problems = [{ path: 'limit', expected: 'a whole number', received: 'something else' }];
    const url = await serve((req, res) => (req.url === '/with' ? sendError(res, 400, 'bad limit', problems, { 'X-Extra': 'yes' }) : sendError(res, 404, 'nothing here')));
    const withProblems = await fetch(`${url}/with`);
    expect(withProblems.status).toBe(400);
    expect(withProblems.headers.get('x-extra')).toBe('yes');
    expect(await withProblems.json()).toEqual({ ok: false, error: 'bad limit', problems });
    const plain = await fetch(`${url}/without`);
    expect(plain.status).toBe(404);
    expect(await plain.json()).toEqual({ ok: false, error: 'nothing here' });
  });

  it('sends JSON with its length and the extra headers given', async () => {
    const url = await serve((_req, res) => sendJson(res, 202, { text: 'é' }, { 'X-Extra': 7 }));
    const res = await fetch(url);
    expect(res.status).toBe(202);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength('{"text":"é"}')));
    expect(res.headers.get('x-extra')).toBe('7');
  });
});

describe('readBody', () => {
  /** A request that has started to send its body: `emit` what its connection does. */
  function pendingRequest(): IncomingMessage & EventEmitter {
    return Object.assign(new EventEmitter(), { headers: {}, pause: () => undefined }) as unknown as IncomingMessage & EventEmitter;
  }

  it.each(['error', 'close'])('reports a body whose connection ends with %s before it is complete as aborted', async (event) => {
    const req = pendingRequest();
    const result = readBody(req, 1000);
    req.emit('data', Buffer.from('{"te'));
    req.emit(event, new Error('socket hang up'));
    expect(await result).toEqual({ ok: false, reason: 'aborted' });
  });

  it('reads what arrives before the end, and nothing after its answer', async () => {
    const req = pendingRequest();
    const result = readBody(req, 1000);
    req.emit('data', Buffer.from('{"a":'));
    req.emit('data', Buffer.from('1}'));
    req.emit('end');
    req.emit('close');
    expect(await result).toEqual({ ok: true, text: '{"a":1}' });
    expect(req.listenerCount('data')).toBe(0);
  });

  it('refuses a body whose Content-Length is over the limit before any of it arrives', async () => {
    const req = Object.assign(pendingRequest(), { headers: { 'content-length': '5' } });
    expect(await readBody(req, 4)).toEqual({ ok: false, reason: 'too-large' });
    expect(req.listenerCount('data')).toBe(0);
  });

  it('stops listening to the body once it is over the limit', async () => {
    const req = pendingRequest();
    const result = readBody(req, 4);
    req.emit('data', Buffer.from('12345'));
    expect(await result).toEqual({ ok: false, reason: 'too-large' });
    expect(req.listenerCount('data')).toBe(0);
  });
});
