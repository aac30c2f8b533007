/**
 * The endpoint's own log of refused requests: one line for each (method, path without its query,
 * status, the client's address and why; never a key), and a summary of what was accepted and
 * refused, every summaryIntervalMs when something happened and once more at close().
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { RequestLog } from '../../src/http/request-log.js';
import { sendError } from '../../src/http/respond.js';
import { KEY, Q, connect, message, readUntilClose, request, start, track } from '../helpers.js';

let endpoint: TrackingEndpoint | undefined;
let log: string[] = [];
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
  log = [];
});

async function begin(options: Parameters<typeof start>[0] = {}): Promise<TrackingEndpoint> {
  endpoint = await start({ log: (line) => log.push(line), summaryIntervalMs: 0, ...options });
  return endpoint;
}

const summaries = () => log.filter((line) => /^tracking endpoint: (since start: )?\d+ records? accepted/.test(line));

describe('each refused request', () => {
  it('is logged in one line: method, path without its query, status, client address and why — never the key', async () => {
    const ep = await begin();
    await track(ep, { ...Q.universalIn, apiKey: 'secret-wrong-key-9' }, message('u1', 'hi'));
    expect(log).toEqual([
      'tracking endpoint: refused POST /track with 401 from 127.0.0.1: Unknown API key: use one of the keys this endpoint was started with (--key). (apiKey: expected a key this endpoint accepts)',
    ]);
    expect(log.join('\n')).not.toContain('secret-wrong-key-9');
  });

  it('gives the first problem of those it was refused for, and the error alone when there are none', async () => {
    const ep = await begin();
    await track(ep, { apiKey: KEY }, message('u1', 'hi'));
    await request(ep, '/api/summary', { method: 'PUT' });
    expect(log).toEqual([
      'tracking endpoint: refused POST /track with 400 from 127.0.0.1: The query string does not make a valid tracking request. (type: expected one of "incoming", "outgoing", "event")',
      'tracking endpoint: refused PUT /api/summary with 405 from 127.0.0.1: PUT is not allowed on /api/summary; use GET, HEAD.',
    ]);
  });

  it('shows at most 100 characters of the path', async () => {
    const ep = await begin();
    const path = `/${'p'.repeat(200)}`;
    await request(ep, path);
    expect(log[0].startsWith(`tracking endpoint: refused GET ${path.slice(0, 100)} with 404 from 127.0.0.1: `)).toBe(true);
  });

  it('is not logged when the request was answered', async () => {
    const ep = await begin();
    await track(ep, Q.universalIn, message('u1', 'hi'));
    await request(ep, '/api/summary');
    expect(log).toEqual([]);
  });
});

describe('a request Node answers before any route', () => {
  it('is logged and counted too: not valid HTTP (400), headers too large (431), a body that stops arriving (408)', async () => {
    const ep = await begin({ requestTimeoutMs: 300, headersTimeoutMs: 300 });
    const sendRaw = async (text: string) => {
      const socket = await connect(ep);
      socket.write(text);
      await readUntilClose(socket, 10_000);
      socket.destroy();
    };
    await sendRaw('HELLO THERE\r\n\r\n');
    await sendRaw(`GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    await sendRaw(`POST /track?${new URLSearchParams(Q.universalIn)} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"te`);
    await ep.close();
    expect(log.filter((line) => !summaries().includes(line))).toEqual([
      'tracking endpoint: refused a request with 400 from 127.0.0.1: The request is not valid HTTP.',
      'tracking endpoint: refused a request with 431 from 127.0.0.1: The request headers are too large.',
      'tracking endpoint: refused a request with 408 from 127.0.0.1: The request took too long to arrive; the connection is closed. Send the whole request at once.',
    ]);
    expect(summaries()).toEqual(['tracking endpoint: since start: 0 records accepted, 3 requests refused (400: 1, 408: 1, 431: 1); records kept in memory only (lost on stop).']);
    expect(log.join('\n')).not.toContain(KEY);
  });
});

describe('a connection that never sends a byte (a browser\'s preconnect)', () => {
  it('is closed without an answer, a log line or a count, while one that sent part of a request is refused with 408', async () => {
    const ep = await begin({ requestTimeoutMs: 300, headersTimeoutMs: 300 });
    const silent = await connect(ep);
    const closed = await readUntilClose(silent, 10_000);
    expect(closed).toMatchObject({ data: '', closed: true });
    silent.destroy();
    expect(log).toEqual([]);
    const partial = await connect(ep);
    partial.write('GET / HTTP/1.1\r\nHost: 1');
    expect((await readUntilClose(partial, 10_000)).data).toMatch(/^HTTP\/1\.1 408 /);
    partial.destroy();
    await ep.close();
    expect(log).toEqual([
      'tracking endpoint: refused a request with 408 from 127.0.0.1: The request took too long to arrive; the connection is closed. Send the whole request at once.',
      'tracking endpoint: since start: 0 records accepted, 1 request refused (408: 1); records kept in memory only (lost on stop).',
    ]);
  });
});

describe('the line at close()', () => {
  it('counts everything since start, also what the minute summaries already said', async () => {
    const ep = await begin({ summaryIntervalMs: 50 });
    const accepted = (line: string) => Number(/: (?:since start: )?(\d+) records? accepted/.exec(line)![1]);
    await track(ep, Q.universalIn, message('u1', 'a'));
    await track(ep, Q.universalIn, message('u1', 'b'));
    // However the 50 ms summaries fall between the requests, they say the two records once each.
    await expect.poll(() => summaries().reduce((sum, line) => sum + accepted(line), 0)).toBe(2);
    const before = summaries().length;
    await track(ep, Q.universalIn, message('u1', 'c'));
    await track(ep, { ...Q.universalIn, apiKey: 'nope' }, message('u1', 'd'));
    await expect.poll(() => summaries().slice(before).reduce((sum, line) => sum + accepted(line), 0)).toBe(1);
    await expect.poll(() => summaries().some((line) => line.includes('(401: 1)'))).toBe(true);
    const minutes = summaries().length;
    await ep.close();
    // One more line at close: everything since start, though each minute was said already.
    expect(summaries()).toHaveLength(minutes + 1);
    expect(summaries().at(-1)).toBe('tracking endpoint: since start: 3 records accepted, 1 request refused (401: 1); records kept in memory only (lost on stop).');
  });

  it('counts masked records and waits past their bound since start too', () => {
    const lines: string[] = [];
    const requests = new RequestLog((line) => lines.push(line), 0);
    for (const [status, path] of [[200, '/track'], [503, '/track']] as const) {
      const { req, res, finish } = exchange(status, '127.0.0.1');
      requests.watch(req, res, path);
      finish();
    }
    requests.masked();
    requests.waitedPast('write');
    requests.summarise();
    const ok = exchange(200, '127.0.0.1');
    requests.watch(ok.req, ok.res, '/track');
    ok.finish();
    requests.masked();
    requests.close();
    expect(lines.filter((line) => line.includes('accepted'))).toEqual([
      'tracking endpoint: 1 record accepted (1 masked), 1 request refused (503: 1); waited past their bound for the views: 0 reads, 1 write (not stored).',
      'tracking endpoint: since start: 2 records accepted (2 masked), 1 request refused (503: 1); waited past their bound for the views: 0 reads, 1 write (not stored).',
    ]);
  });
});

/** A response to watch: finished by hand, with the status and (for a refusal) the reason given. */
function exchange(status: number, remoteAddress: string | undefined, error?: string): { req: IncomingMessage; res: ServerResponse; finish: () => void } {
  const res = Object.assign(new EventEmitter(), { statusCode: status, headersSent: false, destroyed: false, writeHead: () => res, end: () => res });
  if (error !== undefined) sendError(res as unknown as ServerResponse, status, error);
  const req = { method: 'GET', socket: { remoteAddress } } as unknown as IncomingMessage;
  return { req, res: res as unknown as ServerResponse, finish: () => res.emit('finish') };
}

