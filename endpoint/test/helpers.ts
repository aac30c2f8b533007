/** Test helpers: a real endpoint on 127.0.0.1:0, real HTTP requests, temp data folders. */
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startTrackingEndpoint, type TrackingEndpoint, type TrackingEndpointOptions } from '../src/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/postgres.js';

export const KEY = 'test-key-1';

/** Query strings of the record families, with their spec versions. */
export const Q = {
  universalIn: { platform: 'universal', v: '10.1.1-rest', type: 'incoming', apiKey: KEY },
  universalOut: { platform: 'universal', v: '10.1.1-rest', type: 'outgoing', apiKey: KEY },
  smsIn: { platform: 'sms', v: '11.1.0-rest', type: 'incoming', apiKey: KEY },
  dmIn: { platform: 'twitter', v: '11.1.0-rest', type: 'incoming', apiKey: KEY },
  dmOut: { platform: 'twitter', v: '11.1.0-rest', type: 'outgoing', apiKey: KEY },
  fbIn: { platform: 'facebook', v: '11.1.0-rest', type: 'incoming', apiKey: KEY },
  fbOut: { platform: 'facebook', v: '11.1.0-rest', type: 'outgoing', apiKey: KEY },
  dmEvent: { platform: 'twitter', v: '11.1.0-rest', type: 'event', apiKey: KEY },
  fbEvent: { platform: 'facebook', v: '11.1.0-rest', type: 'event', apiKey: KEY },
  scripted: { type: 'generic', apiKey: KEY },
} satisfies Record<string, Record<string, string>>;

/** Starts an endpoint on a free port, in memory unless `dataFile` is given, with key `KEY`. */
export function start(options: TrackingEndpointOptions = {}): Promise<TrackingEndpoint> {
  return startTrackingEndpoint({ port: 0, dataFile: false, apiKeys: [KEY], log: () => undefined, closeGraceMs: 200, ...options });
}

/** A fresh temp folder and a function that removes it. */
export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'tracking-endpoint-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The two databases a file's endpoints run on, for `describe.each`: a SQLite file (`fileName`) in a
 * temporary folder and a PostgreSQL test database, made before the file's tests and removed after.
 * `database()` is read inside the tests, once they exist.
 */
export function bothDatabases(fileName: string): { name: string; database: () => string }[] {
  let pg: TestDatabase | undefined;
  let folder: { dir: string; cleanup: () => Promise<void> } | undefined;
  beforeAll(async () => {
    [pg, folder] = await Promise.all([createTestDatabase(), tempDir()]);
  });
  afterAll(async () => {
    await pg?.drop();
    await folder?.cleanup();
  });
  return [
    { name: 'SQLite', database: () => join(folder!.dir, fileName) },
    { name: 'PostgreSQL', database: () => pg!.url },
  ];
}

export interface Answer {
  status: number;
  headers: Headers;
  /** The parsed JSON body (the test fails if it is not JSON). */
  body: any;
}

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`expected a JSON body, got ${JSON.stringify(text.slice(0, 200))} (status ${response.status})`);
  }
  return { status: response.status, headers: response.headers, body };
}

/** POSTs `body` (JSON-encoded unless it is a string) to /track with `query`. */
export async function track(endpoint: TrackingEndpoint, query: Record<string, string>, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${endpoint.url}/track?${new URLSearchParams(query)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return answer(response);
}

/** Any request to `path`, answer parsed as JSON. */
export async function request(endpoint: TrackingEndpoint, path: string, init: RequestInit = {}): Promise<Answer> {
  return answer(await fetch(`${endpoint.url}${path}`, init));
}

/** Opens a raw TCP connection to the endpoint. */
export function connect(endpoint: TrackingEndpoint): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(endpoint.port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Collects what the server sends on `socket` until it closes (or `timeoutMs` passes). */
export function readUntilClose(socket: net.Socket, timeoutMs: number): Promise<{ data: string; closed: boolean; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    let data = '';
    const timer = setTimeout(() => resolve({ data, closed: false, ms: Date.now() - started }), timeoutMs);
    socket.on('data', (chunk) => (data += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ data, closed: true, ms: Date.now() - started });
    });
  });
}

export const message = (userId: string, text: string, extra: Record<string, unknown> = {}) => ({ text, userId, ...extra });
