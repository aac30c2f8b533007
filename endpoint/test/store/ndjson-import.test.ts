/**
 * An earlier version's NDJSON data file, imported once on the first start with a database
 * (store/ndjson-import.ts): which lines are records, what is kept of them, and what is reported.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importNdjsonOnce, parseRecordLine } from '../../src/store/ndjson-import.js';
import { tempDir } from '../helpers.js';
import { databases, withStore } from './databases.js';

const [sqlite] = databases();
let folder: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  folder = await tempDir();
});
afterAll(() => folder?.cleanup());

const GOOD = { seq: 3, receivedAt: '2025-03-01T10:00:00.000Z', platform: 'universal', platformKind: 'universal', v: '10.1.1-rest', type: 'incoming', bot: 'abcdefabcdef', body: { text: 'hi', userId: 'u' } };
const line = (change: Record<string, unknown> = {}) => JSON.stringify({ ...GOOD, ...change });

describe('a line of an earlier version\'s data file', () => {
  it('is a record when every field is there and of its kind', () => {
    expect(parseRecordLine(line())).toEqual(GOOD);
    expect(parseRecordLine(line({ platform: null, platformKind: null, v: null, type: 'generic', body: null }))).toMatchObject({ platform: null, platformKind: null, v: null, type: 'generic', body: null });
    for (const type of ['incoming', 'outgoing', 'event', 'generic']) expect(parseRecordLine(line({ type })), type).toBeDefined();
    for (const platformKind of ['sms', 'universal', 'directMessage', 'messenger']) expect(parseRecordLine(line({ platformKind })), platformKind).toBeDefined();
    for (const v of ['11.1.0-rest', '10.1.1-rest']) expect(parseRecordLine(line({ v })), v).toBeDefined();
  });

  it('is not a record when it is not a JSON object', () => {
    for (const text of ['', 'not json', '{"seq":1,', '[1,2]', 'null', '"text"', '42']) expect(parseRecordLine(text), text).toBeUndefined();
  });

  it('is not a record when a field is missing or of another kind', () => {
    const bad: Record<string, unknown>[] = [
      { seq: 0 }, { seq: -1 }, { seq: 1.5 }, { seq: '3' }, { seq: 2 ** 53 }, { seq: undefined },
      // 2025 is a number, though Date.parse('2025') is a date.
      { receivedAt: 'yesterday' }, { receivedAt: 1_700_000_000_000 }, { receivedAt: 2025 }, { receivedAt: undefined },
      { type: 'other' }, { type: undefined },
      { platform: 5 }, { platform: undefined },
      { platformKind: 'pager' }, { platformKind: undefined },
      { v: '9.0.0' }, { v: undefined },
      { bot: null }, { bot: 5 },
    ];
    for (const change of bad) expect(parseRecordLine(line(change)), JSON.stringify(change)).toBeUndefined();
    const { body: _body, ...withoutBody } = GOOD;
    expect(parseRecordLine(JSON.stringify(withoutBody))).toBeUndefined();
  });
});

describe('importing an earlier version\'s data file', () => {
  it('imports its records in order with when they were received, numbered anew, skipping and counting lines that are not records', async () => {
    const file = join(folder.dir, 'records.ndjson');
    await writeFile(file, [
      line({ seq: 7, body: { text: 'first', userId: 'u' } }),
      '',
      '   ',
      line({ seq: 9, receivedAt: '2025-03-02T10:00:00.000Z', occurredAt: '2020-01-01T00:00:00.000Z', body: { text: 'second', userId: 'u' } }),
      '{"seq": 10, "torn',
      line({ seq: 11, type: 'nonsense' }),
      line({ seq: 12, receivedAt: '2025-03-03T10:00:00.000Z', body: { text: 'third', userId: 'u' } }),
    ].join('\r\n'));
    await withStore(await sqlite.fresh(), async (store) => {
      const report = await importNdjsonOnce(store, file);
      expect(report).toEqual({ file, records: 3, skipped: 2 });
      const records = await store.records();
      expect(records.map((r) => [r.seq, r.receivedAt, r.occurredAt, (r.body as { text: string }).text])).toEqual([
        [1, '2025-03-01T10:00:00.000Z', '2025-03-01T10:00:00.000Z', 'first'],
        [2, '2025-03-02T10:00:00.000Z', '2025-03-02T10:00:00.000Z', 'second'],
        [3, '2025-03-03T10:00:00.000Z', '2025-03-03T10:00:00.000Z', 'third'],
      ]);
      expect(await importNdjsonOnce(store, file)).toBeUndefined();
    });
  });

  it('imports a file once, however its path is written', async () => {
    const file = join(folder.dir, 'again.ndjson');
    await writeFile(file, `${line()}\n`);
    await withStore(await sqlite.fresh(), async (store) => {
      expect(await importNdjsonOnce(store, relative(process.cwd(), file))).toEqual({ file, records: 1, skipped: 0 });
      expect(await importNdjsonOnce(store, file)).toBeUndefined();
      expect(await store.count()).toBe(1);
      // Another file is another source: imported too.
      const other = join(folder.dir, 'other.ndjson');
      await writeFile(other, `${line({ body: { text: 'other', userId: 'v' } })}\n`);
      expect(await importNdjsonOnce(store, other)).toEqual({ file: other, records: 1, skipped: 0 });
      expect(await store.count()).toBe(2);
    });
  });

  it('does nothing when there is no such file, or it is a folder', async () => {
    const dir = join(folder.dir, 'a-folder.ndjson');
    await mkdir(dir);
    await withStore(await sqlite.fresh(), async (store) => {
      expect(await importNdjsonOnce(store, join(folder.dir, 'missing.ndjson'))).toBeUndefined();
      expect(await importNdjsonOnce(store, dir)).toBeUndefined();
      expect(await store.count()).toBe(0);
    });
  });

  it('removes the page access tokens an earlier version kept', async () => {
    const file = join(folder.dir, 'tokens.ndjson');
    await writeFile(file, `${line({ platform: 'facebook', platformKind: 'messenger', v: '11.1.0-rest', type: 'outgoing', body: { uri: 'https://graph.facebook.com/me/messages?access_token=EAA-secret', json: { recipient: { id: 'p' }, message: { text: 'hi' } } } })}\n`);
    await withStore(await sqlite.fresh(), async (store) => {
      await importNdjsonOnce(store, file);
      const [record] = await store.records();
      expect(JSON.stringify(record.body)).not.toContain('EAA-secret');
      expect((record.body as { uri: string }).uri).toBe('https://graph.facebook.com/me/messages?access_token=%5Baccess%20token%20removed%20by%20the%20endpoint%5D');
    });
  });
});
