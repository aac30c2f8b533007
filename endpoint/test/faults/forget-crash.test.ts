/**
 * An erasure killed in the middle (kill -9 of the process doing it, inside its transaction, after
 * part of the bot's views were deleted and rebuilt) leaves the database exactly as it was, on
 * SQLite and PostgreSQL; the erasure run again then goes through.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { FORGET_PAGE, VIEW_TABLES } from '../../src/store/forget.js';
import type { RecordStore } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers.js';

const MAIN = fileURLToPath(new URL('../helpers/forget-process-main.ts', import.meta.url));
const BOT = 'b0b0b0b0b0b0';
const OTHER = 'c1c1c1c1c1c1';
const USERS = 8;
const PER_USER = 200;
const START = Date.parse('2026-09-07T09:00:00Z');

async function fill(store: RecordStore): Promise<void> {
  async function* records() {
    for (let i = 0; i < USERS * PER_USER; i++) {
      const user = `u${i % USERS}`;
      const bot = i % 10 === 9 ? OTHER : BOT;
      const body = { text: `message ${i} about pizza`, userId: user, conversationId: `${user}-c${Math.floor(i / 400)}`, intent: { name: i % 3 ? 'Greet' : 'Order', inputs: [] } };
      const record = { platform: 'universal', platformKind: 'universal' as const, v: '10.1.1-rest' as const, type: 'incoming' as const, bot, body, receivedAt: new Date(START + i * 61_000).toISOString() };
      yield { record, json: JSON.stringify(body) };
    }
  }
  await store.importOnce('crash-test', records());
}

/** Every row of the records, the marks, the views and the audit, sorted: the whole database's content. */
async function snapshot(store: RecordStore): Promise<Record<string, string[]>> {
  await store.lastSeq();
  const out: Record<string, string[]> = {};
  for (const table of [...VIEW_TABLES, 'records', 'unprojected', 'erasures'] as const) {
    const rows = await store.db.selectFrom(table).selectAll().execute();
    out[table] = rows.map((row) => JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value))).sort();
  }
  return out;
}

function run(database: string, user: string, through: boolean): Promise<{ killed: boolean; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, database, BOT, user, ...(through ? ['through'] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let killed = false;
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (!through && !killed && output.includes('read ')) {
      killed = true;
      child.kill('SIGKILL');
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('close', () => resolve({ killed, output })));
}

const DATABASES: { name: string; make(): Promise<{ url: string; cleanup(): Promise<void> }> }[] = [
  { name: 'SQLite', async make() { const folder = await tempDir(); return { url: join(folder.dir, 'crash.db'), cleanup: folder.cleanup }; } },
  { name: 'PostgreSQL', async make() { const db: TestDatabase = await createTestDatabase(); return { url: db.url, cleanup: db.drop }; } },
];

describe.each(DATABASES)('an erasure killed in the middle on $name', ({ make }) => {
  let database: { url: string; cleanup(): Promise<void> };
  let before: Record<string, string[]>;

  beforeAll(async () => {
    database = await make();
    const { store } = await openStore({ database: database.url, log: () => undefined });
    await fill(store);
    before = await snapshot(store);
    await store.close();
  }, 60_000);
  afterAll(() => database?.cleanup());

  it('leaves nothing done: every record, mark, view row and audit line as before', async () => {
    // More than one page of the bot's records, so the kill lands with part of its views rebuilt.
    expect(before.records.filter((row) => row.includes(BOT)).length).toBeGreaterThan(2 * FORGET_PAGE);
    const { killed, output } = await run(database.url, 'u3', false);
    expect(killed, output).toBe(true);
    expect(output).toContain(`read ${FORGET_PAGE}\n`);
    const { store } = await openStore({ database: database.url, log: () => undefined });
    try {
      expect(await snapshot(store)).toEqual(before);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('then erases everything of the user when run again, and nothing else of the other bot', async () => {
    const { output } = await run(database.url, 'u3', true);
    // u3 writes every 8th record; one in ten went to the other bot (i = 19 mod 40): 160 of the 200 are the bot's.
    expect(output).toContain('erased 160\n');
    const { store } = await openStore({ database: database.url, log: () => undefined });
    try {
      const after = await snapshot(store);
      expect(after.records.length).toBe(before.records.length - 160);
      expect(after.entries.filter((row) => row.includes('"u3"') && row.includes(BOT))).toEqual([]);
      expect(after.users.filter((row) => row.includes('"u3"')).length).toBe(1); // the other bot's u3
      for (const table of VIEW_TABLES) expect(after[table].filter((row) => row.includes(OTHER)), table).toEqual(before[table].filter((row) => row.includes(OTHER)));
      expect(after.erasures).toHaveLength(1);
    } finally {
      await store.close();
    }
  }, 60_000);
});
