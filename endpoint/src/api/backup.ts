/**
 * `GET /api/backup`: a consistent copy of the whole SQLite database, made while the endpoint goes
 * on taking records (SQLite's online backup), streamed as a file download. The database file itself
 * cannot be copied safely while the endpoint runs (its write-ahead log holds the newest commits,
 * and its lock keeps other programs out), so this is how a running SQLite endpoint is backed up.
 * It holds every bot's data: admin readers of every bot only. PostgreSQL: 501, use pg_dump.
 */
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { sendError } from '../http/respond.js';
import type { EndpointContext, Target } from '../http/router.js';

/** `tracking-2026-11-28T08-50-00Z.db`: when the copy was made, in a name every file system takes. */
export function backupFileName(at: Date): string {
  return `tracking-${at.toISOString().slice(0, 19).replace(/:/g, '-')}Z.db`;
}

/** Handles `GET /api/backup` (the route lets admin readers only through). */
export async function handleBackup(req: IncomingMessage, res: ServerResponse, { access }: Target, context: EndpointContext): Promise<void> {
  if (access.bots !== null) {
    return sendError(res, 403, 'A backup holds every bot\'s data: it needs an admin reader of every bot (--reader NAME=TOKEN:admin).');
  }
  const { store } = context;
  if (!store.canBackup) {
    return sendError(res, 501, 'This endpoint keeps its records in PostgreSQL: back it up with pg_dump (see the deployment guide).');
  }
  // Next to the database (same file system, the data folder's 0700), or in the temp folder for an in-memory one.
  const location = store.location;
  const folder = await mkdtemp(join(location === ':memory:' ? tmpdir() : dirname(location), '.tracking-backup-'));
  const file = join(folder, 'backup.db');
  try {
    const started = new Date();
    await store.backup(file);
    const { size } = await stat(file);
    res.writeHead(200, {
      'Content-Type': 'application/vnd.sqlite3',
      'Content-Length': size,
      'Content-Disposition': `attachment; filename="${backupFileName(started)}"`,
      'Cache-Control': 'no-store',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    await pipeline(createReadStream(file), res);
    context.options.log(`tracking endpoint: backup of the database (${size} bytes) taken by ${access.reader ?? 'a reader on this machine'}.`);
  } catch (error) {
    if (!res.headersSent) {
      context.options.log(`tracking endpoint: backup failed: ${(error as Error).message}`);
      sendError(res, 503, 'The backup could not be made (the disk may be full); nothing was sent. Try again later.', undefined, { 'Retry-After': 10 });
    } else {
      res.destroy();
    }
  } finally {
    // Stryker disable next-line ConditionalExpression,LogicalOperator,BooleanLiteral,StringLiteral,BlockStatement: waits for the download to end before its file is removed; on Linux and macOS a file being read stays readable once removed, so no test here can tell (it matters on Windows)
    if (!res.writableFinished && !res.destroyed) await once(res, 'close').catch(() => undefined);
    // Stryker disable next-line BooleanLiteral: force only matters for a folder that is gone, and this one was made above
    await rm(folder, { recursive: true, force: true });
  }
}
