/**
 * Turns a stored record into transcript entries for display, whatever its platform shape.
 * Reads only the fields it knows, checks each one's type, and never throws: a record that was
 * hand-edited in the data file just yields fewer fields. Fields left `undefined` are omitted from JSON.
 */
import { isPlainObject } from '../../protocol/index.js';
import type { EntryButton, EntryEvent, EntryIntent, StoredRecord, TranscriptEntry } from '../types.js';

type Obj = Record<string, unknown>;

function obj(value: unknown): Obj | undefined {
  return isPlainObject(value) ? value : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function intentOf(value: unknown): EntryIntent | undefined {
  const intent = obj(value);
  const name = str(intent?.name);
  if (!intent || name === undefined) return undefined;
  const inputs: EntryIntent['inputs'] = [];
  for (const item of list(intent.inputs)) {
    const input = obj(item);
    const inputName = str(input?.name);
    if (inputName !== undefined) inputs.push({ name: inputName, value: str(input?.value) ?? '' });
  }
  return { name, inputs };
}

function nonEmpty<T>(items: T[]): T[] | undefined {
  return items.length > 0 ? items : undefined;
}

function genericButtons(value: unknown): EntryButton[] | undefined {
  const buttons: EntryButton[] = [];
  for (const item of list(value)) {
    const b = obj(item);
    if (b) buttons.push({ id: str(b.id) ?? '', label: str(b.label) ?? '', value: str(b.value) ?? '' });
  }
  return nonEmpty(buttons);
}

function genericImages(value: unknown): string[] | undefined {
  return nonEmpty(list(value).map((item) => str(obj(item)?.url)).filter((url): url is string => url !== undefined));
}

/** A messenger message's attachments (`attachment` or `attachments`) as objects. */
function messengerAttachments(message: Obj | undefined): Obj[] {
  return [message?.attachment, ...list(message?.attachments)].map(obj).filter((a): a is Obj => a !== undefined);
}

/** The elements of a generic template attachment (cards), or `[]`. */
function templateElements(attachment: Obj): Obj[] {
  return list(obj(attachment.payload)?.elements).map(obj).filter((e): e is Obj => e !== undefined);
}

/** Quick replies, button-template buttons and card buttons of a messenger message the bot sent. */
function messengerButtons(message: Obj | undefined): EntryButton[] | undefined {
  const buttons: EntryButton[] = [];
  const add = (b: Obj | undefined) => {
    if (!b) return;
    const value = str(b.payload) ?? str(b.url) ?? '';
    buttons.push({ id: value, label: str(b.title) ?? '', value });
  };
  for (const reply of list(message?.quick_replies)) add(obj(reply));
  for (const attachment of messengerAttachments(message)) {
    for (const button of list(obj(attachment.payload)?.buttons)) add(obj(button));
    for (const element of templateElements(attachment)) for (const button of list(element.buttons)) add(obj(button));
  }
  return nonEmpty(buttons);
}

/** URLs of a messenger message's image attachments and card images. */
function messengerImages(message: Obj | undefined): string[] | undefined {
  const urls: string[] = [];
  for (const attachment of messengerAttachments(message)) {
    const url = str(obj(attachment.payload)?.url);
    if (attachment.type === 'image' && url !== undefined) urls.push(url);
    for (const element of templateElements(attachment)) {
      const image = str(element.image_url);
      if (image !== undefined) urls.push(image);
    }
  }
  return nonEmpty(urls);
}

/** A messenger message's text; for a template without text, its text or its cards' titles and subtitles. */
function messengerText(message: Obj | undefined): string | undefined {
  const text = str(message?.text);
  if (text) return text;
  const parts: string[] = [];
  for (const attachment of messengerAttachments(message)) {
    const templateText = str(obj(attachment.payload)?.text);
    if (templateText) parts.push(templateText);
    for (const element of templateElements(attachment)) {
      parts.push(...[str(element.title), str(element.subtitle)].filter((part): part is string => !!part));
    }
  }
  return parts.length > 0 ? parts.join('\n') : text;
}

function head(record: StoredRecord): Pick<TranscriptEntry, 'seq' | 'time' | 'platform' | 'type'> {
  return { seq: record.seq, time: record.receivedAt, platform: record.platform, type: record.type };
}

function eventEntry(record: StoredRecord, body: Obj): TranscriptEntry {
  const userId = str(body.userId) ?? '';
  const event: EntryEvent = { name: str(body.name) ?? '', type: str(body.type) ?? '' };
  if (typeof body.amount === 'number' && Number.isFinite(body.amount)) event.amount = body.amount;
  const reference = str(body.referenceNumber);
  if (reference !== undefined) event.referenceNumber = reference;
  // Messenger messages carry no conversation id, so their conversation is the user (with the page):
  // a messenger event goes there too, whatever conversationId a bot framework gave it.
  const conversationId = record.platformKind === 'messenger' ? userId : str(body.conversationId) || userId;
  return { ...head(record), direction: 'event', userId, conversationId, event };
}

function messengerIncomingEntries(record: StoredRecord, body: Obj): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  for (const webhookEntry of list(body.entry)) {
    for (const item of list(obj(webhookEntry)?.messaging)) {
      const messaging = obj(item);
      if (!messaging) continue;
      const message = obj(messaging.message);
      const userId = str(obj(messaging.sender)?.id) ?? '';
      const postback = str(obj(messaging.postback)?.payload) ?? str(obj(message?.quick_reply)?.payload);
      entries.push({
        ...head(record), direction: 'incoming', userId, conversationId: userId,
        text: str(message?.text) ?? str(obj(messaging.postback)?.title),
        intent: intentOf(messaging.intent), clickedButton: postback, images: messengerImages(message),
      });
    }
  }
  return entries;
}

