/**
 * Erasing one user at the store (store/forget.ts), on in-memory SQLite, every check in the test
 * that erases: a bot with three pages of records (FORGET_PAGE each) of four users, and another
 * bot. After the erasure every view table of the store equals, row for row, that of a store
 * loaded without the user (record numbers aside); the other bot's rows are untouched; the audit
 * row and the log line hold the hash of the id, never the id. (api/users-erasure.test.ts checks
 * the same through every view of the read API, on both databases, against the known-answer dataset.)
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FORGET_PAGE, VIEW_TABLES, erasureLine, userHash } from '../../src/store/forget.js';
import { openStore } from '../../src/store/open.js';
import type { RecordStore } from '../../src/store/store.js';

const BOT = 'b0b0b0b0b0b0';
const OTHER = 'c1c1c1c1c1c1';
const USERS = ['u0', 'u1', 'u2', 'u3'];
const ERASED = 'u1';
const START = Date.parse('2026-09-07T09:00:00Z');
/** Records of both bots: BOT's (six in seven) fill two pages and part of a third. */
const COUNT = Math.ceil(((2 * FORGET_PAGE + 37) * 7) / 6);

interface Made { user: string; bot: string; body: Record<string, unknown>; type: 'incoming' | 'outgoing' | 'event'; at: number }

/** The records: each user talks in turns (in, out, now and then a revenue event), in conversations of 40; every seventh goes to OTHER. */
function made(): Made[] {
  const out: Made[] = [];
  for (let i = 0; i < COUNT; i++) {
    const user = USERS[(i >> 1) % USERS.length];
    const bot = i % 7 === 6 ? OTHER : BOT;
    const conversationId = `${user}-c${Math.floor(i / 160)}`;
    const at = START + i * 47_000;
    if (i % 11 === 5) {
      out.push({ user, bot, type: 'event', at, body: { type: 'revenueEvent', name: 'purchase', amount: 3 + (i % 5), userId: user, conversationId, metadata: { currency: 'EUR' } } });
    } else if (i % 2 === 0) {
      out.push({ user, bot, type: 'incoming', at, body: { text: `message ${i % 13} about pizza`, userId: user, platformJson: { conversation: { id: conversationId }, from: { id: user, name: `Name of ${user}` } }, intent: { name: i % 3 ? 'Greet' : 'Order', inputs: [] } } });
    } else {
      out.push({ user, bot, type: 'outgoing', at, body: { text: `reply ${i % 5}`, userId: user, platformJson: { conversation: { id: conversationId } }, buttons: [{ id: 'b1', label: 'Yes', value: 'yes' }] } });
    }
  }
  return out;
}

async function load(records: Made[], log: (line: string) => void = () => undefined): Promise<RecordStore> {
  const { store } = await openStore({ database: false, log });
  async function* rows() {
    for (const { bot, body, type, at } of records) {
      yield { record: { platform: 'universal', platformKind: 'universal' as const, v: '10.1.1-rest' as const, type, bot, body, receivedAt: new Date(at).toISOString() }, json: JSON.stringify(body) };
    }
  }
  await store.importOnce('forget-test', rows());
  await store.lastSeq();
  return store;
}

/** Columns that hold record numbers (or ids made of them), which differ between two stores loaded alike. */
const SEQ_BASED = new Set(['seq', 'session_id', 'id']);

/** Every row of every view table (without record numbers), sorted, per table. */
async function views(store: RecordStore, bot?: string): Promise<Record<string, string[]>> {
  await store.lastSeq();
  const out: Record<string, string[]> = {};
  for (const table of VIEW_TABLES) {
    const rows = await store.db.selectFrom(table).selectAll().execute();
    out[table] = rows
      // A count moved away leaves a row at 0 in the views built by the projection: it reads as none.
      .filter((row) => (bot === undefined || (row as { bot: string }).bot === bot) && (row as { sessions?: unknown }).sessions !== 0)
      .map((row) => JSON.stringify(Object.fromEntries(Object.entries(row).filter(([key]) => !SEQ_BASED.has(key)))))
      .sort();
  }
  return out;
}

