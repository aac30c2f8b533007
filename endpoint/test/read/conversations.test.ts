/**
 * The conversations list narrowed by platform: a conversation is listed when any of its entries is
 * on the platform asked, not only its latest one; on SQLite and PostgreSQL alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { bothDatabases, KEY, Q, request, start, track } from '../helpers.js';

const DATABASES = bothDatabases('conversations.db');

const said = (userId: string, conversation: string, at: string, text: string) => ({
  text, userId, platformJson: { timestamp: at, channelId: 'webchat', conversation: { id: conversation }, from: { id: userId } },
});

describe.each(DATABASES)('conversations by platform on $name', ({ database }) => {
  let endpoint: TrackingEndpoint;
  const listed = async (query: string) => {
    const res = await request(endpoint, `/api/conversations?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { total: res.body.total, ids: res.body.conversations.map((c: { conversationId: string }) => c.conversationId).sort() };
  };
  beforeAll(async () => {
    endpoint = await start({ database: database(), apiKeys: [KEY] });
    // One conversation that moved from Twitter to the universal platform, one on Twitter only.
    expect((await track(endpoint, Q.dmIn, said('u1', 'moved', '2026-03-02T10:00:00Z', 'hi'))).status).toBe(200);
    expect((await track(endpoint, Q.universalIn, said('u1', 'moved', '2026-03-02T10:05:00Z', 'still there?'))).status).toBe(200);
    expect((await track(endpoint, Q.dmIn, said('u2', 'stayed', '2026-03-02T11:00:00Z', 'hello'))).status).toBe(200);
  });
  afterAll(() => endpoint?.close());

  it('lists a conversation on the platform of its latest entry and on that of an earlier one', async () => {
    expect(await listed('platform=universal')).toEqual({ total: 1, ids: ['moved'] });
    expect(await listed('platform=twitter')).toEqual({ total: 2, ids: ['moved', 'stayed'] });
  });

  it('lists nothing for a platform none of its entries is on, and everything without a platform', async () => {
    expect(await listed('platform=sms')).toEqual({ total: 0, ids: [] });
    expect(await listed('')).toEqual({ total: 2, ids: ['moved', 'stayed'] });
  });
});