describe('the line of a refused request, as RequestLog writes it', () => {
  it('shows at most 300 characters of the reason', () => {
    const lines: string[] = [];
    const requests = new RequestLog((line) => lines.push(line), 0);
    const { req, res, finish } = exchange(400, '10.0.0.7', 'r'.repeat(400));
    requests.watch(req, res, '/api/x');
    finish();
    expect(lines).toEqual([`tracking endpoint: refused GET /api/x with 400 from 10.0.0.7: ${'r'.repeat(300)}`]);
  });

  it('says the address is unknown when the client is already gone, and the reason is empty when none was given', () => {
    const lines: string[] = [];
    const requests = new RequestLog((line) => lines.push(line), 0);
    const { req, res, finish } = exchange(499, undefined);
    requests.watch(req, res, '/api/x');
    finish();
    expect(lines).toEqual(['tracking endpoint: refused GET /api/x with 499 from an unknown address: ']);
  });

  it('counts a status under 400 as answered, and only a /track answer as an accepted record', () => {
    const lines: string[] = [];
    const requests = new RequestLog((line) => lines.push(line), 0);
    for (const [status, path] of [[200, '/track'], [399, '/track'], [200, '/api/summary'], [400, '/track']] as const) {
      const { req, res, finish } = exchange(status, '127.0.0.1');
      requests.watch(req, res, path);
      finish();
    }
    requests.close();
    expect(lines.at(-1)).toBe('tracking endpoint: since start: 2 records accepted, 1 request refused (400: 1).');
  });

  it('counts the reads and writes answered 503 after waiting for the views past their bound, in the summary only when there were some', () => {
    const lines: string[] = [];
    const requests = new RequestLog((line) => lines.push(line), 0, () => 'records kept in sqlite (x.db)');
    for (const path of ['/api/summary', '/track', '/track']) {
      const { req, res, finish } = exchange(503, '127.0.0.1', 'catching up');
      requests.watch(req, res, path);
      finish();
    }
    requests.waitedPast('read');
    requests.waitedPast('write');
    requests.waitedPast('write');
    requests.summarise();
    expect(lines.at(-1)).toBe('tracking endpoint: 0 records accepted, 3 requests refused (503: 3); waited past their bound for the views: 1 read, 2 writes (not stored); records kept in sqlite (x.db).');
    const { req, res, finish } = exchange(503, '127.0.0.1', 'catching up');
    requests.watch(req, res, '/api/users');
    finish();
    requests.waitedPast('read');
    requests.waitedPast('read');
    requests.summarise();
    expect(lines.at(-1)).toBe('tracking endpoint: 0 records accepted, 1 request refused (503: 1); waited past their bound for the views: 2 reads, 0 writes (not stored); records kept in sqlite (x.db).');
    const ok = exchange(200, '127.0.0.1');
    requests.watch(ok.req, ok.res, '/track');
    ok.finish();
    requests.waitedPast('write');
    requests.summarise();
    expect(lines.at(-1)).toBe('tracking endpoint: 1 record accepted, 0 requests refused; waited past their bound for the views: 0 reads, 1 write (not stored); records kept in sqlite (x.db).');
    requests.summarise();
    requests.watch(ok.req, exchange(200, '127.0.0.1').res, '/api/x');
    expect(lines).toHaveLength(7);
  });
});

