/**
 * Transcripts and search read entries in the order they happened (their time, then arrival), on
 * SQLite and on PostgreSQL: a record that arrives late takes its place by its time, and paging
 * back with the transcript's cursor neither skips nor repeats an entry when one arrives between
 * two pages.
 */
import { describe, expect, it } from 'vitest';
import { appendEach, databases, ev, msg, withEndpoint } from '../store/databases.js';
import type { TranscriptEntry } from '../../src/index.js';
import { Q, request, start, track } from '../helpers.js';

const DBS = databases();
const T = '2026-03-02T10:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(T) + minutes * 60_000).toISOString();
const texts = (entries: TranscriptEntry[]) => entries.map((e) => e.text ?? `event:${e.event?.name}`);

describe.each(DBS)('reading by when things happened on $name', ({ fresh }) => {
  it('a transcript lists entries by their time, whatever order they arrived in; of two at one moment, the first received first', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      // Newest first, as the user posted them; then two at one moment.
      await appendEach(store, [
        ev('ann', 'purchase', at(3)), msg({ user: 'ann', at: at(2), text: 'Checkout' }), msg({ user: 'ann', at: at(1), text: 'OrderPizza' }), msg({ user: 'ann', at: at(0), text: 'Greeting' }),
        msg({ user: 'ann', at: at(5), text: 'same moment, first' }), msg({ user: 'ann', at: at(5), text: 'same moment, second', type: 'outgoing' }),
      ]);
      const body = await get('/api/transcript?user=ann');
      expect(texts(body.entries)).toEqual(['Greeting', 'OrderPizza', 'Checkout', 'event:purchase', 'same moment, first', 'same moment, second']);
      expect(body).toMatchObject({ total: 6, before: null });
      expect(texts((await get('/api/transcript?conversation=c-ann')).entries)).toEqual(texts(body.entries));
      expect((await get('/api/analytics/paths')).paths[0].steps).toEqual(['event:purchase']);
    });
  });

  it('pages back with the cursor each page gives, and an entry that arrives late between two pages neither shifts nor repeats them', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [0, 10, 20, 30, 40, 50].map((m) => msg({ user: 'ann', at: at(m), text: `m${m}` })));
      const latest = await get('/api/transcript?user=ann&limit=2');
      expect(texts(latest.entries)).toEqual(['m40', 'm50']);
      expect(latest.before).toBe(`${latest.entries[0].seq}:0`);
      // One arrives late, older than the page read: the next page goes on from the cursor's time and place.
      await appendEach(store, [msg({ user: 'ann', at: at(25), text: 'm25 (late)' }), msg({ user: 'ann', at: at(45), text: 'm45 (late)' })]);
      const second = await get(`/api/transcript?user=ann&limit=2&before=${latest.before}`);
      expect(texts(second.entries)).toEqual(['m25 (late)', 'm30']);
      const third = await get(`/api/transcript?user=ann&limit=3&before=${second.before}`);
      expect(texts(third.entries)).toEqual(['m0', 'm10', 'm20']);
      expect(third.before).toBeNull();
      // A cursor given as the seq alone is that record's entry; a seq of a record not in the transcript is its time.
      expect(texts((await get(`/api/transcript?user=ann&limit=1&before=${latest.entries[0].seq}`)).entries)).toEqual(['m30']);
      await appendEach(store, [msg({ user: 'bob', at: at(15), text: 'bob' })]);
      const bob = (await get('/api/transcript?user=bob')).entries[0].seq;
      expect(texts((await get(`/api/transcript?user=ann&before=${bob}`)).entries)).toEqual(['m0', 'm10']);
      expect(texts((await get('/api/transcript?user=ann&before=999999')).entries)).toHaveLength(8);
    });
  });

  it('search gives the newest first by when things happened, a late record in its place', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [msg({ user: 'ann', at: at(60), text: 'pizza at 60' }), msg({ user: 'bob', at: at(0), text: 'pizza at 0' }), msg({ user: 'cat', at: at(30), text: 'pizza at 30' })]);
      // Over days: the first window (six hours) holds the latest, the next ones the rest.
      await appendEach(store, [msg({ user: 'dan', at: at(-3 * 1440), text: 'pizza three days back' })]);
      expect(texts((await get('/api/search?q=pizza')).results)).toEqual(['pizza at 60', 'pizza at 30', 'pizza at 0', 'pizza three days back']);
      expect(texts((await get('/api/search?q=pizza&from=2026-03-01&to=2026-03-03')).results)).toEqual(['pizza at 60', 'pizza at 30', 'pizza at 0']);
      expect(await get('/api/search?q=pizza&limit=2')).toMatchObject({ more: true });
    });
  });


  it('a time more than a day ahead of the endpoint\'s clock is placed at arrival, and the minute line counts it; a day ahead at most is kept', async () => {
    const log: string[] = [];
    const endpoint = await start({ database: await fresh(), log: (line) => log.push(line), summaryIntervalMs: 0 });
    try {
      const now = Date.now();
      const say = (text: string, ms: number) => track(endpoint, Q.universalIn, { text, userId: 'ann', platformJson: { timestamp: new Date(ms).toISOString(), conversation: { id: 'c' } } });
      expect((await say('next year', now + 365 * 86_400_000)).status).toBe(200);
      expect((await say('a day and a minute ahead', now + 86_400_000 + 60_000)).status).toBe(200);
      expect((await say('an hour ahead', now + 3_600_000)).status).toBe(200);
      expect((await say('an hour ago', now - 3_600_000)).status).toBe(200);
      const { entries } = (await request(endpoint, '/api/transcript?user=ann')).body as { entries: TranscriptEntry[] };
      expect(texts(entries)).toEqual(['an hour ago', 'next year', 'a day and a minute ahead', 'an hour ahead']);
      for (const entry of entries.slice(1, 3)) expect(entry.time).toBe(entry.receivedAt);
      expect(Date.parse(entries[3].time)).toBeGreaterThan(now + 3_500_000);
      // Not pinned to next year: a session an hour ago, one now (the two placed at arrival), one an hour ahead.
      expect((await request(endpoint, '/api/analytics/sessions')).body).toMatchObject({ sessions: 3, messagesPerSession: 1.33 });
    } finally {
      await endpoint.close();
    }
    expect(log.filter((line) => /records? accepted/.test(line))).toEqual([
      expect.stringMatching(/^tracking endpoint: since start: 4 records accepted \(2 entries dated more than a day ahead of this endpoint's clock, placed at arrival\), 0 requests refused; /),
    ]);
  });
});