function messengerOutgoingEntry(record: StoredRecord, body: Obj): TranscriptEntry {
  const json = obj(body.json);
  const message = obj(json?.message);
  const userId = str(obj(json?.recipient)?.id) ?? '';
  return {
    ...head(record), direction: 'outgoing', userId, conversationId: userId, text: messengerText(message),
    intent: intentOf(body.intent), buttons: messengerButtons(message), images: messengerImages(message),
  };
}

/** True when an activity's entities mark it AI-generated (the Schema.org `Message` entity with `additionalType` `AIGeneratedContent`). */
function isAiGenerated(platformJson: Obj | undefined): boolean {
  return list(platformJson?.entities).some((item) => {
    const entity = obj(item);
    return entity !== undefined && (entity.type === 'https://schema.org/Message' || entity['@type'] === 'Message') && list(entity.additionalType).includes('AIGeneratedContent');
  });
}

function genericEntry(record: StoredRecord, body: Obj): TranscriptEntry {
  const userId = str(body.userId) ?? '';
  const platformJson = obj(body.platformJson);
  const conversationId = str(obj(platformJson?.conversation)?.id) || userId;
  return {
    ...head(record), direction: record.type === 'outgoing' ? 'outgoing' : 'incoming', userId, conversationId,
    channel: str(platformJson?.channelId) || undefined, text: str(body.text), intent: intentOf(body.intent), buttons: genericButtons(body.buttons),
    clickedButton: str(obj(obj(body.postback)?.buttonClick)?.buttonId), images: genericImages(body.images),
    aiGenerated: isAiGenerated(platformJson) || undefined,
  };
}

/**
 * The transcript entries of one stored record: one for a generic message or an event, one per
 * messaging item for a messenger webhook record. Returns `[]` for a record it cannot read.
 */
export function transcriptEntries(record: StoredRecord): TranscriptEntry[] {
  const body = obj(record.body);
  if (!body) return [];
  if (record.type === 'event') return [eventEntry(record, body)];
  if (record.platformKind === 'messenger') {
    return record.type === 'incoming' ? messengerIncomingEntries(record, body) : [messengerOutgoingEntry(record, body)];
  }
  return [genericEntry(record, body)];
}
