/**
 * The channels of each conversation (conversation_channels, migration 0011): what the list of
 * conversations narrowed to a channel counts and pages through. Written with every entry, in any
 * order of arrival; filled from the stored entries on upgrade; on SQLite and on PostgreSQL.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { listConversations } from '../../src/read/lists.js';
import type { RecordStore } from '../../src/store/store.js';
import { BOT, appendEach, databases, msg, withStore } from './databases.js';

const DBS = databases();

/** The table's rows, as [channel, conversation] (the bot is always BOT here). */
async function rows(store: RecordStore): Promise<string[][]> {
  const all = await store.db.selectFrom('conversation_channels').selectAll().orderBy('channel').orderBy('conversation_id').execute();
  expect(all.every((row) => row.bot === BOT)).toBe(true);
  return all.map((row) => [row.channel, row.conversation_id]);
}

const RECORDS = [
  msg({ user: 'ann', at: '2026-03-02T10:00:00Z', channel: 'webchat', conversation: 'mixed' }),
  msg({ user: 'ann', at: '2026-03-02T10:05:00Z', channel: 'msteams', conversation: 'mixed' }),
  msg({ user: 'ann', at: '2026-03-02T10:06:00Z', channel: 'msteams', conversation: 'mixed' }),
  msg({ user: 'bob', at: '2026-03-02T11:00:00Z', channel: 'msteams', conversation: 'teams' }),
  // No channel: in no row.
  msg({ user: 'cat', at: '2026-03-02T12:00:00Z', conversation: 'plain' }),
];

describe.each(DBS)('conversation channels on $name', ({ name, fresh }) => {
  it('holds one row per conversation and channel it has an entry on, whatever order the entries arrive in', async () => {
    for (const order of [RECORDS, [...RECORDS].reverse()]) {
      await withStore(await fresh(), async (store) => {
        await appendEach(store, order);
        expect(await rows(store)).toEqual([['msteams', 'mixed'], ['msteams', 'teams'], ['webchat', 'mixed']]);
        const list = await listConversations(store, { channel: 'msteams' }, 10);
        expect([list.total, list.conversations.map((c) => c.conversationId)]).toEqual([2, ['teams', 'mixed']]);
        // Counted and listed within the bot and the time range too.
        const ids = async (range: { from?: number; to?: number }) => {
          const { total, conversations } = await listConversations(store, { channel: 'msteams', ...range }, 10);
          return [total, conversations.map((c) => c.conversationId)];
        };
        expect(await ids({ from: Date.parse('2026-03-02T10:30:00Z') })).toEqual([1, ['teams']]);
        expect(await ids({ to: Date.parse('2026-03-02T10:30:00Z') })).toEqual([1, ['mixed']]);
        expect(await ids({ from: Date.parse('2026-03-02T10:06:00Z'), to: Date.parse('2026-03-02T11:00:00Z') })).toEqual([1, ['mixed']]);
        expect((await listConversations(store, { channel: 'msteams', bots: ['another-bot'] }, 10))).toEqual({ total: 0, conversations: [] });
        expect((await listConversations(store, { channel: 'msteams', bots: [BOT] }, 1))).toMatchObject({ total: 2, conversations: [{ conversationId: 'teams' }] });
      });
    }
  });

  it('loses a conversation\'s channel when retention deletes its last entry on that channel', async () => {
    await withStore(await fresh(), async (store) => {
      await appendEach(store, [
        ...RECORDS,
        // mixed keeps a msteams entry after the cutoff; its webchat one goes.
        msg({ user: 'ann', at: '2026-03-09T10:00:00Z', channel: 'msteams', conversation: 'mixed' }),
      ]);
      await store.deleteBefore(Date.parse('2026-03-05T00:00:00Z'));
      expect(await rows(store)).toEqual([['msteams', 'mixed']]);
      expect((await listConversations(store, { channel: 'webchat' }, 10))).toEqual({ total: 0, conversations: [] });
    });
  });

  it('is filled from the stored entries when a database of version 10 is opened', async () => {
    const database = await fresh();
    await withStore(database, async (store) => {
      await appendEach(store, RECORDS);
      // As version 10 had it: no table, and the migration not yet run.
      await sql`drop table conversation_channels`.execute(store.db);
      await sql`delete from kysely_migration where name = '0011_conversation_channels'`.execute(store.db);
    });
    await withStore(database, async (store) => {
      expect(await rows(store)).toEqual([['msteams', 'mixed'], ['msteams', 'teams'], ['webchat', 'mixed']]);
      expect((await listConversations(store, { channel: 'webchat' }, 10)).conversations.map((c) => c.conversationId)).toEqual(['mixed']);
    });
    expect(name).toMatch(/SQLite|PostgreSQL/);
  });
});
