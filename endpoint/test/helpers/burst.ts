/**
 * A burst of tracking requests from many users at once, over keep-alive connections, by clients
 * that retry what was refused as the middleware's client does (a 503 after its `Retry-After`, a
 * failed connection at once), and readers that ask while the views catch up. Every exchange is
 * kept: its status, or the error that took its place (ECONNRESET, socket hang up), so the load
 * tests (endpoint/test/faults/*.load.test.ts) can check that every request got an answer and that
 * no record was stored twice.
 */
import http from 'node:http';
import type { StoredRecords } from '../../src/index.js';

/** One request's outcome: the status and body that came back, or the error that did instead. */
export interface Exchange {
  status?: number;
  retryAfter?: string;
  body?: any;
  error?: string;
  ms: number;
}

/** Sends one request and waits for its whole answer (never rejects: an error is an outcome). */
export function exchange(agent: http.Agent, url: string, method: 'GET' | 'POST', body?: string): Promise<Exchange> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.request(url, { method, agent, headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ status: res.statusCode, error: error.code ?? error.message, ms: performance.now() - started }));
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
        const retryAfter = res.headers['retry-after'];
        resolve({ status: res.statusCode, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined, body: parsed, ms: performance.now() - started });
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message, ms: performance.now() - started }));
    req.end(body);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a burst did: every exchange, and the text of each record acknowledged. */
export interface BurstResult {
  exchanges: Exchange[];
  /** Texts answered 200 (each record's text is unique). */
  acknowledged: string[];
  /** Texts given up on (still refused after `maxTries`). */
  abandoned: string[];
  ms: number;
}

/**
 * `users` users, each sending `perUser` messages one after another (`u<user>-<n>`, unique texts),
 * all users at once, user `u` to the endpoint at `endpoints[u % endpoints.length]` (its base URL). A 503 is retried after its
 * `Retry-After` (capped at `retryCapMs`), a connection error at once, up to `maxTries` sends.
 */
export async function burst(endpoints: readonly string[], key: string, options: { users: number; perUser: number; maxTries?: number; retryCapMs?: number }): Promise<BurstResult> {
  const agents = endpoints.map(() => new http.Agent({ keepAlive: true, maxSockets: options.users }));
  const exchanges: Exchange[] = [];
  const acknowledged: string[] = [];
  const abandoned: string[] = [];
  const started = performance.now();
  const maxTries = options.maxTries ?? 20;
  await Promise.all(Array.from({ length: options.users }, async (_, user) => {
    const which = user % endpoints.length;
    const url = `${endpoints[which]}/track?platform=universal&v=10.1.1-rest&type=incoming&apiKey=${key}`;
    for (let n = 0; n < options.perUser; n++) {
      const text = `u${user}-${n}`;
      const body = JSON.stringify({ text, userId: `u${user}`, conversationId: `c${user}` });
      for (let attempt = 1; ; attempt++) {
        const outcome = await exchange(agents[which], url, 'POST', body);
        exchanges.push(outcome);
        if (outcome.status === 200) {
          acknowledged.push(text);
          break;
        }
        if (attempt >= maxTries) {
          abandoned.push(text);
          break;
        }
        if (outcome.status === 503) await sleep(Math.min(options.retryCapMs ?? 1_000, 1000 * Number(outcome.retryAfter ?? 1)));
      }
    }
  }));
  for (const agent of agents) agent.destroy();
  return { exchanges, acknowledged, abandoned, ms: performance.now() - started };
}

/**
 * Reads `path` on `endpoint` until it answers 200, retrying each 503 after its `Retry-After`
 * (capped at `retryCapMs`), at most `maxTries` times; every exchange is returned.
 */
export async function readUntilAnswered(endpoint: string, path: string, options: { maxTries?: number; retryCapMs?: number } = {}): Promise<Exchange[]> {
  const agent = new http.Agent({ keepAlive: true });
  const exchanges: Exchange[] = [];
  try {
    for (let attempt = 1; attempt <= (options.maxTries ?? 60); attempt++) {
      const outcome = await exchange(agent, `${endpoint}${path}`, 'GET');
      exchanges.push(outcome);
      if (outcome.status !== 503) break;
      await sleep(Math.min(options.retryCapMs ?? 1_000, 1000 * Number(outcome.retryAfter ?? 1)));
    }
  } finally {
    agent.destroy();
  }
  return exchanges;
}

/** How many times each text is stored, read from the store page by page. */
export async function storedTexts(store: StoredRecords): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let after = 0; ;) {
    const page = await store.records({ after, limit: 5000 });
    if (page.length === 0) return counts;
    for (const record of page) {
      const text = (record.body as { text: string }).text;
      counts.set(text, (counts.get(text) ?? 0) + 1);
    }
    after = page[page.length - 1].seq;
  }
}

/** A one-line account of the exchanges: how many of each status or error. */
export function tally(exchanges: readonly Exchange[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of exchanges) {
    const key = e.error !== undefined ? `error ${e.error}` : String(e.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
