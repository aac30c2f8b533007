/**
 * Hostile requests to the local endpoint over real HTTP: fast-check builds methods, paths,
 * query strings, content types and bodies (valid records, mutated ones, arbitrary JSON, binary,
 * deep nesting, `__proto__` keys, bodies over the limit), and raw bytes that are barely HTTP.
 * Every answer must be a clear 2xx/4xx (JSON for errors), never a 5xx or a hang; whatever the
 * endpoint stores must match the spec; it must keep serving; the prototype must stay clean.
 */
import http from 'node:http';
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unexpected } from '../helpers/endpoint-log.js';
import { startTrackingEndpoint, type TrackingEndpoint } from '../../src/index.js';
import { PLATFORM_KINDS, RECORD_TYPES, validate, type PlatformKind, type RecordType } from 'botbuilder-conversation-analytics/protocol';

const KEY = 'hostile-endpoint-key-52';
const LIMIT = 16 * 1024;

let endpoint: TrackingEndpoint;
const endpointLog: string[] = [];

beforeAll(async () => {
  endpoint = await startTrackingEndpoint({ port: 0, dataFile: false, apiKeys: [KEY], maxBodyBytes: LIMIT, requestTimeoutMs: 600, headersTimeoutMs: 600, log: (line) => endpointLog.push(line), closeGraceMs: 200 });
});

afterAll(async () => {
  await endpoint.close();
});

// ---- requests -------------------------------------------------------------------------------

const VERSIONS: Record<string, string> = { sms: '11.1.0-rest', twitter: '11.1.0-rest', facebook: '11.1.0-rest', universal: '10.1.1-rest' };
const validQuery = fc.record({
  platform: fc.constantFrom('sms', 'universal', 'twitter', 'facebook'),
  type: fc.constantFrom('incoming', 'outgoing', 'event'),
}).map(({ platform, type }) => [['platform', platform], ['v', type === 'event' ? '11.1.0-rest' : VERSIONS[platform]], ['type', type], ['apiKey', KEY]] as [string, string][]);
const oddValue = fc.oneof(
  fc.constantFrom('', KEY, '<API_KEY>', 'generic', '10.1.1-rest', '11.1.0-rest', 'incoming', 'sms', '__proto__', 'constructor', '-1', '1e400', '0x10', 'NaN'),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 10 }),
  fc.constant('q'.repeat(5_000)),
);
const oddParam = fc.tuple(fc.oneof(fc.constantFrom('platform', 'v', 'type', 'apiKey', 'user', 'conversation', 'limit', 'seq', '__proto__', 'constructor', 'prototype'), fc.string({ maxLength: 8 })), oddValue);
/** A valid query with some parameters changed, added, repeated or dropped; or a query made up. */
const query = fc.oneof(
  { weight: 3, arbitrary: validQuery },
  { weight: 2, arbitrary: fc.tuple(validQuery, fc.array(oddParam, { maxLength: 3 }), fc.nat(3)).map(([q, extra, drop]) => [...q.filter((_, i) => i !== drop), ...extra]) },
  { weight: 1, arbitrary: fc.array(oddParam, { maxLength: 6 }) },
);