describe('forgetUser', () => {
  it('erases every record of the user across pages; every view is then that of a store loaded without them; the other bot is untouched; audited by hash', async () => {
    const all = made();
    const theirs = all.filter((r) => r.bot === BOT && r.user === ERASED).length;
    const lines: string[] = [];
    const store = await load(all, (line) => lines.push(line));
    const expected = await load(all.filter((r) => !(r.bot === BOT && r.user === ERASED)));
    try {
      const otherBefore = await views(store, OTHER);
      const before = await views(store);
      const read: number[] = [];
      lines.length = 0;
      const erasure = await store.forgetUser({ bot: BOT, userId: ERASED, by: 'dpo@example.com' }, (n) => read.push(n));
      const botRecords = all.filter((r) => r.bot === BOT).length;
      expect(botRecords).toBeGreaterThan(2 * FORGET_PAGE);
      expect(read).toEqual([FORGET_PAGE, 2 * FORGET_PAGE, botRecords]);
      expect(erasure).toEqual({ bot: BOT, userHash: userHash(ERASED), records: theirs, entries: theirs, by: 'dpo@example.com', at: expect.any(String) });
      expect(Date.now() - Date.parse(erasure.at)).toBeLessThan(60_000);

      const after = await views(store);
      expect(after).toEqual(await views(expected));
      expect(after).not.toEqual(before);
      for (const table of VIEW_TABLES) expect([table, after[table].length > 0 || before[table].length === 0]).toEqual([table, true]);
      expect(await views(store, OTHER)).toEqual(otherBefore);
      expect(await store.count()).toBe(all.length - theirs);
      expect((await store.records()).some((r) => r.bot === BOT && (r.body as { userId?: string }).userId === ERASED)).toBe(false);
      expect(await store.db.selectFrom('unprojected').selectAll().execute()).toEqual([]);

      const audit = await store.db.selectFrom('erasures').selectAll().execute();
      expect(audit.map((row) => ({ ...row, at: Number(row.at), records: Number(row.records), entries: Number(row.entries) }))).toEqual([
        { at: Date.parse(erasure.at), by: 'dpo@example.com', bot: BOT, user_hash: userHash(ERASED), records: theirs, entries: theirs },
      ]);
      expect(lines).toEqual([erasureLine(erasure)]);

      // Again: nothing to erase, nothing changed, a second audit row, without who asked.
      const again = await store.forgetUser({ bot: BOT, userId: ERASED });
      expect(again).toMatchObject({ records: 0, entries: 0, by: null, userHash: userHash(ERASED) });
      expect(await views(store)).toEqual(after);
      expect((await store.db.selectFrom('erasures').select(['by', 'records']).execute()).map((row) => [row.by, Number(row.records)])).toEqual([['dpo@example.com', theirs], [null, 0]]);
    } finally {
      await store.close();
      await expected.close();
    }
  }, 60_000);

  it('counts a record that names the user in one of several entries once, with each of their entries', async () => {
    const { store } = await openStore({ database: false, log: () => undefined });
    try {
      // A Messenger webhook batch: two messages of the user and one of another, in one record.
      const batch = { object: 'page', entry: [{ id: 'p1', time: START, messaging: [
        { sender: { id: 'ann' }, recipient: { id: 'p1' }, timestamp: START, message: { mid: 'm1', text: 'one' } },
        { sender: { id: 'ann' }, recipient: { id: 'p1' }, timestamp: START + 1, message: { mid: 'm2', text: 'two' } },
        { sender: { id: 'bob' }, recipient: { id: 'p1' }, timestamp: START + 2, message: { mid: 'm3', text: 'three' } },
      ] }] };
      const solo = { text: 'hello', userId: 'ann' };
      async function* rows() {
        yield { record: { platform: 'messenger', platformKind: 'messenger' as const, v: '10.1.1-rest' as const, type: 'incoming' as const, bot: BOT, body: batch, receivedAt: new Date(START).toISOString() }, json: JSON.stringify(batch) };
        yield { record: { platform: 'universal', platformKind: 'universal' as const, v: '10.1.1-rest' as const, type: 'incoming' as const, bot: BOT, body: solo, receivedAt: new Date(START + 5).toISOString() }, json: JSON.stringify(solo) };
      }
      await store.importOnce('batch', rows());
      await store.lastSeq();
      const entriesBefore = (await store.db.selectFrom('entries').select('user_id').execute()).map((row) => row.user_id).sort();
      expect(entriesBefore).toEqual(['ann', 'ann', 'ann', 'bob']);
      const erasure = await store.forgetUser({ bot: BOT, userId: 'ann' });
      expect([erasure.records, erasure.entries]).toEqual([2, 3]);
      // The batch goes whole: bob's message in it too.
      expect(await store.count()).toBe(0);
      expect(await store.db.selectFrom('entries').selectAll().execute()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe('userHash and erasureLine', () => {
  it('hash the id as the first 16 hex digits of its SHA-256', () => {
    expect(userHash('29:1a2b3c')).toBe(createHash('sha256').update('29:1a2b3c').digest('hex').slice(0, 16));
    expect(userHash('29:1a2b3c')).toMatch(/^[0-9a-f]{16}$/);
  });

  it('say what was erased, in the singular and the plural, and who asked', () => {
    const base = { bot: BOT, userHash: 'abcdef0123456789', at: '2026-09-07T09:00:00.000Z' };
    expect(erasureLine({ ...base, records: 1, entries: 1, by: 'dpo' })).toBe(`tracking endpoint: erased user abcdef0123456789 (SHA-256 of the id) of bot ${BOT}: 1 record, 1 entry; asked by dpo.`);
    expect(erasureLine({ ...base, records: 2, entries: 0, by: null })).toBe(`tracking endpoint: erased user abcdef0123456789 (SHA-256 of the id) of bot ${BOT}: 2 records, 0 entries; asked by an unnamed reader.`);
  });
});
