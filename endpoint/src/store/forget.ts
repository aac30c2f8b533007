/**
 * Erasing one user of one bot (GDPR art. 17) and giving them their records (art. 15).
 *
 * Erasing is ONE transaction that holds the right to build the views (so no projection runs
 * halfway through it, on any endpoint): it deletes every record of the user (a record is theirs
 * when one of its transcript entries names them; a Messenger webhook batch that also holds other
 * users' messages goes whole), and builds the bot's views again from the records left, page by
 * page, exactly as the projection builds them. Every figure of every view is then what it would
 * be had the user never written, including texts kept as examples (the top messages' `text`),
 * which subtracting counts would have left behind. It costs a read of the bot's records: the
 * other bots' views are untouched. A crash at any point leaves all of it or none of it.
 *
 * The audit line written for each erasure holds a hash of the user id, never the id itself.
 */
import { createHash } from 'node:crypto';
import type { Backend } from './backend.js';
import { entriesOf } from './rows.js';
import { recordOf } from './record-row.js';
import type { Database } from './schema.js';
import { ViewWriter } from './write.js';

/** The tables built from records (the views), each with a `bot` column. */
export const VIEW_TABLES = [
  'entries', 'users', 'conversations', 'conversation_users', 'conversation_channels', 'counts', 'user_days', 'user_weeks', 'sessions', 'session_heads',
  'daily_messages', 'message_totals', 'daily_clicks', 'button_labels', 'session_days', 'session_lengths', 'session_paths',
] as const satisfies readonly (keyof Database)[];

/** Records read and built again per statement while erasing. */
export const FORGET_PAGE = 500;

/** Who to erase. */
export interface ForgetRequest {
  /** The bot (its key's fingerprint, as stored). */
  bot: string;
  /** The user id, as the records give it. */
  userId: string;
  /** Who asked (a reader's name, an operator); kept in the audit line. */
  by?: string | null;
}

/** What an erasure did: the audit line. */
export interface Erasure {
  bot: string;
  /** `userHash(userId)`: the user, without their id in clear. */
  userHash: string;
  /** Records deleted (0 when the user had none: erasing again is harmless). */
  records: number;
  /** Transcript entries of the user deleted with them. */
  entries: number;
  by: string | null;
  /** When (ISO 8601). */
  at: string;
}

/**
 * The user id as the audit keeps it: the first 16 hex digits of its SHA-256. To confirm that an id
 * was erased, hash it the same way (`printf %s ID | sha256sum | cut -c1-16`). A short unsalted
 * hash of an id that can be guessed is a pseudonym, not a secret.
 */
export function userHash(userId: string): string {
  return createHash('sha256').update(userId).digest('hex').slice(0, 16);
}

/**
 * Erases `request.userId` of `request.bot` (see the module's comment), in one transaction, and
 * records the erasure in `erasures`. `progress` is called after each page of records read, with
 * the number read so far. Resolves with the audit line.
 */
export function forgetUser(backend: Backend, request: ForgetRequest, progress: (read: number) => void = () => undefined): Promise<Erasure> {
  const { dialect } = backend;
  const user = dialect.text(request.userId);
  const views = new ViewWriter(backend);
  return backend.db.transaction().execute(async (trx) => {
    await backend.lockProjection(trx, true);
    for (const table of VIEW_TABLES) await trx.deleteFrom(table).where('bot', '=', request.bot).execute();
    let after = 0;
    let read = 0;
    let records = 0;
    let entries = 0;
    for (;;) {
      const rows = await trx.selectFrom('records').selectAll().where('bot', '=', request.bot).where('seq', '>', after).orderBy('seq').limit(FORGET_PAGE).execute();
      if (rows.length === 0) break;
      const batch = rows.map((row) => recordOf(row, dialect));
      const seqs = batch.map((record) => record.seq);
      after = seqs[seqs.length - 1];
      read += rows.length;
      const perRecord = entriesOf(batch, dialect);
      const gone = new Set<number>();
      perRecord.forEach((list, i) => {
        const theirs = list.filter((entry) => entry.user_id === user).length;
        if (theirs === 0) return;
        gone.add(batch[i].seq);
        entries += theirs;
      });
      records += gone.size;
      // Each record read is built here: a mark left on it would build it twice.
      await trx.deleteFrom('unprojected').where('seq', 'in', seqs).execute();
      if (gone.size > 0) await trx.deleteFrom('records').where('seq', 'in', [...gone]).execute();
      await views.write(trx, batch.filter((record) => !gone.has(record.seq)));
      progress(read);
    }
    const erasure: Erasure = { bot: request.bot, userHash: userHash(request.userId), records, entries, by: request.by ?? null, at: new Date().toISOString() };
    await trx.insertInto('erasures').values({ at: Date.parse(erasure.at), by: erasure.by === null ? null : dialect.text(erasure.by), bot: erasure.bot, user_hash: erasure.userHash, records, entries }).execute();
    return erasure;
  });
}

/** The audit line of an erasure, for the log. */
export function erasureLine(erasure: Erasure): string {
  return `tracking endpoint: erased user ${erasure.userHash} (SHA-256 of the id) of bot ${erasure.bot}: ${erasure.records} record${erasure.records === 1 ? '' : 's'}, ${erasure.entries} entr${erasure.entries === 1 ? 'y' : 'ies'}; asked by ${erasure.by ?? 'an unnamed reader'}.`;
}
