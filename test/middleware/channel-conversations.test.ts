/**
 * One realistic conversation per channel (fixtures/conversations.ts), replayed through the
 * middleware: every record is accepted, and read back the way the endpoint's page reads it, each
 * one shows what the user saw: who, the text, the buttons (ids and values too), the images, the
 * click, the intent with its inputs, the events; for Messenger, the attachments as sent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestAdapter, type Activity } from 'botbuilder';
import { validate } from '../../src/protocol/index.js';
import { TrackingMiddleware } from '../../src/middleware/index.js';
import { CONVERSATIONS, type Saw } from './fixtures/conversations.js';
import { startHarness, type Harness } from './harness.js';
import { KIND, shown } from './transcript-view.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

describe.each(CONVERSATIONS.map((c) => [c.channel, c] as const))('a %s conversation', (_channel, conversation) => {
  it('every record is accepted and shows what the user saw', async () => {
    let replies: Record<string, unknown>[] = [];
    const adapter = new TestAdapter(async (context) => {
      for (const reply of replies) await context.sendActivity(reply as Partial<Activity>);
    });
    adapter.use(new TrackingMiddleware({ client: h.client, ...conversation.options }));
    const expected: Saw[] = [];
    for (const [index, step] of conversation.steps.entries()) {
      replies = step.bot;
      await adapter.processActivity({ channelId: conversation.channel, conversation: { id: `conv-${conversation.channel}` }, id: `act-${index}`, ...step.user } as Partial<Activity>);
      if (step.userSaw) expected.push(step.userSaw);
      expected.push(...step.botSaw);
    }
    const records = await h.records();
    expect(h.errors).toEqual([]);
    for (const record of records) {
      expect(record.platform).toBe(conversation.platform);
      expect(validate(KIND[record.platform], record.type as 'incoming' | 'outgoing' | 'event', record.body)).toEqual([]);
    }
    const offered = new Map<string, string>();
    expect(records.map((record, i) => shown(record, i + 1, offered))).toEqual(expected);
  });
});