describe('the summary', () => {
  it('is logged at close(): records accepted, requests refused by status in order, and where records are kept', async () => {
    const ep = await begin();
    await track(ep, Q.universalIn, message('u1', 'a'));
    await track(ep, Q.universalIn, message('u1', 'b'));
    await request(ep, '/nowhere');
    await track(ep, { ...Q.universalIn, apiKey: 'nope' }, message('u1', 'c'));
    await track(ep, { ...Q.universalIn, apiKey: 'nope' }, message('u1', 'd'));
    await request(ep, '/api/summary');
    await ep.close();
    expect(summaries()).toEqual(['tracking endpoint: since start: 2 records accepted, 3 requests refused (401: 2, 404: 1); records kept in memory only (lost on stop).']);
  });

  it('says "1 record" and "1 request", and lists no statuses when nothing was refused', async () => {
    const ep = await begin();
    await track(ep, Q.universalIn, message('u1', 'a'));
    await ep.close();
    expect(summaries()).toEqual(['tracking endpoint: since start: 1 record accepted, 0 requests refused; records kept in memory only (lost on stop).']);
    const again = await begin();
    await request(again, '/nowhere');
    await again.close();
    expect(summaries().at(-1)).toBe('tracking endpoint: since start: 0 records accepted, 1 request refused (404: 1); records kept in memory only (lost on stop).');
  });

  it('is not logged when nothing happened', async () => {
    const ep = await begin();
    await ep.close();
    expect(log).toEqual([]);
  });

  it('is logged every summaryIntervalMs when something happened, counting from the last one', async () => {
    const ep = await begin({ summaryIntervalMs: 50 });
    await track(ep, Q.universalIn, message('u1', 'a'));
    await expect.poll(summaries).toEqual(['tracking endpoint: 1 record accepted, 0 requests refused; records kept in memory only (lost on stop).']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(summaries()).toHaveLength(1);
    await request(ep, '/nowhere');
    await expect.poll(() => summaries().at(-1)).toBe('tracking endpoint: 0 records accepted, 1 request refused (404: 1); records kept in memory only (lost on stop).');
  });

  it('is not logged on a timer with summaryIntervalMs 0, only at close()', async () => {
    const ep = await begin({ summaryIntervalMs: 0 });
    await track(ep, Q.universalIn, message('u1', 'a'));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(summaries()).toEqual([]);
    await ep.close();
    expect(summaries()).toHaveLength(1);
  });
});

describe('RequestLog on its own', () => {
  it('says "an unknown address" for a connection refused whose address is gone, and joins the summary\'s notes with "; "', () => {
    const lines: string[] = [];
    const requests = new RequestLog((line) => lines.push(line), 0);
    requests.refusedConnection(400, 'not valid HTTP', undefined);
    expect(lines).toEqual(['tracking endpoint: refused a request with 400 from an unknown address: not valid HTTP']);
    // A record stored with something masked, and one with two entries placed at arrival.
    const accepted = Object.assign(new EventEmitter(), { statusCode: 200 }) as unknown as ServerResponse;
    requests.answered({ method: 'POST', socket: {} } as IncomingMessage, accepted, '/track');
    requests.masked();
    requests.placedAtArrival(2);
    requests.close();
    expect(lines.at(-1)).toBe('tracking endpoint: since start: 1 record accepted (1 masked; 2 entries dated more than a day ahead of this endpoint\'s clock, placed at arrival), 1 request refused (400: 1).');
  });
});
