/**
 * Search ignores case the same way on SQLite and PostgreSQL, accented and other non-ASCII letters
 * included (SQLite's own LIKE folds ASCII only), and takes `%`, `_` and `\` literally.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { OTHER_UPPER_CASE, upperCasesOf } from '../../src/read/fold.js';
import { bothDatabases, KEY, Q, request, start, track } from '../helpers.js';

const DATABASES = bothDatabases('search.db');

const said = (userId: string, name: string | undefined, text: string) => ({
  text, userId, platformJson: { channelId: 'webchat', conversation: { id: `${userId}-c` }, from: { id: userId, ...(name === undefined ? {} : { name }) } },
});

describe.each(DATABASES)('search on $name', ({ database }) => {
  let endpoint: TrackingEndpoint;
  /** The texts found, waiting for the views to catch up with what was acknowledged (at most 5 s). */
  const found = async (query: string, expected: number): Promise<string[]> => {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const res = await request(endpoint, `/api/search?${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const texts = res.body.results.map((r: { text: string }) => r.text);
      if (texts.length >= expected || Date.now() > deadline) return texts.sort();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  beforeAll(async () => {
    endpoint = await start({ database: database(), apiKeys: [KEY] });
    const records = [
      said('u1', 'Émile Zola', 'Été à Paris'),
      said('u2', 'émile', 'ÉTÉ INDIEN'),
      said('u3', 'Ørjan', 'STRASSE and Straße'),
      said('u4', undefined, '100% sure, a_b and c\\d'),
      said('u5', undefined, 'Kelvin: 300 \u212a; ÅNGSTRÖM'),
      said('u6', undefined, 'nothing here'),
    ];
    for (const body of records) expect((await track(endpoint, Q.dmIn, body)).status).toBe(200);
  });
  afterAll(() => endpoint?.close());

  it('finds accented text whatever its case: été finds Été and ÉTÉ', async () => {
    expect(await found('q=%C3%A9t%C3%A9', 2)).toEqual(['ÉTÉ INDIEN', 'Été à Paris']);
    expect(await found('q=%C3%89T%C3%89', 2)).toEqual(['ÉTÉ INDIEN', 'Été à Paris']);
  });

  it('finds a user by a name with accents whatever its case: émile finds Émile Zola and émile', async () => {
    expect(await found('user=%C3%A9mile', 2)).toEqual(['ÉTÉ INDIEN', 'Été à Paris']);
    expect(await found('user=%C3%98RJAN', 1)).toEqual(['STRASSE and Straße']);
  });

  it('folds as JavaScript lower-cases, letter by letter: ß is not ss, the Kelvin sign is a k, Å (Angstrom sign) is å', async () => {
    expect(await found('q=stra%C3%9Fe', 1)).toEqual(['STRASSE and Straße']);
    expect(await found('q=300%20k', 1)).toEqual(['Kelvin: 300 \u212a; ÅNGSTRÖM']);
    expect(await found('q=%C3%A5ngstr%C3%B6m', 1)).toEqual(['Kelvin: 300 \u212a; ÅNGSTRÖM']);
  });

  it('takes %, _ and \\ as plain characters', async () => {
    expect(await found('q=0%25%20sure', 1)).toEqual(['100% sure, a_b and c\\d']);
    expect(await found('q=a_b', 1)).toEqual(['100% sure, a_b and c\\d']);
    expect(await found('q=c%5Cd', 1)).toEqual(['100% sure, a_b and c\\d']);
    expect(await found('q=a%25b', 0)).toEqual([]);
    expect(await found('q=1_0', 0)).toEqual([]);
  });
});

describe('case folding', () => {
  it('knows every letter whose lower case does not upper-case back to it, as Node knows Unicode', () => {
    let expected = '';
    for (let cp = 0x80; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const letter = String.fromCodePoint(cp);
      const lower = letter.toLowerCase();
      if (lower !== letter && [...lower].length === 1 && lower.toUpperCase() !== letter) expected += letter + lower;
    }
    expect(OTHER_UPPER_CASE).toBe(expected);
  });

  it('lists the other upper-case forms of a letter beyond ASCII, never an ASCII one', () => {
    expect(upperCasesOf('é')).toEqual(['É']);
    expect(upperCasesOf('k')).toEqual(['\u212a']);
    expect(upperCasesOf('a')).toEqual([]);
    expect(upperCasesOf('ǆ')).toEqual(['Ǆ', 'ǅ']);
    expect(upperCasesOf('ı')).toEqual([]); // dotless i upper-cases to I, which lower-cases to i
  });
});
