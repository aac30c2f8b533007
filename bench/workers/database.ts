/**
 * Measurement 6, the data side: builds (once, then reuses) a database holding the large generated
 * dataset (bench/lib/million.ts) with the store's own code (the rows `append` commits, the views
 * the projection builds), in SQLite or PostgreSQL.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Dialect } from '../../endpoint/src/store/dialect.js';
import { isPostgresUrl, openStore } from '../../endpoint/src/store/open.js';
import { openPostgres } from '../../endpoint/src/store/postgres.js';
import { recordRow, type RecordRow } from '../../endpoint/src/store/record-row.js';
import { openSqlite } from '../../endpoint/src/store/sqlite.js';
import type { NewRecord } from '../../endpoint/src/store/store.js';
import { ViewWriter } from '../../endpoint/src/store/write.js';
import type { StoredRecord } from '../../endpoint/src/types.js';
import { BIG_BOT_KEY, END, millionRecords } from '../lib/million.js';
import { serve } from '../lib/worker.js';

const fingerprint = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 12);

/**
 * The dataset's rows as `append` makes them (recordRow: the body's JSON, when its first entry
 * happened), in the order they happened (their time, then the generator's order). Sorting only
 * changes which number each record gets: the views are the same whatever order records arrive in
 * (issue 28), and records reach an endpoint in about the order they happen.
 */
function rowsInTimeOrder(count: number, dialect: Dialect): RecordRow[] {
  const rows: RecordRow[] = [];
  const bots = new Map<string, string>();
  for (const { key, record } of millionRecords(count)) {
    const bot = bots.get(key) ?? fingerprint(key);
    bots.set(key, bot);
    const receivedAt = new Date().toISOString();
    const stored: StoredRecord = { seq: 0, receivedAt, occurredAt: receivedAt, ...record, bot };
    rows.push(recordRow(stored, JSON.stringify(record.body), dialect));
  }
  // Array.prototype.sort is stable: records of one moment keep the generator's order.
  return rows.sort((a, b) => a.occurred_at - b.occurred_at);
}

/** Records per transaction of the build: committed as `append` commits them, then added to the views as the projection adds them. */
const BUILD_BATCH = 5_000;

