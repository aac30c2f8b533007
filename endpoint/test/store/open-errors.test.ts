/**
 * A failure after the database is open (here: a data file of an earlier version holding what
 * PostgreSQL cannot keep) is a TrackingEndpointError naming the database with its password masked,
 * and the driver's message keeps no trace of the password either, even where the two share text.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrackingEndpointError } from '../../src/index.js';
import { openStore } from '../../src/store/open.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers.js';

describe('a failure after the database is open', () => {
  let folder: Awaited<ReturnType<typeof tempDir>>;
  let database: TestDatabase;
  beforeAll(async () => {
    [folder, database] = await Promise.all([tempDir(), createTestDatabase()]);
  });
  afterAll(async () => {
    await database?.drop();
    await folder?.cleanup();
  });

  it('names the database with its password masked, and scrubs the password from the driver\'s message', async () => {
    const file = join(folder.dir, 'nul.ndjson');
    await writeFile(file, `${JSON.stringify({ seq: 1, receivedAt: '2025-01-01T00:00:00.000Z', platform: 'universal', platformKind: 'universal', v: '10.1.1-rest', type: 'incoming', bot: 'a\u0000b', body: { text: 'x', userId: 'u' } })}\n`);
    // The server trusts local connections, whatever the password: one that is also a word of the error.
    const url = new URL(database.url);
    url.password = 'UTF8';
    const failure = await openStore({ database: url.toString(), importFrom: file, log: () => undefined }).then(() => undefined, (error: unknown) => error as Error);
    expect(failure).toBeInstanceOf(TrackingEndpointError);
    expect(failure?.message).toBe(`Could not open the database postgres://postgres:***@${url.host}${url.pathname}: invalid byte sequence for encoding "***": 0x00`);
  });
});
