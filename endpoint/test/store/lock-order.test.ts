/**
 * Several endpoints on one PostgreSQL database write the same summary rows at once: each batch
 * writes them in one order (by key, sessions by id), whatever the order its records arrived in,
 * so that two batches lock shared rows in the same order and never deadlock.
 */
import { describe, expect, it } from 'vitest';
import { sqliteDialect } from '../../src/store/dialect.js';
import { batchRows, entriesOf } from '../../src/store/rows.js';
import { sessionRows } from '../../src/store/sessions.js';
import type { StoredRecord } from '../../src/index.js';
import { databases, msg, withStore, type Msg } from './databases.js';

const [sqlite] = databases();
const RECEIVED = '2026-03-05T00:00:00.000Z';

function batch(messages: Msg[]): StoredRecord[] {
  return messages.map((m, i) => ({ ...msg(m), seq: 100 + i, receivedAt: RECEIVED, occurredAt: RECEIVED }));
}

const MESSAGES: Msg[] = [
  { user: 'cat', at: '2026-03-02T12:00:00Z', text: 'zebra', button: 'z', channel: 'webchat', conversation: 'k3' },
  { user: 'ann', at: '2026-03-03T10:00:00Z', text: 'apple', button: 'a', channel: 'msteams', conversation: 'k1' },
  { user: 'bob', at: '2026-03-02T10:00:00Z', text: 'mango', button: 'm', platform: 'twitter', conversation: 'k2' },
  { user: 'ann', at: '2026-03-02T11:00:00Z', text: 'kiwi', button: 'k', channel: 'webchat', conversation: 'k2' },
];

describe('the order a batch writes summary rows in', () => {
  it('is by key for every summary table, whatever order the records arrived in', () => {
    for (const messages of [MESSAGES, [...MESSAGES].reverse()]) {
      const records = batch(messages);
      const rows = batchRows(records, entriesOf(records, sqliteDialect), sqliteDialect);
      expect(rows.users.map((u) => u.user_id)).toEqual(['ann', 'bob', 'cat']);
      expect(rows.conversations.map((c) => c.conversation_id)).toEqual(['k1', 'k2', 'k3']);
      expect(rows.conversationUsers.map((c) => `${c.conversation_id}/${c.user_id}`)).toEqual(['k1/ann', 'k2/ann', 'k2/bob', 'k3/cat']);
      expect(rows.userDays.map((d) => `${d.user_id} ${new Date(d.day).toISOString().slice(0, 10)}`)).toEqual(['ann 2026-03-02', 'ann 2026-03-03', 'bob 2026-03-02', 'cat 2026-03-02']);
      expect(rows.userWeeks.map((w) => `${w.user_id} ${w.channel}`)).toEqual(['ann msteams', 'ann webchat', 'bob ', 'cat webchat']);
      expect(rows.dailyMessages.map((m) => m.text_key)).toEqual(['mango', 'kiwi', 'zebra', 'apple']);
      expect(rows.messageTotals.map((m) => `${m.platform}/${m.channel}/${m.text_key}`)).toEqual(['twitter//mango', 'universal/msteams/apple', 'universal/webchat/kiwi', 'universal/webchat/zebra']);
      expect(rows.dailyClicks.map((c) => c.button)).toEqual(['m', 'k', 'z', 'a']);
      const hours = rows.counts.filter((c) => c.width === 'h').map((c) => new Date(c.at).toISOString().slice(5, 13));
      expect(hours).toEqual(['03-02T10', '03-02T11', '03-02T12', '03-03T10']);
      // Entries stay in the order the batch holds them (they are numbered).
      expect(rows.entries.map((e) => e.seq)).toEqual([100, 101, 102, 103]);
    }
  });

  it('is by id for sessions, and by user and conversation for their heads', async () => {
    await withStore(await sqlite.fresh(), async (store) => {
      for (const messages of [MESSAGES, [...MESSAGES].reverse()]) {
        const records = batch(messages);
        const entries = entriesOf(records, sqliteDialect).flat();
        const { sessions, heads } = await store.db.transaction().execute((trx) => sessionRows(trx, entries, false));
        expect(sessions.map((s) => s.id)).toEqual(['100:0', '101:0', '102:0', '103:0']);
        expect(heads.map((h) => `${h.user_id}/${h.conversation_id}`)).toEqual(['ann/k1', 'ann/k2', 'bob/k2', 'cat/k3']);
      }
    });
  });
});
