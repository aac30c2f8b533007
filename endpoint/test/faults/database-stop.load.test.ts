/**
 * PostgreSQL crashing under traffic: two endpoints share a private server (helpers/private-postgres.ts),
 * 16 senders post records to them without pause, and the server is stopped with
 * `pg_ctl stop -m immediate` (as a crash: commits in flight lose their answers) and started again,
 * round after round. Each record has a text of its own, so the database's contents can be held
 * against the answers record by record: every record answered 200 is stored, none answered 503 is,
 * and a sender that retries each 503 until it gets a 200 stores each record exactly once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { startTrackingEndpoint, type TrackingEndpoint } from '../../src/index.js';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { KEY, Q } from '../helpers.js';

const SENDERS = 16;
const ROUNDS = 20;

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

type Outcome = number | 'no status';

/** Posts a record whose text is `text`; resolves with the answer's status. */
async function send(endpoint: TrackingEndpoint, text: string): Promise<Outcome> {
  try {
    const response = await fetch(`${endpoint.url}/track?${new URLSearchParams(Q.universalIn)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text, userId: text.slice(0, text.indexOf('-', 2)) }),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 'no status';
  }
}

it('tells the truth about every record while PostgreSQL is stopped (immediate) and restarted under 16 senders, round after round, on two endpoints', async () => {
  /** Every answer of every attempt, by the record's text. */
  const answers = new Map<string, Outcome[]>();
  let sending = true;
  const senders = Array.from({ length: SENDERS }, async (_, sender) => {
    for (let n = 0; sending; n++) {
      const text = `s${sender}-r${n}`;
      const got: Outcome[] = [];
      answers.set(text, got);
      // Retried as a client does after a 503 (not stored), on either endpoint, until it is stored.
      for (let attempt = 0; sending || got.length === 0; attempt++) {
        const outcome = await send(endpoints[(sender + n + attempt) % 2], text);
        got.push(outcome);
        if (outcome !== 503) break;
        await sleep(50);
      }
    }
  });

  for (let round = 0; round < ROUNDS; round++) {
    await sleep(100 + Math.random() * 200);
    await server.stop('immediate');
    await server.start();
  }
  await sleep(500);
  sending = false;
  await Promise.all(senders);
  // Records still waiting for the answer to a lost commit have their answer by now; last, the retries of 503s.
  const unfinished = [...answers].filter(([, got]) => got.at(-1) === 503);
  for (const [text, got] of unfinished) got.push(await send(endpoints[0], text));

  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  const stored = new Map<string, number>();
  try {
    const { rows } = await client.query<{ text: string; n: number }>(`select body->>'text' as text, count(*)::int as n from records group by 1`);
    for (const row of rows) stored.set(row.text, row.n);
  } finally {
    await client.end();
  }

  const tally = { attempts: 0, ok: 0, notStored: 0, unknown: 0, noStatus: 0, other: 0 };
  const wrong: string[] = [];
  for (const [text, got] of answers) {
    const count = stored.get(text) ?? 0;
    const ok = got.filter((outcome) => outcome === 200).length;
    const unknown = got.filter((outcome) => outcome === 504).length;
    tally.attempts += got.length;
    tally.ok += ok;
    tally.notStored += got.filter((outcome) => outcome === 503).length;
    tally.unknown += unknown;
    tally.noStatus += got.filter((outcome) => outcome === 'no status').length;
    tally.other += got.filter((outcome) => typeof outcome === 'number' && ![200, 503, 504].includes(outcome)).length;
    // Each 200 is a stored copy, each 503 none; a 504 may be either.
    if (count < ok || count > ok + unknown) wrong.push(`${text}: answered ${got.join(', ')}, stored ${count} time(s)`);
  }
  for (const text of stored.keys()) if (!answers.has(text)) wrong.push(`${text}: stored, never sent`);
  const lostCommits = log.filter((line) => line.includes('the answer to a commit of'));
  console.info(`database-stop: ${ROUNDS} rounds, ${answers.size} records, ${JSON.stringify(tally)}; commits whose answer was lost: ${lostCommits.length} (${lostCommits.filter((line) => line.endsWith('they are stored.')).length} found stored)`);

  expect(wrong).toEqual([]);
  expect(tally.noStatus).toBe(0);
  expect(tally.other).toBe(0);
  // The rounds did what they are for: the database went away under traffic, and came back each time.
  expect(tally.notStored).toBeGreaterThan(ROUNDS);
  expect(tally.ok).toBeGreaterThan(ROUNDS);
  // Every record was stored in the end, exactly once, when none was answered 504.
  if (tally.unknown === 0) expect([...answers.keys()].filter((text) => stored.get(text) !== 1)).toEqual([]);
}, 120_000);
