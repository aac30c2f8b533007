/**
 * `forget` run in this process (forgetCommand.run with an io that keeps what it writes), on a real
 * SQLite file and the real PostgreSQL: what it prints, what it erases, what it writes in the audit,
 * and each refusal naming the argument at fault. forget.test.ts runs the same command as a process.
 */
import { createHash } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError, type CliIO } from '../../src/cli/command.js';
import { forgetCommand } from '../../src/cli/forget.js';
import { openStore } from '../../src/store/open.js';
import { userHash } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { KEY, Q, message, start, tempDir, track } from '../helpers.js';

/** The bot of key KEY as stored: its fingerprint, the first 12 hex digits of its SHA-256. */
const BOT = createHash('sha256').update(KEY).digest('hex').slice(0, 12);

/** An io whose streams keep what is written; `env` as given (nothing of the test runner's). */
function capture(env: NodeJS.ProcessEnv = {}): CliIO & { out: () => string; err: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  const stream = (into: string[]) => ({ write: (chunk: string) => into.push(chunk) > 0 }) as unknown as NodeJS.WritableStream;
  return { stdout: stream(out), stderr: stream(err), env, out: () => out.join(''), err: () => err.join('') };
}

/** Records of users ann (2), bob (1) and cy (1) of the bot of key KEY, the endpoint stopped. */
async function fill(database: string): Promise<void> {
  const endpoint = await start({ database, apiKeys: [`pizza=${KEY}`] });
  try {
    for (const [user, text] of [['ann', 'hi'], ['ann', 'order'], ['bob', 'hi'], ['cy', 'hi']]) expect((await track(endpoint, Q.universalIn, message(user, text))).status).toBe(200);
  } finally {
    await endpoint.close();
  }
}

/** The users the transcript still holds, and the audit lines, read with a store of its own. */
async function contents(database: string): Promise<{ users: string[]; erasures: { by: string | null; bot: string; user_hash: string; records: number; entries: number }[] }> {
  const { store } = await openStore({ database, log: () => undefined });
  try {
    const users = (await store.db.selectFrom('entries').select('user_id').execute()).map((row) => row.user_id).sort();
    const erasures = (await store.db.selectFrom('erasures').select(['by', 'bot', 'user_hash', 'records', 'entries']).orderBy('at').execute())
      .map((row) => ({ ...row, records: Number(row.records), entries: Number(row.entries) }));
    return { users, erasures };
  } finally {
    await store.close();
  }
}