const records = fc.oneof(
  fc.record({ text: fc.string({ maxLength: 20 }), userId: fc.string({ minLength: 1, maxLength: 8 }) }),
  fc.record({ type: fc.constantFrom('customEvent', 'revenueEvent', 'shareEvent', 'pageLaunchEvent', 'referralEvent'), name: fc.string({ maxLength: 8 }), userId: fc.string({ maxLength: 8 }), amount: fc.oneof(fc.double(), fc.string()) }, { requiredKeys: ['type'] }),
  fc.record({ object: fc.constant('page'), entry: fc.array(fc.record({ id: fc.string(), time: fc.integer(), messaging: fc.array(fc.record({ sender: fc.record({ id: fc.string() }), message: fc.record({ text: fc.string() }) })) }), { maxLength: 2 }) }),
  fc.record({ json: fc.record({ recipient: fc.record({ id: fc.string() }), message: fc.record({ text: fc.string() }) }), qs: fc.record({ access_token: fc.string() }), method: fc.constant('POST'), uri: fc.webUrl() }, { requiredKeys: ['json'] }),
);
const PROTO_BODIES = [
  '{"text":"hi","userId":"u1","__proto__":{"polluted":"yes"}}',
  '{"text":"hi","userId":"u1","platformJson":{"constructor":{"prototype":{"polluted":"yes"}}}}',
  '{"text":"hi","userId":"\\u005f_proto__","intent":{"name":"__proto__","inputs":[{"name":"__proto__","value":"x"}]}}',
  '{"type":"customEvent","name":"e","userId":"u","extraInfo":{"__proto__":{"polluted":"yes"}}}',
  '{"object":"page","entry":[{"id":"p","time":1,"messaging":[{"sender":{"id":"__proto__"},"__proto__":{"polluted":"yes"},"message":{"text":"t"}}]}]}',
];
const body = fc.oneof(
  { weight: 4, arbitrary: records.map((r) => JSON.stringify(r)) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
  { weight: 2, arbitrary: fc.constantFrom(...PROTO_BODIES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 50 }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 100 }).map((b) => Buffer.from(b)) },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 5_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`) },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 5_000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`) },
  { weight: 1, arbitrary: fc.constantFrom('', 'null', '[]', '"text"', '{"text":', '{"text":"x","userId":"u"}garbage', '\uFEFF{"text":"bom","userId":"u"}') },
  { weight: 1, arbitrary: fc.constant(JSON.stringify({ text: 'x'.repeat(LIMIT + 10), userId: 'big' })) },
);
const nonEmpty = fc.string({ minLength: 1, maxLength: 10 });
const extraObject = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 });
/** A query and a body that match each other (a record the endpoint should accept), sometimes with prototype-altering keys added. */
const validPair = fc.tuple(
  fc.oneof(
    fc.record({ platform: fc.constantFrom('sms', 'universal', 'twitter'), type: fc.constantFrom('incoming', 'outgoing'), body: fc.record({ text: fc.string({ maxLength: 30 }), userId: nonEmpty, platformJson: extraObject }, { requiredKeys: ['text', 'userId'] }) }),
    fc.record({ platform: fc.constantFrom('sms', 'universal', 'twitter', 'facebook'), type: fc.constant('event'), body: fc.record({ type: fc.constant('customEvent'), name: nonEmpty, userId: nonEmpty, extraInfo: extraObject }, { requiredKeys: ['type', 'name', 'userId'] }) }),
    fc.record({ platform: fc.constant('facebook'), type: fc.constant('incoming'), body: fc.record({ object: fc.constant('page'), entry: fc.array(fc.record({ id: fc.string(), time: fc.integer(), messaging: fc.array(fc.record({ sender: fc.record({ id: nonEmpty }), recipient: fc.record({ id: fc.string() }), timestamp: fc.integer(), message: fc.record({ text: fc.string() }) }), { minLength: 1, maxLength: 2 }) }), { minLength: 1, maxLength: 2 }) }) }),
    fc.record({ platform: fc.constant('facebook'), type: fc.constant('outgoing'), body: fc.record({ json: fc.record({ recipient: fc.record({ id: nonEmpty }), message: fc.record({ text: fc.string() }) }), qs: fc.record({ access_token: fc.string() }), method: fc.constant('POST'), uri: fc.webUrl() }, { requiredKeys: ['json'] }) }),
  ),
  fc.constantFrom('', '"__proto__":{"polluted":"yes"},', '"constructor":{"prototype":{"polluted":"yes"}},'),
).map(([{ platform, type, body }, inject]) => ({
  query: [['platform', platform], ['v', type === 'event' ? '11.1.0-rest' : VERSIONS[platform]], ['type', type], ['apiKey', KEY]] as [string, string][],
  body: `{${inject}${JSON.stringify(body).slice(1)}`,
}));

