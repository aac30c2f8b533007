/**
 * What a record shows, read the way the endpoint's page reads it (its transcript entries): who,
 * the text, the buttons, the images, the click (by the label of the button offered with that id),
 * the intent, the event; for Messenger, the attachments as sent.
 */
import type { PlatformKind } from '../../src/protocol/index.js';
import { transcriptEntries } from 'botbuilder-conversation-analytics-endpoint';
import type { StoredRecord } from 'botbuilder-conversation-analytics-endpoint';
import type { Saw } from './fixtures/conversations.js';
import type { Received } from './harness.js';

export const KIND: Record<string, PlatformKind> = { universal: 'universal', sms: 'sms', facebook: 'messenger', twitter: 'directMessage' };

/** A messenger record's message attachments: the webhook event's (incoming) or the send request's (outgoing). */
function messengerAttachments(record: Received): unknown[] | undefined {
  const message = record.type === 'incoming' ? record.body.entry?.[0]?.messaging?.[0]?.message : record.body.json?.message;
  return Array.isArray(message?.attachments) && message.attachments.length > 0 ? message.attachments : undefined;
}

/**
 * What a record shows. `offered` maps the ids of buttons shown so far to their labels (a click
 * shows the label of the button offered with its id, as the page does). With `withExtraInfo`, an
 * event shows its `extraInfo` too.
 */
export function shown(record: Received, seq: number, offered: Map<string, string>, withExtraInfo = false): Saw {
  const stored = { seq, receivedAt: '2026-05-01T10:00:00.000Z', platform: record.platform, platformKind: KIND[record.platform], type: record.type, body: record.body } as unknown as StoredRecord;
  const [entry] = transcriptEntries(stored);
  if (entry.event) return withExtraInfo ? { userId: entry.userId, event: entry.event.name, extraInfo: record.body.extraInfo } : { userId: entry.userId, event: entry.event.name };
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
