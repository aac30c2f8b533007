/**
 * One realistic conversation per channel (fixtures/conversations.ts), replayed through the
 * middleware: every record is accepted, and read back the way the endpoint's page reads it, each
 * one shows what the user saw: who, the text, the buttons (ids and values too), the images, the
 * click, the intent with its inputs, the events; for Messenger, the attachments as sent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestAdapter, type Activity } from 'botbuilder';
import { validate, type PlatformKind } from '../../src/protocol/index.js';
import { transcriptEntries } from 'botbuilder-conversation-analytics-endpoint';
import type { StoredRecord } from 'botbuilder-conversation-analytics-endpoint';
import { TrackingMiddleware } from '../../src/middleware/index.js';
import { CONVERSATIONS, type Saw } from './fixtures/conversations.js';
import { startHarness, type Harness, type Received } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const KIND: Record<string, PlatformKind> = { universal: 'universal', sms: 'sms', facebook: 'messenger', twitter: 'directMessage' };

/** A messenger record's message attachments: the webhook event's (incoming) or the send request's (outgoing). */
function messengerAttachments(record: Received): unknown[] | undefined {
  const message = record.type === 'incoming' ? record.body.entry?.[0]?.messaging?.[0]?.message : record.body.json?.message;
  return Array.isArray(message?.attachments) && message.attachments.length > 0 ? message.attachments : undefined;
}

/** What a record shows, read as the page reads it. `offered` maps the ids of buttons shown so far to their labels. */
function shown(record: Received, seq: number, offered: Map<string, string>): Saw {
  const stored = { seq, receivedAt: '2026-05-01T10:00:00.000Z', platform: record.platform, platformKind: KIND[record.platform], type: record.type, body: record.body } as unknown as StoredRecord;
  const [entry] = transcriptEntries(stored);
  if (entry.event) return { userId: entry.userId, event: entry.event.name };
  const saw: Saw = { userId: entry.userId, text: entry.text ?? '' };
  if (entry.buttons) saw.buttons = entry.buttons.map(({ id, label, value }) => ({ id, label, value }));
  if (entry.images) saw.images = entry.images;
  if (entry.clickedButton !== undefined) saw.clicked = offered.get(entry.clickedButton) ?? `(no button offered with id ${entry.clickedButton})`;
  if (entry.intent) saw.intent = entry.intent;
  const attachments = KIND[record.platform] === 'messenger' ? messengerAttachments(record) : undefined;
  if (attachments) saw.attachments = attachments;
  for (const button of entry.buttons ?? []) offered.set(button.id, button.label);
  return saw;
}

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
