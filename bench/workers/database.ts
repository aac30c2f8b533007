/**
 * Measurement 6, the data side: builds (once, then reuses) a database holding the large generated
 * dataset (bench/lib/million.ts) through the store's own write path, in SQLite or PostgreSQL.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { openStore } from '../../endpoint/src/store/open.js';
import { millionRecords } from '../lib/million.js';
import { serve } from '../lib/worker.js';

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
        pending.push(store.append({ ...record, bot: fingerprint(key) }));
        if (pending.length >= 4000) {
          await Promise.all(pending);
          pending = [];
        }
      }
      await Promise.all(pending);
      // Built means in the views too: a read waits until they hold every record acknowledged.
      await store.db.selectFrom('entries').select('seq').limit(1).execute();
      // As the database's own maintenance would (PostgreSQL's autovacuum; SQLite's optimize, which the
      // endpoint runs hourly and at close): statistics for the query planner after a bulk load.
      if (store.kind === 'postgres') await sql`analyze`.execute(store.db);
      return { records: await store.count(), seconds: (performance.now() - started) / 1000, built: true };
    } finally {
      await store.close();
    }
  },
});