serve({
  /**
   * Opens `database`; when it holds fewer than `count` records, fills it (from empty). Resolves
   * with the count and the seconds spent. The rows are those the endpoint stores, written by its
   * own code: each batch committed by the backend's `commitRecords` (what acknowledging a batch of
   * appends does) and added to the views by the projection's `ViewWriter.project` (entries,
   * summaries, sessions), only in batches of 5,000 and without the pacing that keeps a running
   * endpoint's acknowledgements first; SQLite with a large page cache while it builds.
   */
  async prepare({ database, count }: { database: string; count: number }) {
    const started = performance.now();
    // Opening the store creates and migrates the database.
    const { store } = await openStore({ database, log: () => undefined });
    const have = await store.count();
    await store.close();
    if (have === count) return { records: have, seconds: 0, built: false };
    if (have !== 0) throw new Error(`${database} holds ${have} records, not ${count}: remove it (or drop the database) and run again.`);
    const backend = isPostgresUrl(database) ? await openPostgres({ url: database, log: () => undefined }) : await openSqlite({ file: database, fsync: false });
    try {
      // 1 GB of page cache (the endpoint keeps SQLite's default 2 MB): the build's writes fall all over the indexes.
      if (backend.dialect.name === 'sqlite') await sql`pragma cache_size = -1000000`.execute(backend.db);
      const rows = rowsInTimeOrder(count, backend.dialect);
      const views = new ViewWriter(backend);
      for (let i = 0; i < rows.length; i += BUILD_BATCH) {
        await backend.commitRecords(rows.slice(i, i + BUILD_BATCH));
        while ((await views.project(BUILD_BATCH)) !== 0);
        if ((i / BUILD_BATCH) % 20 === 19) process.stdout.write(`  ${(i + BUILD_BATCH).toLocaleString('en-US')} records, ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
      }
      // As the database's own maintenance would after a bulk load (PostgreSQL's autovacuum; SQLite's
      // optimize, which the endpoint runs at open, hourly and at close): statistics for the query
      // planner, and on PostgreSQL the visibility map that index-only scans rely on.
      if (backend.dialect.name === 'postgres') await sql`vacuum analyze`.execute(backend.db);
    } finally {
      await backend.close();
    }
    const { store: check } = await openStore({ database, log: () => undefined });
    try {
      return { records: await check.count(), seconds: (performance.now() - started) / 1000, built: true };
    } finally {
      await check.close();
    }
  },

  /**
   * The cost of a record that arrives late against one in order, on `database` (a copy: it adds
   * records): `rounds` pairs, each an incoming message of the busiest user (user-0) that happened
   * after everything stored (in order: it extends their latest session or starts one after it),
   * then one that happened inside their history, 10 to 80 days back, a second after one of their
   * entries (late: it joins that session, which is derived again). Each is timed from the append to
   * the moment a read sees it in the views (append, commit, the projection's batch, the read).
   * Resolves with the milliseconds of each.
   */
  async late({ database, rounds }: { database: string; rounds: number }) {
    const { store } = await openStore({ database, log: () => undefined });
    try {
      const bot = fingerprint(BIG_BOT_KEY);
      const user = 'user-0';
      const history = await store.db.selectFrom('entries').select(['occurred_at', 'conversation_id']).where('user_id', '=', user).where('bot', '=', bot)
        .where('occurred_at', '>=', END - 80 * 86_400_000).where('occurred_at', '<', END - 10 * 86_400_000).orderBy('occurred_at').execute();
      if (history.length < rounds) throw new Error(`${user} has ${history.length} entries 10 to 80 days back, fewer than ${rounds}`);
      const latest = await store.db.selectFrom('entries').select((eb) => eb.fn.max('occurred_at').as('t')).where('user_id', '=', user).executeTakeFirstOrThrow();
      const message = (at: number, conversation: string, text: string): NewRecord => ({
        platform: 'twitter', platformKind: 'directMessage', v: '11.1.0-rest', type: 'incoming', bot,
        body: { text, userId: user, intent: { name: 'Menu', inputs: [{ name: 'score', value: '0.9' }] }, platformJson: { timestamp: new Date(at).toISOString(), channelId: 'webchat', conversation: { id: conversation }, from: { id: user } } },
      });
      /** Milliseconds of the clock and of this process's CPU (user + system: the page reads are system time) from the append to a read that sees it. */
      const timed = async (record: NewRecord) => {
        const started = performance.now();
        const cpu = process.cpuUsage();
        const stored = await store.append(record);
        await store.db.selectFrom('entries').select('seq').where('seq', '=', stored.seq).execute();
        const used = process.cpuUsage(cpu);
        return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
      };
      // Warm-up: the statements prepared, the pages read once.
      await timed(message(Number(latest.t) + 60_000, `${user}-c0`, 'warm-up in order'));
      await timed(message(Number(history[0].occurred_at) + 1000, history[0].conversation_id, 'warm-up late'));
      const inOrder: number[] = [];
      const late: number[] = [];
      const inOrderCpu: number[] = [];
      const lateCpu: number[] = [];
      let next = Number(latest.t) + 120_000;
      for (let i = 0; i < rounds; i++) {
        const a = await timed(message((next += 90_000), `${user}-c0`, `in order ${i}`));
        const old = history[Math.floor(((i + 1) * history.length) / (rounds + 1))];
        const b = await timed(message(Number(old.occurred_at) + 1000, old.conversation_id, `late ${i}`));
        inOrder.push(a.ms);
        inOrderCpu.push(a.cpuMs);
        late.push(b.ms);
        lateCpu.push(b.cpuMs);
      }
      return { inOrder, late, inOrderCpu, lateCpu, historyEntries: history.length };
    } finally {
      await store.close();
    }
  },
});
