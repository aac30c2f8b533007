/**
 * `forget`: erases one user of one bot from the database (GDPR art. 17), straight on the database
 * (a SQLite file or PostgreSQL), with or without an endpoint running on it: their records, and
 * every figure of every view they added (store/forget.ts). One transaction: all or nothing.
 */
import { stat } from 'node:fs/promises';
import { KeyPolicy } from '../http/auth.js';
import { resolveOptions } from '../options.js';
import { openStore } from '../store/open.js';
import { PROGRAM, UsageError, parseCommandArgs, println, type Command } from './command.js';
import { collectKeys } from './serve.js';

const usage = `Usage: ${PROGRAM} forget --user ID --bot NAME (--data FILE | --database URL) [options]

Erases one user of one bot (GDPR art. 17, the right to erasure): every record that names them,
their transcript, sessions, search hits, and every figure of every view they added; the bot's
views are built again from its other records, so every figure is what it would be had the user
never written. One transaction: a crash or Ctrl+C leaves the data as it was. Erasing a user again
says 0 records. The audit (the database's erasures table, and the line printed) keeps a hash of the
user id, never the id. On PostgreSQL, endpoints may run on the database meanwhile (their views
wait for the erasure); a SQLite file is held by the endpoint running on it: stop it first, or erase
through that endpoint (DELETE /api/users/ID?bot=NAME).

Options:
  --user ID                The user id, as the records give it (userId, or from.id)
  --bot NAME               The bot: a name given to a key with --key NAME=KEY, or its fingerprint
                           (as GET /api/bots shows it)
  --data FILE              The SQLite database file (as given to serve --data)
  --database URL           The PostgreSQL database: postgres://user:password@host:5432/db (also env
                           TRACKING_DATABASE_URL)
  --key NAME=KEY           The keys and names the endpoint runs with, to find --bot by its name
                           (also env TRACKING_API_KEYS, comma-separated)
  --by WHO                 Who asked for the erasure, for the audit (default: the OS user)
  -h, --help               Show this help

Example:
  ${PROGRAM} forget --user 29:1a2b3c --bot pizza --key pizza=$PIZZA_KEY --data .tracking-data/tracking.db --by dpo@example.com`;

export const forgetCommand: Command = {
  name: 'forget',
  summary: 'erase one user of one bot: records, transcript and every figure (GDPR art. 17)',
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      options: {
        user: { type: 'string' },
        bot: { type: 'string' },
        data: { type: 'string' },
        database: { type: 'string' },
        key: { type: 'string', multiple: true },
        by: { type: 'string' },
      },
    });
    const userId = values.user;
    if (userId === undefined || userId === '') throw new UsageError('--user is required: the id of the user to erase.');
    const botName = values.bot?.trim();
    if (botName === undefined || botName === '') throw new UsageError('--bot is required: the bot whose user to erase (a name given with --key NAME=KEY, or its fingerprint).');
    const databaseUrl = values.database ?? (io.env.TRACKING_DATABASE_URL || undefined);
    if (values.data !== undefined && values.database !== undefined) throw new UsageError('--data and --database cannot be used together: name the one database to erase from.');
    const database = values.data ?? databaseUrl;
    if (database === undefined) throw new UsageError('name the database to erase from: --data FILE (SQLite) or --database URL (PostgreSQL).');
    if (values.data === undefined && !/^postgres(ql)?:\/\//i.test(database)) {
      throw new UsageError('--database takes a PostgreSQL URL (postgres://user:password@host:5432/db); for a SQLite file use --data FILE.');
    }
    if (values.data !== undefined) {
      // Opening a file that is not there would make an empty database, and say 0 erased.
      const found = await stat(values.data).catch(() => undefined);
      if (!found?.isFile()) throw new Error(`there is no database file at ${values.data}: give the file serve --data uses.`);
    }
    const resolved = resolveOptions({ apiKeys: collectKeys(values.key, io.env), database });
    // Stryker disable next-line BooleanLiteral: loopbackOnly decides who may read, not which bot a name means (botFor)
    const bot = new KeyPolicy(resolved.apiKeys, true, resolved.botNames).botFor(botName);
    const { store } = await openStore({ database: resolved.database, log: () => undefined });
    try {
      const erasure = await store.forgetUser({ bot, userId, by: values.by ?? io.env.USER ?? null });
      const named = bot === botName ? `bot ${bot}` : `bot ${botName} (${bot})`;
      if (erasure.records === 0) {
        println(io.stdout, `Nothing to erase: ${named} holds no record of that user in ${store.location}. (Audit: user ${erasure.userHash}, 0 records.)`);
      } else {
        println(io.stdout, `Erased user ${erasure.userHash} (SHA-256 of the id) of ${named} from ${store.location}: ${erasure.records} record${erasure.records === 1 ? '' : 's'}, ${erasure.entries} transcript entr${erasure.entries === 1 ? 'y' : 'ies'}; the bot's figures were built again without them.`);
      }
      return 0;
    } finally {
      await store.close();
    }
  },
};
