/**
 * The router's guard around every handler, on a server of its own with routes made to fail: an
 * exception (thrown, or a rejected promise) becomes a logged 500; the database being away, a
 * 503 with Retry-After; and when the answer had already begun, the connection is cut instead.
 */
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyPolicy } from '../../src/http/auth.js';
import { RequestLog } from '../../src/http/request-log.js';
import type { EndpointContext, Handler, Route } from '../../src/http/router.js';
import { closeServer, createEndpointServer, listen } from '../../src/http/server.js';
import { resolveOptions } from '../../src/options.js';
import { StoreUnavailableError, type RecordStore } from '../../src/store/store.js';

const away = () => new StoreUnavailableError('The database cannot be reached.');

const HANDLERS: Record<string, Handler> = {
  '/throws': () => {
    throw new RangeError('thrown at once');
  },
  '/rejects': async () => {
    throw new RangeError('rejected later');
  },
  '/away': () => {
    throw away();
  },
  '/away-later': async () => {
    throw away();
  },
  '/rejects-nothing': () => Promise.reject(undefined),
  '/busy': async () => {
    throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
  },
  '/fails-midway': async (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write('the start of an answer');
    await new Promise((resolve) => setTimeout(resolve, 20));
    throw new RangeError('failed midway');
  },
  '/away-midway': async (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write('the start of an answer');
    await new Promise((resolve) => setTimeout(resolve, 20));
    throw away();
  },
};

let server: Server | undefined;
let log: string[] = [];
let base: string;
afterEach(async () => {
  if (server) await closeServer(server, 200);
  server = undefined;
  log = [];
});

async function begin(): Promise<void> {
  // Timeouts far longer than any test: a connection the guard fails to cut stays open, and the test fails.
  const options = resolveOptions({ port: 0, database: false, log: (line) => log.push(line), requestTimeoutMs: 120_000, headersTimeoutMs: 120_000, keepAliveTimeoutMs: 120_000 });
  // Only what the guard asks of the store: whether an error means the database is away.
  const store = { isUnavailable: (error: unknown) => (error as { code?: string })?.code === 'SQLITE_BUSY' } as unknown as RecordStore;
  const context: EndpointContext = { options, store, keys: new KeyPolicy([], true), live: undefined as never, requests: new RequestLog(() => undefined, 0) };
  const routes = new Map<string, Route>(Object.entries(HANDLERS).map(([path, handler]) => [path, { methods: { GET: handler } }]));
  server = createEndpointServer(routes, context);
  base = `http://127.0.0.1:${await listen(server, options)}`;
}

const unexpected = () => log.filter((line) => line.startsWith('tracking endpoint: unexpected error: '));

describe('a handler that fails before answering', () => {
  it.each(['/throws', '/rejects'])('%s: answers 500 saying to see the log, and logs the error with its stack', async (path) => {
    await begin();
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ ok: false, error: 'The endpoint hit an unexpected error; the request was not processed. See the endpoint\'s log.' });
    expect(unexpected()).toHaveLength(1);
    expect(unexpected()[0]).toMatch(/^tracking endpoint: unexpected error: RangeError: (thrown at once|rejected later)\n\s+at /);
  });

  it.each(['/away', '/away-later', '/busy'])('%s: answers 503 with Retry-After when the database is away, and logs no error', async (path) => {
    await begin();
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toEqual({ ok: false, error: 'The database is not reachable right now; try again shortly.' });
    expect(unexpected()).toEqual([]);
  });

  it('answers 500 and logs a rejection that carries nothing', async () => {
    await begin();
    expect((await fetch(`${base}/rejects-nothing`)).status).toBe(500);
    expect(unexpected()).toEqual(['tracking endpoint: unexpected error: undefined']);
  });

  it('logs what is thrown even when it is not an Error', async () => {
    HANDLERS['/odd'] = () => {
      throw 'a bare string';
    };
    try {
      await begin();
      expect((await fetch(`${base}/odd`)).status).toBe(500);
      expect(unexpected()).toEqual(['tracking endpoint: unexpected error: a bare string']);
    } finally {
      delete HANDLERS['/odd'];
    }
  });
});

describe('a handler that fails after its answer began', () => {
  it.each(['/fails-midway', '/away-midway'])('%s: cuts the connection, so the client sees an incomplete answer', async (path) => {
    await begin();
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    expect(unexpected()).toHaveLength(path === '/fails-midway' ? 1 : 0);
  });
});
