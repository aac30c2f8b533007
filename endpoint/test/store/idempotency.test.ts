/**
 * Idempotency keys in the store, on SQLite and on PostgreSQL: an append with a (bot, key) already
 * stored resolves with that record's number and stores nothing, also when both are in one batch,
 * and without failing or rolling back the other records of the batch. The numbers of the records
 * stored stay one run on SQLite (a duplicate takes none).
 */
import { describe, expect, it } from 'vitest';
import { BOT, OTHER_BOT, databases, universal } from './databases.js';
import { openStore } from '../../src/store/open.js';
import { RecordStore, type Backend } from '../../src/store/store.js';
import type { CommittedRows } from '../../src/store/backend.js';

const DBS = databases();
const silent = () => undefined;
const msg = (text: string, bot = BOT) => universal('incoming', { text, userId: 'u1' }, bot);
const textOf = (record: { body: unknown }) => (record.body as { text: string }).text;

/** A store on `database` whose commits are counted: the rows each held, and what each answered. */
async function counted(database: string): Promise<{ store: RecordStore; commits: number[]; answers: CommittedRows[] }> {
  const { store: opened } = await openStore({ database, log: silent });
  const backend = (opened as unknown as { backend: Backend }).backend;
  const commits: number[] = [];
  const answers: CommittedRows[] = [];
  const store = new RecordStore({
    ...backend,
    commitRecords: async (rows) => {
      commits.push(rows.length);
      const answer = await backend.commitRecords(rows);
      answers.push(answer);
      return answer;
    },
  });
  return { store, commits, answers };
}