const contentType = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') },
  { weight: 2, arbitrary: fc.constantFrom(undefined, '', 'APPLICATION/JSON', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/jsonp', 'application/json, text/plain') },
  { weight: 1, arbitrary: fc.stringMatching(/^[\x20-\x7e]{0,40}$/) },
);
const method = fc.oneof({ weight: 6, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE') });
const path = fc.oneof(
  { weight: 8, arbitrary: fc.constant('/track') },
  { weight: 1, arbitrary: fc.constantFrom('/track/', '/TRACK', '/track/x', '//track', '/api', '/api/users', '/api/transcript', '/api/summary', '/api/conversations', '/', '/page/app.js', '/%2e%2e/etc/passwd', '/api/../track') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 30 }).map((s) => `/${encodeURI(s).replace(/[?#]/g, '')}`) },
);

const request = fc.oneof(
  { weight: 1, arbitrary: fc.record({ m: fc.constant('POST'), p: fc.constant('/track'), pair: validPair, type: fc.constantFrom('application/json', 'application/json; charset=utf-8') }).map(({ m, p, pair, type }) => ({ m, p, q: pair.query, type: type as string | undefined, payload: pair.body as string | Buffer })) },
  { weight: 2, arbitrary: fc.record({ m: method, p: path, q: query, type: contentType, payload: body }) },
);

interface Answer {
  status?: number;
  contentType?: string;
  text: string;
  /** The connection failed before an answer (allowed only while sending a body over the limit). */
  error?: string;
}

function send(m: string, p: string, q: [string, string][], type: string | undefined, payload: string | Buffer): Promise<Answer> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { 'content-length': Buffer.byteLength(payload) };
    if (type !== undefined) headers['content-type'] = type;
    const search = new URLSearchParams(q).toString();
    const req = http.request({ host: '127.0.0.1', port: endpoint.port, method: m, path: `${p}${search ? `?${search}` : ''}`, headers, agent: false }, (res) => {
      const type = res.headers['content-type'];
      if (type?.includes('event-stream')) {
        resolve({ status: res.statusCode, contentType: type, text: '' });
        req.destroy();
        return;
      }
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, contentType: type, text }));
      res.on('error', (e) => resolve({ error: e.message, text }));
    });
    req.setTimeout(3_000, () => req.destroy(new Error('no answer within 3 s')));
    req.on('error', (e) => resolve({ error: `${(e as NodeJS.ErrnoException).code ?? ''} ${e.message}`, text: '' }));
    req.end(m === 'GET' || m === 'HEAD' ? undefined : payload);
  });
}

function dangerousKeys(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return Object.keys(value).some((key) => {
    const child = (value as Record<string, unknown>)[key];
    return key === '__proto__' || (key === 'constructor' && typeof child === 'object' && child !== null && 'prototype' in child) || dangerousKeys(child);
  });
}

const KIND_OF: Record<string, PlatformKind> = { sms: 'sms', universal: 'universal', twitter: 'directMessage', facebook: 'messenger' };