describe('forgetCommand.run, in process', () => {
  let folder: Awaited<ReturnType<typeof tempDir>>;
  let pg: TestDatabase;
  beforeAll(async () => {
    [folder, pg] = await Promise.all([tempDir(), createTestDatabase()]);
  });
  afterAll(async () => {
    await folder?.cleanup();
    await pg?.drop();
  });

  it('is the command named forget, with its help', () => {
    expect(forgetCommand.name).toBe('forget');
    expect(forgetCommand.summary).toBe('erase one user of one bot: records, transcript and every figure (GDPR art. 17)');
    expect(forgetCommand.usage).toMatch(/^Usage: botbuilder-conversation-analytics-endpoint forget --user ID --bot NAME \(--data FILE \| --database URL\) \[options\]\n/);
    for (const option of ['--user ID', '--bot NAME', '--data FILE', '--database URL', '--key NAME=KEY', '--by WHO', '-h, --help', 'TRACKING_DATABASE_URL', 'TRACKING_API_KEYS', 'DELETE /api/users/ID?bot=NAME']) {
      expect(forgetCommand.usage).toContain(option);
    }
  });

  it('erases a user of a SQLite file, the bot named by its key among several keys, and writes the audit; then nothing is left to erase', async () => {
    const file = join(folder.dir, 'in-process.db');
    await fill(file);
    const io = capture({ USER: 'operator' });
    const code = await forgetCommand.run(['--user', 'ann', '--bot', ' pizza ', '--key', 'other=other-key-2', '--key', `pizza=${KEY}`, '--data', file, '--by', 'dpo@example.com'], io);
    expect(code).toBe(0);
    expect(io.err()).toBe('');
    expect(io.out()).toBe(`Erased user ${userHash('ann')} (SHA-256 of the id) of bot pizza (${BOT}) from ${file}: 2 records, 2 transcript entries; the bot's figures were built again without them.\n`);
    // The store was closed: the file opens again (SQLite holds it while a store is open).
    expect(await contents(file)).toEqual({ users: ['bob', 'cy'], erasures: [{ by: 'dpo@example.com', bot: BOT, user_hash: userHash('ann'), records: 2, entries: 2 }] });

    const again = capture({ USER: 'operator' });
    expect(await forgetCommand.run(['--user', 'ann', '--bot', 'pizza', '--key', `pizza=${KEY}`, '--data', file], again)).toBe(0);
    expect(again.out()).toBe(`Nothing to erase: bot pizza (${BOT}) holds no record of that user in ${file}. (Audit: user ${userHash('ann')}, 0 records.)\n`);
    // Without --by, the audit names the OS user (env USER).
    expect((await contents(file)).erasures.at(-1)).toEqual({ by: 'operator', bot: BOT, user_hash: userHash('ann'), records: 0, entries: 0 });

    // The bot by its fingerprint, no key given, nobody named: one record, one entry, by nobody.
    const byPrint = capture({});
    expect(await forgetCommand.run(['--user', 'bob', '--bot', BOT, '--data', file], byPrint)).toBe(0);
    expect(byPrint.out()).toBe(`Erased user ${userHash('bob')} (SHA-256 of the id) of bot ${BOT} from ${file}: 1 record, 1 transcript entry; the bot's figures were built again without them.\n`);
    const after = await contents(file);
    expect(after.users).toEqual(['cy']);
    expect(after.erasures.at(-1)).toEqual({ by: null, bot: BOT, user_hash: userHash('bob'), records: 1, entries: 1 });
  }, 60_000);

  it('erases a user of PostgreSQL, named by --database or by TRACKING_DATABASE_URL, the key from TRACKING_API_KEYS', async () => {
    await fill(pg.url);
    const io = capture({ TRACKING_API_KEYS: `pizza=${KEY}` });
    expect(await forgetCommand.run(['--user', 'bob', '--bot', 'pizza', '--database', pg.url], io)).toBe(0);
    expect(io.out()).toMatch(new RegExp(`^Erased user ${userHash('bob')} \\(SHA-256 of the id\\) of bot pizza \\(${BOT}\\) from .+: 1 record, 1 transcript entry; the bot's figures were built again without them\\.\\n$`));
    expect(io.out()).not.toContain('bob');

    const fromEnv = capture({ TRACKING_DATABASE_URL: pg.url, USER: 'root' });
    expect(await forgetCommand.run(['--user', 'ann', '--bot', BOT], fromEnv)).toBe(0);
    expect(fromEnv.out()).toContain(`of bot ${BOT} from `);
    expect(fromEnv.out()).toContain(': 2 records, 2 transcript entries;');
    // postgresql:// is a PostgreSQL URL too.
    const longName = capture({});
    expect(await forgetCommand.run(['--user', 'cy', '--bot', BOT, '--database', pg.url.replace(/^postgres:/, 'postgresql:')], longName)).toBe(0);
    expect(longName.out()).toContain(': 1 record, 1 transcript entry;');
    const after = await contents(pg.url);
    expect(after.users).toEqual([]);
    expect(after.erasures.map((row) => [row.by, row.user_hash, row.records])).toEqual([[null, userHash('bob'), 1], ['root', userHash('ann'), 2], [null, userHash('cy'), 1]]);
  }, 60_000);

  it('refuses wrong or missing arguments with a UsageError naming the argument', async () => {
    const file = join(folder.dir, 'refusals.db');
    const cases: [string[], NodeJS.ProcessEnv, string][] = [
      [['--bot', 'pizza', '--data', file], {}, '--user is required: the id of the user to erase.'],
      [['--user', '', '--bot', 'pizza', '--data', file], {}, '--user is required: the id of the user to erase.'],
      [['--user', 'ann', '--data', file], {}, '--bot is required: the bot whose user to erase (a name given with --key NAME=KEY, or its fingerprint).'],
      [['--user', 'ann', '--bot', '  ', '--data', file], {}, '--bot is required: the bot whose user to erase (a name given with --key NAME=KEY, or its fingerprint).'],
      [['--user', 'ann', '--bot', 'pizza'], {}, 'name the database to erase from: --data FILE (SQLite) or --database URL (PostgreSQL).'],
      [['--user', 'ann', '--bot', 'pizza'], { TRACKING_DATABASE_URL: '' }, 'name the database to erase from: --data FILE (SQLite) or --database URL (PostgreSQL).'],
      [['--user', 'ann', '--bot', 'pizza', '--data', file, '--database', 'postgres://h/db'], {}, '--data and --database cannot be used together: name the one database to erase from.'],
      [['--user', 'ann', '--bot', 'pizza', '--data', file], { TRACKING_DATABASE_URL: 'x.db' }, 'there is no database file at'],
      [['--user', 'ann', '--bot', 'pizza', '--database', file], {}, '--database takes a PostgreSQL URL (postgres://user:password@host:5432/db); for a SQLite file use --data FILE.'],
      [['--user', 'ann', '--bot', 'pizza', '--database', 'mypostgres://h/db'], {}, '--database takes a PostgreSQL URL'],
      [['--user', 'ann', '--bot', 'pizza'], { TRACKING_DATABASE_URL: 'x.db' }, '--database takes a PostgreSQL URL'],
      [['--user', 'ann', '--bot', 'pizza', '--data', file, '--verbose'], {}, "Unknown option '--verbose'."],
      [['--user'], {}, "Option '--user <value>' argument missing."],
    ];
    for (const [args, env, text] of cases) {
      const io = capture(env);
      const failure = await forgetCommand.run(args, io).then(() => undefined, (error: unknown) => error);
      expect(failure, args.join(' ')).toBeInstanceOf(text.startsWith('there is no') ? Error : UsageError);
      expect((failure as Error).message, args.join(' ')).toContain(text);
      expect(io.out(), args.join(' ')).toBe('');
    }
  });

  it('refuses a --data that is not a file, making none', async () => {
    const missing = join(folder.dir, 'none.db');
    await expect(forgetCommand.run(['--user', 'ann', '--bot', 'pizza', '--data', missing], capture())).rejects.toThrow(`there is no database file at ${missing}: give the file serve --data uses.`);
    const dir = join(folder.dir, 'a-folder.db');
    await mkdir(dir);
    await expect(forgetCommand.run(['--user', 'ann', '--bot', 'pizza', '--data', dir], capture())).rejects.toThrow(`there is no database file at ${dir}: give the file serve --data uses.`);
    await expect(stat(missing)).rejects.toThrow(/ENOENT/);
  });
});