describe.each(DBS)('idempotency keys in the store on $name', ({ name, fresh }) => {
  it('stores a record appended again with its key once, and resolves the second append with its number', async () => {
    const { store } = await counted(await fresh());
    try {
      const first = await store.append(msg('once'), undefined, 'k-1');
      const again = await store.append(msg('once'), undefined, 'k-1');
      expect(first.duplicate).toBeUndefined();
      expect(again).toMatchObject({ seq: first.seq, duplicate: true, bot: BOT });
      expect((await store.records()).map(textOf)).toEqual(['once']);
      const next = await store.append(msg('next'), undefined, 'k-2');
      // On SQLite the duplicate took no number (PostgreSQL's sequence may leave gaps, as after any failed write).
      if (name === 'SQLite') expect(next.seq).toBe(first.seq + 1);
      else expect(next.seq).toBeGreaterThan(first.seq);
    } finally {
      await store.close();
    }
  });

  it('commits a batch holding one key twice as one row, both appends resolved with its number, the others stored as usual', async () => {
    const { store, commits, answers } = await counted(await fresh());
    try {
      const appends = [
        store.append(msg('a')),
        store.append(msg('keyed'), undefined, 'dup'),
        store.append(msg('b'), undefined, 'other'),
        store.append(msg('keyed'), undefined, 'dup'),
        store.append(msg('c')),
      ];
      const stored = await Promise.all(appends);
      // One transaction, of the four distinct rows.
      expect(commits).toEqual([4]);
      expect(answers[0].duplicates).toBeUndefined();
      expect(stored[3]).toMatchObject({ seq: stored[1].seq, duplicate: true });
      expect(stored[1].duplicate).toBeUndefined();
      expect(stored.filter((record) => record.duplicate)).toHaveLength(1);
      expect(new Set(stored.map((record) => record.seq)).size).toBe(4);
      const records = await store.records();
      expect(records.map(textOf)).toEqual(['a', 'keyed', 'b', 'c']);
      expect(records.map((record) => record.seq)).toEqual([stored[0].seq, stored[1].seq, stored[2].seq, stored[4].seq]);
      expect(await store.count()).toBe(4);
    } finally {
      await store.close();
    }
  });

  it('commits the other records of a batch that holds a key stored before, and resolves that one with the stored number', async () => {
    const { store, commits, answers } = await counted(await fresh());
    try {
      const original = await store.append(msg('first'), undefined, 'seen');
      const stored = await Promise.all([
        store.append(msg('x')),
        store.append(msg('first'), undefined, 'seen'),
        store.append(msg('y'), undefined, 'new'),
      ]);
      expect(commits).toEqual([1, 3]);
      expect([...(answers[1].duplicates ?? [])]).toEqual([1]);
      expect(stored[1]).toMatchObject({ seq: original.seq, duplicate: true });
      expect(stored[0].duplicate).toBeUndefined();
      expect(stored[2].duplicate).toBeUndefined();
      expect((await store.records()).map(textOf)).toEqual(['first', 'x', 'y']);
      if (name === 'SQLite') expect([stored[0].seq, stored[2].seq]).toEqual([original.seq + 1, original.seq + 2]);
      // The views hold each stored record once (a duplicate adds nothing to them).
      const entries = await store.db.selectFrom('entries').select('seq').orderBy('seq').execute();
      expect(entries.map((entry) => entry.seq)).toEqual([original.seq, stored[0].seq, stored[2].seq]);
    } finally {
      await store.close();
    }
  });

  it('commits a batch of 450 keyed records (more than one statement holds) once each, and finds them all again', async () => {
    const { store, commits, answers } = await counted(await fresh());
    try {
      const keys = Array.from({ length: 450 }, (_, i) => `bulk-${i}`);
      const stored = await Promise.all(keys.map((key, i) => store.append(msg(`bulk ${i}`), undefined, key)));
      expect(commits).toEqual([450]);
      expect(new Set(stored.map((record) => record.seq)).size).toBe(450);
      expect(stored.some((record) => record.duplicate)).toBe(false);
      const again = await Promise.all(keys.map((key, i) => store.append(msg(`bulk ${i}`), undefined, key)));
      expect(commits).toEqual([450, 450]);
      expect(answers[1].duplicates?.size).toBe(450);
      expect(again.map((record) => record.seq)).toEqual(stored.map((record) => record.seq));
      expect(await store.count()).toBe(450);
    } finally {
      await store.close();
    }
  });

  it('resolves a batch of nothing but keys stored before without storing anything', async () => {
    const { store, commits } = await counted(await fresh());
    try {
      const [a, b] = await Promise.all([store.append(msg('a'), undefined, 'ka'), store.append(msg('b'), undefined, 'kb')]);
      const again = await Promise.all([store.append(msg('b'), undefined, 'kb'), store.append(msg('a'), undefined, 'ka')]);
      expect(commits).toEqual([2, 2]);
      expect(again.map((record) => [record.seq, record.duplicate])).toEqual([[b.seq, true], [a.seq, true]]);
      expect(await store.count()).toBe(2);
      expect(await store.lastSeq()).toBe(Math.max(a.seq, b.seq));
    } finally {
      await store.close();
    }
  });

  it('keeps keys per bot: the same key of two bots stores two records', async () => {
    const { store } = await counted(await fresh());
    try {
      const [mine, theirs] = await Promise.all([store.append(msg('same', BOT), undefined, 'shared'), store.append(msg('same', OTHER_BOT), undefined, 'shared')]);
      expect(theirs.seq).not.toBe(mine.seq);
      expect(mine.duplicate).toBeUndefined();
      expect(theirs.duplicate).toBeUndefined();
      expect((await store.records()).map((record) => record.bot)).toEqual([BOT, OTHER_BOT]);
    } finally {
      await store.close();
    }
  });

  it('keeps the key with its record: the column holds it, and null for a record sent without one', async () => {
    const { store } = await counted(await fresh());
    try {
      await store.append(msg('keyed'), undefined, 'kept key');
      await store.append(msg('plain'));
      const rows = await store.db.selectFrom('records').select(['idempotency_key']).orderBy('seq').execute();
      expect(rows).toEqual([{ idempotency_key: 'kept key' }, { idempotency_key: null }]);
    } finally {
      await store.close();
    }
  });
});
