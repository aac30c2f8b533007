import type net from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { Q, connect, message, readUntilClose, request, start, tempDir, track } from '../helpers.js';

const TRACK_PATH = `/track?${new URLSearchParams(Q.universalIn)}`;

let endpoint: TrackingEndpoint | undefined;
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await endpoint?.close();
  endpoint = undefined;
});

describe('slow and idle clients', () => {
  it('answers 408 and closes the connection when a body stops arriving', async () => {
    endpoint = await start({ requestTimeoutMs: 500, headersTimeoutMs: 500 });
    const socket = await connect(endpoint);
    sockets.push(socket);
    socket.write(`POST ${TRACK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"text":`);
    const { data, closed, ms } = await readUntilClose(socket, 5000);
    expect(closed).toBe(true);
    expect(ms).toBeLessThan(2500);
    expect(data).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(data.slice(data.indexOf('\r\n\r\n') + 4))).toMatchObject({ ok: false });
    expect((await endpoint.store.count())).toBe(0);
  });

  it('closes a connection whose headers never finish', async () => {
    endpoint = await start({ requestTimeoutMs: 500, headersTimeoutMs: 300 });
    const socket = await connect(endpoint);
    sockets.push(socket);
    socket.write(`POST ${TRACK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
    const { closed, ms } = await readUntilClose(socket, 5000);
    expect(closed).toBe(true);
    expect(ms).toBeLessThan(2500);
  });

  it('keeps answering other clients while hundreds of connections sit idle', async () => {
    endpoint = await start();
    for (let i = 0; i < 300; i++) {
      const socket = await connect(endpoint);
      socket.on('error', () => undefined);
      if (i % 2 === 0) socket.write(`POST ${TRACK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
      sockets.push(socket);
    }
    const started = Date.now();
    const res = await track(endpoint, Q.universalIn, message('u1', 'still here'));
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('survives a client that disconnects in the middle of its body', async () => {
    endpoint = await start();
    const socket = await connect(endpoint);
    socket.write(`POST ${TRACK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"te`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    expect((await track(endpoint, Q.universalIn, message('u1', 'next'))).status).toBe(200);
    expect((await endpoint.store.count())).toBe(1);
  });

  it('answers a request that is not HTTP with 400 and a JSON body', async () => {
    endpoint = await start();
    const socket = await connect(endpoint);
    sockets.push(socket);
    socket.write('HELLO THERE\r\n\r\n');
    const { data } = await readUntilClose(socket, 3000);
    expect(data).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(data.slice(data.indexOf('\r\n\r\n') + 4)).ok).toBe(false);
  });
});

describe('prototype pollution', () => {
  it('does not change Object.prototype when a body has __proto__ keys', async () => {
    endpoint = await start();
    const body = '{"text":"hi","userId":"u1","__proto__":{"polluted":true},"platformJson":{"constructor":{"prototype":{"polluted":true}},"a":{"__proto__":{"polluted":true}}}}';
    const res = await track(endpoint, Q.universalIn, body);
    expect(res.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('stores the body without the __proto__ and constructor.prototype keys', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      endpoint = await start({ database: join(dir, 'r.db') });
      const body = '{"text":"hi","userId":"u1","\\u005f_proto__":{"polluted":true},"platformJson":{"constructor":{"prototype":{"x":1}},"keep":1}}';
      expect((await track(endpoint, Q.universalIn, body)).status).toBe(200);
      const [stored] = await endpoint.store.records();
      expect(JSON.stringify(stored.body)).not.toContain('proto');
      expect(stored.body).toEqual({ text: 'hi', userId: 'u1', platformJson: { keep: 1 } });
    } finally {
      await endpoint?.close();
      endpoint = undefined;
      await cleanup();
    }
  });

  it('treats user ids and intent names such as __proto__ as plain names', async () => {
    endpoint = await start();
    const body = message('__proto__', 'hi', { intent: { name: 'constructor', inputs: [] } });
    expect((await track(endpoint, Q.universalIn, body)).status).toBe(200);
    const users = await request(endpoint, '/api/users');
    expect(users.body.users.map((u: { userId: string }) => u.userId)).toEqual(['__proto__']);
    const transcript = await request(endpoint, '/api/transcript?user=__proto__');
    expect(transcript.body.entries[0].text).toBe('hi');
    const summary = await request(endpoint, '/api/summary');
    expect(summary.body.byIntent).toEqual({ constructor: 1 });
    expect((await request(endpoint, '/api/transcript?user=toString')).status).toBe(404);
  });
});

describe('hostile pages and echoed secrets', () => {
  /** POSTs a record with a chosen Host header over a raw socket (fetch will not set Host). */
  async function trackWithHost(target: TrackingEndpoint, host: string): Promise<number> {
    const socket = await connect(target);
    sockets.push(socket);
    const body = JSON.stringify(message('u-host', 'hi'));
    socket.write(`POST ${TRACK_PATH} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    const { data } = await readUntilClose(socket, 5000);
    return Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1]);
  }

  it('refuses a write addressed to a name that is not its own (DNS rebinding), and stores nothing', async () => {
    endpoint = await start();
    expect(await trackWithHost(endpoint, 'evil.example')).toBe(403);
    expect(await trackWithHost(endpoint, 'evil.example:3979')).toBe(403);
    expect((await endpoint.store.count())).toBe(0);
    expect(await trackWithHost(endpoint, `127.0.0.1:${endpoint.port}`)).toBe(200);
    expect(await trackWithHost(endpoint, 'localhost')).toBe(200);
    expect((await endpoint.store.count())).toBe(2);
  });

  it('answers the names given with allowedHosts, and no others', async () => {
    endpoint = await start({ allowedHosts: ['Tracking.Example'] });
    expect(await trackWithHost(endpoint, 'tracking.example:443')).toBe(200);
    expect(await trackWithHost(endpoint, 'other.example')).toBe(403);
    expect((await endpoint.store.count())).toBe(1);
  });

  it('stores a marker instead of a messenger page access token, and keeps its data 0600 in a 0700 folder', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const dataFile = join(dir, 'data', 'tracking.db');
      endpoint = await start({ database: dataFile });
      const token = 'EAAGpage-token-0123456789';
      const body = { json: { recipient: { id: 'psid-1' }, message: { text: 'hi' } }, qs: { access_token: token }, uri: `https://graph.facebook.com/v19.0/me/messages?access_token=${token}`, responseBody: { recipient_id: 'psid-1', message_id: 'm1' } };
      expect((await track(endpoint, Q.fbOut, body)).status).toBe(200);
      const record = await request(endpoint, '/api/record?seq=1');
      expect(JSON.stringify(record.body)).not.toContain(token);
      expect(record.body.record.body.qs.access_token).toBe('[access token removed by the endpoint]');
      await endpoint.close();
      endpoint = undefined;
      // The database file, its write-ahead log included, never holds the token.
      const stored = await readFile(dataFile);
      expect(stored.includes(Buffer.from(token))).toBe(false);
      const wal = await readFile(`${dataFile}-wal`).catch(() => Buffer.alloc(0));
      expect(wal.includes(Buffer.from(token))).toBe(false);
      expect(stored.includes(Buffer.from('psid-1'))).toBe(true);
      const { stat } = await import('node:fs/promises');
      expect((await stat(dataFile)).mode & 0o777).toBe(0o600);
      expect((await stat(join(dir, 'data'))).mode & 0o777).toBe(0o700);
    } finally {
      await cleanup();
    }
  });
});
