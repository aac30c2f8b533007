/**
 * Measurement 6, the data side: builds (once, then reuses) a database holding the large generated
 * dataset (bench/lib/million.ts) through the store's own write path, in SQLite or PostgreSQL.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { openStore } from '../../endpoint/src/store/open.js';
import { CatchingUpError, type NewRecord, type RecordStore } from '../../endpoint/src/store/store.js';
import { BIG_BOT_KEY, END, millionRecords } from '../lib/million.js';
import { serve } from '../lib/worker.js';

/** Appends `record`, and again after the wait asked while the views catch up (a busy machine: the builder sends faster than they are built). */
async function appendWhenRoom(store: RecordStore, record: NewRecord): Promise<unknown> {
  for (;;) {
    try {
      return await store.append(record);
    } catch (error) {
      if (!(error instanceof CatchingUpError)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

const fingerprint = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 12);

serve({
  /** Opens `database`; when it holds fewer than `count` records, fills it (from empty). Resolves with the count and the seconds spent. */
  async prepare({ database, count }: { database: string; count: number }) {
    const started = performance.now();
    const { store } = await openStore({ database, log: () => undefined });
    try {
      const have = await store.count();
      if (have === count) return { records: have, seconds: 0, built: false };
      if (have !== 0) throw new Error(`${database} holds ${have} records, not ${count}: remove it (or drop the database) and run again.`);
      let pending: Promise<unknown>[] = [];
      for (const { key, record } of millionRecords(count)) {
        pending.push(appendWhenRoom(store, { ...record, bot: fingerprint(key) }));
        if (pending.length >= 4000) {
          await Promise.all(pending);
          pending = [];
        }
      }
      await Promise.all(pending);
      // Built means in the views too: a read waits until they hold every record acknowledged.
      for (let built = false; !built;) {
        try {
          await store.db.selectFrom('entries').select('seq').limit(1).execute();
          built = true;
        } catch (error) {
          if (!(error instanceof CatchingUpError)) throw error;
        }
      }
      // As the database's own maintenance would (PostgreSQL's autovacuum; SQLite's optimize, which the
      // endpoint runs hourly and at close): statistics for the query planner after a bulk load.
      if (store.kind === 'postgres') await sql`analyze`.execute(store.db);
      return { records: await store.count(), seconds: (performance.now() - started) / 1000, built: true };
    } finally {
      await store.close();
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
      const timed = async (record: NewRecord) => {
        const started = performance.now();
        const stored = await store.append(record);
        await store.db.selectFrom('entries').select('seq').where('seq', '=', stored.seq).execute();
        return performance.now() - started;
      };
      // Warm-up: the statements prepared, the pages read once.
      await timed(message(Number(latest.t) + 60_000, `${user}-c0`, 'warm-up in order'));
      await timed(message(Number(history[0].occurred_at) + 1000, history[0].conversation_id, 'warm-up late'));
      const inOrder: number[] = [];
      const late: number[] = [];
      let next = Number(latest.t) + 120_000;
      for (let i = 0; i < rounds; i++) {
        inOrder.push(await timed(message((next += 90_000), `${user}-c0`, `in order ${i}`)));
        const old = history[Math.floor(((i + 1) * history.length) / (rounds + 1))];
        late.push(await timed(message(Number(old.occurred_at) + 1000, old.conversation_id, `late ${i}`)));
      }
      return { inOrder, late, historyEntries: history.length };
    } finally {
      await store.close();
    }
  },
});
