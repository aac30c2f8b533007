/** `forget`, run as a user runs it: erasing a user of a bot named by its key's name, on a SQLite file and on PostgreSQL; its refusals. */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { userHash } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { KEY, Q, message, start, tempDir, track } from '../helpers.js';
import { runCli } from './helpers.js';

/** A database with two users of the bot named pizza (key KEY), the endpoint stopped. */
async function fill(database: string): Promise<void> {
  const endpoint = await start({ database, apiKeys: [`pizza=${KEY}`] });
  for (const [user, text] of [['ann', 'hi'], ['ann', 'order'], ['bob', 'hi']]) expect((await track(endpoint, Q.universalIn, message(user, text))).status).toBe(200);
  await endpoint.close();
}

async function users(database: string): Promise<string[]> {
  const { store } = await openStore({ database, log: () => undefined });
  try {
    return (await store.db.selectFrom('entries').select('user_id').execute()).map((row) => row.user_id).sort();
  } finally {
    await store.close();
  }
}

describe('forget', () => {
  let folder: Awaited<ReturnType<typeof tempDir>>;
  let pg: TestDatabase;
  beforeAll(async () => {
    [folder, pg] = await Promise.all([tempDir(), createTestDatabase()]);
  });
  afterAll(async () => {
    await folder?.cleanup();
    await pg?.drop();
  });

  it('erases a user of a SQLite file, the bot named by its key, and says so; again, says there is nothing', async () => {
    const file = join(folder.dir, 'cli.db');
    await fill(file);
    const result = await runCli(['forget', '--user', 'ann', '--bot', 'pizza', '--key', `pizza=${KEY}`, '--data', file, '--by', 'dpo']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Erased user ${userHash('ann')} \\(SHA-256 of the id\\) of bot pizza \\([0-9a-f]{12}\\) from .*cli\\.db: 2 records, 2 transcript entries; the bot's figures were built again without them\\.\\n$`));
    expect(result.stdout).not.toContain('ann');
    expect(await users(file)).toEqual(['bob']);
    const again = await runCli(['forget', '--user', 'ann', '--bot', 'pizza', '--key', `pizza=${KEY}`, '--data', file]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Nothing to erase: bot pizza (`);
    expect(again.stdout).toContain(`(Audit: user ${userHash('ann')}, 0 records.)`);
  }, 60_000);

  it('erases a user of a PostgreSQL database named by TRACKING_DATABASE_URL, the bot by its fingerprint; one record, one entry', async () => {
    await fill(pg.url);
    const bot = (await (async () => {
      const { store } = await openStore({ database: pg.url, log: () => undefined });
      try {
        return (await store.records())[0].bot;
      } finally {
        await store.close();
      }
    })());
    const result = await runCli(['forget', '--user', 'bob', '--bot', bot], { TRACKING_DATABASE_URL: pg.url });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`of bot ${bot} from `);
    expect(result.stdout).toContain(': 1 record, 1 transcript entry;');
    expect(await users(pg.url)).toEqual(['ann', 'ann']);
  }, 60_000);

  it('refuses what it cannot do, saying why', async () => {
    const cases: [string[], number, string][] = [
      [['forget', '--bot', 'pizza', '--data', 'x.db'], 2, '--user is required'],
      [['forget', '--user', '', '--bot', 'pizza', '--data', 'x.db'], 2, '--user is required'],
      [['forget', '--user', 'ann', '--data', 'x.db'], 2, '--bot is required'],
      [['forget', '--user', 'ann', '--bot', ' ', '--data', 'x.db'], 2, '--bot is required'],
      [['forget', '--user', 'ann', '--bot', 'pizza'], 2, 'name the database to erase from: --data FILE (SQLite) or --database URL (PostgreSQL).'],
      [['forget', '--user', 'ann', '--bot', 'pizza', '--data', 'x.db', '--database', 'postgres://h/db'], 2, '--data and --database cannot be used together'],
      [['forget', '--user', 'ann', '--bot', 'pizza', '--database', 'x.db'], 2, '--database takes a PostgreSQL URL'],
      [['forget', '--user', 'ann', '--bot', 'pizza', '--data', join(folder.dir, 'none.db')], 1, `there is no database file at ${join(folder.dir, 'none.db')}`],
      [['forget', '--user', 'ann', '--bot', 'pizza', '--data', folder.dir], 1, 'there is no database file at'],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args, {}, 100_000)));
    cases.forEach(([args, code, text], i) => {
      expect(results[i].code, args.join(' ')).toBe(code);
      expect(results[i].stderr, args.join(' ')).toContain(text);
    });
  }, 120_000);

  it('says so when an endpoint holds the SQLite file', async () => {
    const file = join(folder.dir, 'held.db');
    const endpoint = await start({ database: file });
    try {
      const result = await runCli(['forget', '--user', 'ann', '--bot', 'pizza', '--data', file]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('is in use by another tracking endpoint');
    } finally {
      await endpoint.close();
    }
  }, 60_000);
});
