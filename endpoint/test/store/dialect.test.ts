/**
 * Where SQLite and PostgreSQL differ (store/dialect.ts), seen from outside: search that matches
 * text literally whatever its case, months in UTC, and what each database can hold of a record.
 */
import { describe, expect, it } from 'vitest';
import { appendEach, databases, msg, universal, withEndpoint, withStore } from './databases.js';

const DBS = databases();

describe.each(DBS)('on $name', ({ name, fresh }) => {
  it('search finds text containing %, _ and \\ literally, whatever its case', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      const texts = ['100% sure', '100 percent sure', 'snake_case name', 'snakeXcase name', 'back\\slash', 'backslash', 'Plain TEXT'];
      await appendEach(store, texts.map((text, i) => msg({ user: `u${i}`, at: `2026-03-02T10:0${i}:00Z`, text })));
      const found = async (q: string) => (await get(`/api/search?q=${encodeURIComponent(q)}`)).results.map((r: { text: string }) => r.text).sort();
      expect(await found('100%')).toEqual(['100% sure']);
      expect(await found('0% S')).toEqual(['100% sure']);
      expect(await found('E_C')).toEqual(['snake_case name']);
      expect(await found('k\\s')).toEqual(['back\\slash']);
      expect(await found('plain text')).toEqual(['Plain TEXT']);
      expect(await found('sure')).toEqual(['100 percent sure', '100% sure']);
      expect(await found('%')).toEqual(['100% sure']);
      expect(await found('nothing like it')).toEqual([]);
    });
  });

  it('counts active users per calendar month, in UTC', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [
        msg({ user: 'ann', at: '2026-01-31T23:59:59.999Z' }),
        msg({ user: 'bob', at: '2026-02-01T00:00:00Z' }),
        msg({ user: 'ann', at: '2026-02-28T12:00:00Z' }),
        msg({ user: 'cat', at: '2026-03-01T00:00:00Z' }),
        msg({ user: 'dan', at: '2025-12-31T23:00:00Z' }),
      ]);
      expect((await get('/api/analytics/active-users?interval=month')).points).toEqual([
        { start: '2025-12-01T00:00:00.000Z', active: 1, new: 1, returning: 0 },
        { start: '2026-01-01T00:00:00.000Z', active: 1, new: 1, returning: 0 },
        { start: '2026-02-01T00:00:00.000Z', active: 2, new: 1, returning: 1 },
        { start: '2026-03-01T00:00:00.000Z', active: 1, new: 1, returning: 0 },
      ]);
    });
  });

  it(name === 'PostgreSQL'
    ? 'keeps a NUL character or a lone surrogate as U+FFFD, in keys and values at any depth, and every other value as it came'
    : 'keeps a record exactly as it came, NUL characters and lone surrogates included', async () => {
    await withStore(await fresh(), async (store) => {
      const body = {
        text: 'a\u0000b \ud800 c', userId: 'u\udc00', n: 1.5, yes: true, none: null,
        nested: [{ 'k\u0000ey': ['x\ud83dy', 2, { deep: '\ud83d\ude00 fine' }] }],
        ['__proto__']: { kept: 'as a key' },
      };
      const stored = await store.append(universal('incoming', JSON.parse(JSON.stringify(body))));
      const [read] = await store.records();
      const expected = name === 'PostgreSQL'
        ? { text: 'a\ufffdb \ufffd c', userId: 'u\ufffd', n: 1.5, yes: true, none: null, nested: [{ 'k\ufffdey': ['x\ufffdy', 2, { deep: '\ud83d\ude00 fine' }] }] }
        : { text: 'a\u0000b \ud800 c', userId: 'u\udc00', n: 1.5, yes: true, none: null, nested: [{ 'k\u0000ey': ['x\ud83dy', 2, { deep: '\ud83d\ude00 fine' }] }] };
      expect(read.body).toMatchObject(expected);
      expect(Object.getPrototypeOf(read.body)).not.toEqual({ kept: 'as a key' });
      expect(Object.getOwnPropertyDescriptor(read.body, '__proto__')?.value).toEqual({ kept: 'as a key' });
      expect(stored.seq).toBe(read.seq);
      // What the read side indexes of it: its text and user, as the database can hold them (SQLite
      // keeps the NUL; a lone surrogate, which UTF-8 cannot encode, it reads back as U+FFFDs). The
      // views are built from the record as stored, so the grouping key is that of the stored text
      // (U+FFFD is a symbol, which the key leaves out).
      const entry = await store.db.selectFrom('entries').select(['text', 'user_id', 'text_key']).executeTakeFirstOrThrow();
      if (name === 'PostgreSQL') expect(entry).toEqual({ text: 'a\ufffdb \ufffd c', user_id: 'u\ufffd', text_key: 'a b c' });
      else expect(entry.text?.slice(0, 4)).toBe('a\u0000b ');
    });
  });

  it('takes the body\'s JSON text as sent, escapes in capitals included', async () => {
    await withStore(await fresh(), async (store) => {
      const json = '{"text":"a\\u0000b \\uD800 \\uDBFF\\u00E9","userId":"u"}';
      await store.append(universal('incoming', JSON.parse(json)), json);
      const [read] = await store.records();
      expect(read.body).toEqual(name === 'PostgreSQL' ? { text: 'a\ufffdb \ufffd \ufffd\u00e9', userId: 'u' } : { text: 'a\u0000b \ud800 \udbff\u00e9', userId: 'u' });
    });
  });

  it('keeps a record without those characters exactly as it came, escapes that only look like them included', async () => {
    await withStore(await fresh(), async (store) => {
      const body = { text: 'a \\u0000 b \\ud800 \u00e9\u{1F600}', userId: 'u', list: [1, 'two', { three: [false] }] };
      await store.append(universal('incoming', body));
      const [read] = await store.records();
      expect(read.body).toEqual(body);
    });
  });
});
