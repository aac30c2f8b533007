/**
 * PostgreSQL crashing under traffic: two endpoints share a private server (helpers/private-postgres.ts),
 * 16 senders post records to them without pause, and the server is stopped with
 * `pg_ctl stop -m immediate` (as a crash: commits in flight lose their answers) and started again,
 * round after round; every fourth round it stays down 5 s, longer than the endpoint asks whether a
 * lost commit landed (4 s), so some records are answered 504 ("may be stored"). Each sender acts
 * as the client does: each record has an Idempotency-Key, sent with every attempt, and a 503, a
 * 504 or a failed connection is retried (on either endpoint) until a 200. Each record has a text
 * of its own, so the database can be held against the answers record by record: each is stored
 * exactly once, 504s or not, every 200 of a record carries the id it is stored under, and a
 * record's first 200 is a replay (stored before) only after an attempt that may have stored it
 * (a 504 or a lost connection), never after 503s alone (503: not stored).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { startTrackingEndpoint, type TrackingEndpoint } from '../../src/index.js';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { KEY, Q } from '../helpers.js';

const SENDERS = 16;
const ROUNDS = 20;
/** Every LONG_EVERY-th round the server stays down LONG_DOWN_MS: past the endpoint's 4 s check of a lost commit. */
const LONG_EVERY = 4;
const LONG_DOWN_MS = 5_000;

let server: PrivatePostgres;
let endpoints: TrackingEndpoint[] = [];
const log: string[] = [];

beforeAll(async () => {
  server = await startPrivatePostgres();
  // One after the other: the second finds the schema made.
  for (let i = 0; i < 2; i++) {
    endpoints.push(await startTrackingEndpoint({ port: 0, database: server.url, apiKeys: [KEY], log: (line) => log.push(line), closeGraceMs: 200 }));
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(endpoints.map((endpoint) => endpoint.close()));
  endpoints = [];
  await server?.destroy();
}, 60_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One attempt's answer: its status (with the id and whether it was a replay, for a 200), or none. */
type Outcome = { status: number; id?: number; replayed?: boolean } | 'no status';

/** Posts a record whose text is `text` with its Idempotency-Key `key`; resolves with the answer. */
async function send(endpoint: TrackingEndpoint, text: string, key: string): Promise<Outcome> {
  try {
    const response = await fetch(`${endpoint.url}/track?${new URLSearchParams(Q.universalIn)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ text, userId: text.slice(0, text.indexOf('-', 2)) }),
    });
    const body = (await response.json()) as { id?: number };
    return { status: response.status, id: body.id, replayed: response.headers.get('idempotent-replayed') === 'true' };
  } catch {
    return 'no status';
  }
}

const statusOf = (outcome: Outcome) => (outcome === 'no status' ? outcome : outcome.status);
/** What the client retries: a 503, a 504, no answer. */
const retried = (outcome: Outcome) => outcome === 'no status' || outcome.status === 503 || outcome.status === 504;

it('stores every record exactly once while PostgreSQL is stopped (immediate) and restarted under 16 senders that retry 503s, 504s and lost connections with the record\'s Idempotency-Key, on two endpoints', async () => {
  /** Every answer of every attempt, by the record's text. */
  const answers = new Map<string, Outcome[]>();
  let sending = true;
  const senders = Array.from({ length: SENDERS }, async (_, sender) => {
    for (let n = 0; sending; n++) {
      const text = `s${sender}-r${n}`;
      const key = crypto.randomUUID();
      const got: Outcome[] = [];
      answers.set(text, got);
      // Retried as the client does, with the same key, on either endpoint, until it is answered 200.
      for (let attempt = 0; ; attempt++) {
        const outcome = await send(endpoints[(sender + n + attempt) % 2], text, key);
        got.push(outcome);
        if (!retried(outcome)) break;
        await sleep(50);
      }
    }
  });

  for (let round = 0; round < ROUNDS; round++) {
    await sleep(100 + Math.random() * 200);
    await server.stop('immediate');
    if (round % LONG_EVERY === LONG_EVERY - 1) await sleep(LONG_DOWN_MS);
    await server.start();
  }
  await sleep(500);
  sending = false;
  await Promise.all(senders);

  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  const stored = new Map<string, { n: number; seq: number }>();
  try {
    const { rows } = await client.query<{ text: string; n: number; seq: number }>(`select body->>'text' as text, count(*)::int as n, min(seq)::int as seq from records group by 1`);
    for (const row of rows) stored.set(row.text, { n: row.n, seq: row.seq });
  } finally {
    await client.end();
  }

  const tally = { records: answers.size, attempts: 0, ok: 0, replayed: 0, notStored: 0, unknown: 0, noStatus: 0, other: 0, answeredUnknownThenStoredOnce: 0 };
  const wrong: string[] = [];
  for (const [text, got] of answers) {
    const statuses = got.map(statusOf);
    const copies = stored.get(text);
    tally.attempts += got.length;
    tally.ok += statuses.filter((status) => status === 200).length;
    tally.replayed += got.filter((outcome) => outcome !== 'no status' && outcome.replayed).length;
    tally.notStored += statuses.filter((status) => status === 503).length;
    tally.unknown += statuses.filter((status) => status === 504).length;
    tally.noStatus += statuses.filter((status) => status === 'no status').length;
    tally.other += statuses.filter((status) => typeof status === 'number' && ![200, 503, 504].includes(status)).length;
    const said = `answered ${statuses.join(', ')}`;
    if (copies?.n !== 1) wrong.push(`${text}: ${said}, stored ${copies?.n ?? 0} time(s)`);
    else if (statuses.includes(504)) tally.answeredUnknownThenStoredOnce++;
    // Every 200 says the id the record is stored under.
    const ids = got.filter((outcome) => outcome !== 'no status' && outcome.status === 200).map((outcome) => (outcome as { id?: number }).id);
    if (copies !== undefined && ids.some((id) => id !== copies.seq)) wrong.push(`${text}: ${said}, ids ${ids.join(', ')}, stored as ${copies.seq}`);
    // A replay means an earlier attempt stored it: one that may have (a 504, a lost connection), never one answered 503 (not stored).
    const first = got.findIndex((outcome) => outcome !== 'no status' && outcome.status === 200);
    const before = statuses.slice(0, first);
    if (first >= 0 && (got[first] as { replayed?: boolean }).replayed && !before.includes(504) && !before.includes('no status')) wrong.push(`${text}: ${said}, its first 200 a replay`);
  }
  for (const text of stored.keys()) if (!answers.has(text)) wrong.push(`${text}: stored, never sent`);
  const lostCommits = log.filter((line) => line.includes('the answer to a commit of'));
  console.info(`database-stop: ${ROUNDS} rounds (${Math.floor(ROUNDS / LONG_EVERY)} down ${LONG_DOWN_MS} ms), ${JSON.stringify(tally)}; commits whose answer was lost: ${lostCommits.length} (${lostCommits.filter((line) => line.endsWith('they are stored.')).length} found stored, ${lostCommits.filter((line) => line.includes('did not answer within')).length} unknown)`);

  expect(wrong).toEqual([]);
  expect(tally.noStatus).toBe(0);
  expect(tally.other).toBe(0);
  // The rounds did what they are for: the database went away under traffic, and came back each time.
  expect(tally.notStored).toBeGreaterThan(ROUNDS);
  expect(tally.ok).toBe(answers.size);
}, 180_000);