describe('the local endpoint against hostile requests', () => {
  it('answers every request with a 2xx or a 4xx (JSON for errors), never a 5xx or a hang, and stores only records that match the spec', async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(request, async ({ m, p, q, type, payload }) => {
        const before = (await endpoint.store.count());
        const answer = await send(m, p, q, type, payload);
        if (answer.error !== undefined) {
          // The endpoint may cut a connection while the client is still sending, but only one it refused
          // for its size: a body over the limit, or a request line over Node's 16 KiB header limit (431).
          const head = p.length + new URLSearchParams(q).toString().length;
          expect({ error: answer.error, oversized: Buffer.byteLength(payload) > LIMIT || head > 16_000 }).toMatchObject({ oversized: true });
          return;
        }
        expect(answer.status).toBeGreaterThanOrEqual(200);
        expect(answer.status).toBeLessThan(500);
        if (answer.status! >= 400 && m !== 'HEAD') {
          expect(answer.contentType).toContain('application/json');
          expect(JSON.parse(answer.text)).toMatchObject({ ok: false, error: expect.any(String) });
        }
        const stored = (await endpoint.store.records({ limit: 1_000_000 })).slice(before);
        if (m === 'POST' && (p === '/track' || p === '/track/') && answer.status === 200) { // the router ignores one trailing slash
          accepted++;
          expect(JSON.parse(answer.text)).toMatchObject({ ok: true, id: expect.any(Number) });
          expect(stored).toHaveLength(1);
          const [record] = stored;
          expect(dangerousKeys(record.body)).toBe(false);
          if (record.type !== 'generic') {
            const kind = KIND_OF[record.platform ?? ''];
            expect(PLATFORM_KINDS).toContain(kind);
            expect(RECORD_TYPES).toContain(record.type);
            expect(validate(kind, record.type as RecordType, record.body)).toEqual([]);
          }
        } else {
          expect(stored).toHaveLength(0);
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 400 },
    );
    expect(accepted).toBeGreaterThan(40); // valid requests do get through: the property is not vacuous
    expect(unexpected(endpointLog)).toEqual([]);
    expect(endpointLog.filter((line) => line.includes(KEY))).toEqual([]);
  });

  it('answers bytes that are barely HTTP with a 4xx or by closing the connection, and keeps serving', async () => {
    const request = (head: string, rest = '') => `${head}\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${rest}`;
    const track = `POST /track?platform=sms&v=11.1.0-rest&type=incoming&apiKey=${KEY} HTTP/1.1`;
    const junk = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 200 }).map((b) => Buffer.from(b)),
      fc.string({ maxLength: 100 }).map((s) => `${s}\r\n\r\n`),
      fc.constantFrom(
        request(track, 'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'),
        request(track, 'Content-Length: 5\r\nContent-Length: 50\r\n\r\n{"a":1}'),
        request(track, 'Transfer-Encoding: chunked\r\n\r\nZZZ\r\nbad\r\n'),
        request(track, `Transfer-Encoding: chunked\r\n\r\n${(LIMIT * 2).toString(16)}\r\n${'x'.repeat(LIMIT + 100)}`),
        request(track, `X-Big: ${'h'.repeat(20_000)}\r\n\r\n`),
        request('POST /track HTTP/9.9'),
        request(`GET /${'p'.repeat(10_000)} HTTP/1.1`, '\r\n'),
        'GET / HTTP/1.1\r\n\r\n',
        '\u0000\u0001\u0002 HTTP/1.1\r\n\r\n',
        `${track}\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{"text":"`,
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(junk, { minLength: 10, maxLength: 10 }), async (inputs) => {
        // Ten connections at once, each written, then half-closed, then read until the server closes it.
        const answers = await Promise.all(inputs.map((input) => rawExchange(input)));
        for (const answer of answers) {
          expect(answer.closedWithinMs).toBeLessThan(2_500);
          const status = /^HTTP\/1\.1 (\d{3}) /.exec(answer.data)?.[1];
          if (status !== undefined) expect(Number(status)).toBeLessThan(500);
        }
        const check = await send('POST', '/track', [['platform', 'sms'], ['v', '11.1.0-rest'], ['type', 'incoming'], ['apiKey', KEY]], 'application/json', '{"text":"still here","userId":"u"}');
        expect(check.status).toBe(200);
      }),
      { numRuns: 8 },
    );
    expect(unexpected(endpointLog)).toEqual([]);
  });
});

function rawExchange(input: string | Buffer): Promise<{ data: string; closedWithinMs: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    let data = '';
    const socket = net.connect(endpoint.port, '127.0.0.1', () => socket.end(input));
    const timer = setTimeout(() => socket.destroy(), 3_000);
    socket.on('data', (c) => (data += c.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ data, closedWithinMs: performance.now() - started });
    });
  });
}
