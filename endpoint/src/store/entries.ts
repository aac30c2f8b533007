/**
 * Turns a stored record into transcript entries, whatever its platform shape: what the page and
 * the read API show, and what the store indexes (store/rows.ts). Reads only the fields it knows,
 * checks each one's type, and never throws: a record with odd content just yields fewer fields.
 * Fields left `undefined` are omitted from JSON.
 */
import { isPlainObject } from 'botbuilder-conversation-analytics/protocol';
import type { EntryButton, EntryEvent, EntryIntent, StoredRecord, TranscriptEntry } from '../types.js';

type Obj = Record<string, unknown>;

function obj(value: unknown): Obj | undefined {
  return isPlainObject(value) ? value : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function list(value: unknown): unknown[] {
  // Stryker disable next-line ArrayDeclaration: every caller skips items that are not objects (or not the string it looks for), so an item in place of nothing is skipped too.
  return Array.isArray(value) ? value : [];
}

function intentOf(value: unknown): EntryIntent | undefined {
  const intent = obj(value);
  const name = str(intent?.name);
  if (!intent || name === undefined) return undefined;
  const inputs: EntryIntent['inputs'] = [];
  for (const item of list(intent.inputs)) {
    const input = obj(item);
    if (input === undefined) continue;
    const inputName = str(input.name);
    if (inputName !== undefined) inputs.push({ name: inputName, value: str(input.value) ?? '' });
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

/**
 * The fields every entry starts with, written out as the first properties of its literal.
 * (Spread into a literal that then gets a dozen more properties, an object costs V8 about 25 µs
 * instead of a few hundred ns, so each entry is written out as one literal.)
 */
function head(record: StoredRecord, occurred = Number.NaN): Pick<TranscriptEntry, 'seq' | 'time' | 'receivedAt' | 'platform' | 'type'> {
  return { seq: record.seq, time: occurredTime(occurred, record.receivedAt), receivedAt: record.receivedAt, platform: record.platform, type: record.type };
}

/** A day's worth of clock skew: a record may say it happened this far after it was received. */
const MAX_FUTURE_MS = 86_400_000;
/** Times before this (2000-01-01) are taken for mistakes, not history. */
const EARLIEST_MS = 946_684_800_000;

/**
 * When an entry happened: `occurred` (epoch ms, from the record; NaN for none) when it is a
 * plausible time (after 2000, and not more than a day after the record was received), else when
 * it was received.
 */
function occurredTime(occurred: number, receivedAt: string): string {
  if (!Number.isFinite(occurred) || occurred < EARLIEST_MS) return receivedAt;
  if (occurred > Date.parse(receivedAt) + MAX_FUTURE_MS) {
    ahead++;
    return receivedAt;
  }
  return new Date(Math.floor(occurred)).toISOString();
}

/** Entries placed at arrival because their time was more than a day ahead, counted while `entriesAhead` reads a record. */
let ahead = 0;

/**
 * How many of a record's entries say they happened more than a day after the endpoint received
 * it (a clock far ahead): each is placed at its arrival instead, and the endpoint's summary line
 * counts them.
 */
export function entriesAhead(record: StoredRecord): number {
  ahead = 0;
  transcriptEntries(record);
  return ahead;
}

/** The first of `values` that is a time, an ISO 8601 text (an activity's `timestamp`) or epoch milliseconds, as epoch milliseconds; NaN for none. */
function timeOf(...values: unknown[]): number {
  for (const value of values) {
    if (typeof value === 'number') return value;
    if (typeof value === 'string' && value.length <= 64) {
      const ms = Date.parse(value);
      if (!Number.isNaN(ms)) return ms;
    }
  }
  return Number.NaN;
}

/** A number given as numeric text (not blank). */
function numberOf(value: string): number | undefined {
  const n = value.trim() === '' ? NaN : Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** The recognizer's confidence, when the intent's inputs carry it: the last `score` input (the middleware puts it after the entities). */
function scoreOf(intent: EntryIntent | undefined): number | undefined {
  if (intent === undefined) return undefined;
  const { inputs } = intent;
  for (let i = inputs.length - 1; i >= 0; i--) if (inputs[i].name === 'score') return numberOf(inputs[i].value);
  return undefined;
}

/** A currency code (`EUR`, `usd`) as given, upper-cased: three letters, else `undefined`. */
function currencyOf(...values: unknown[]): string | undefined {
  for (const value of values) if (typeof value === 'string' && /^[A-Za-z]{3}$/.test(value)) return value.toUpperCase();
  return undefined;
}

function eventEntry(record: StoredRecord, body: Obj): TranscriptEntry {
  const userId = str(body.userId) ?? '';
  const event: EntryEvent = { name: str(body.name) ?? '', type: str(body.type) ?? '' };
  if (Number.isFinite(body.amount)) event.amount = body.amount as number;
  const reference = str(body.referenceNumber);
  if (reference !== undefined) event.referenceNumber = reference;
  const metadata = obj(body.metadata);
  const extraInfo = obj(body.extraInfo);
  const currency = currencyOf(metadata?.currency, metadata?.currencyCode, extraInfo?.currency);
  if (currency !== undefined) event.currency = currency;
  if (extraInfo !== undefined) event.extraInfo = extraInfo;
  // Messenger messages carry no conversation id, so their conversation is the user (with the page):
  // a messenger event goes there too, whatever conversationId a bot framework gave it.
  const conversationId = record.platformKind === 'messenger' ? userId : str(body.conversationId) || userId;
  // The spec gives events no time of their own: one in extraInfo or metadata (free-form) is taken.
  const h = head(record, timeOf(extraInfo?.timestamp, metadata?.timestamp));
  return { seq: h.seq, time: h.time, receivedAt: h.receivedAt, platform: h.platform, type: h.type, direction: 'event', userId, conversationId, event };
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
      const intent = intentOf(messaging.intent);
      const h = head(record, timeOf(messaging.timestamp));
      entries.push({
        seq: h.seq, time: h.time, receivedAt: h.receivedAt, platform: h.platform, type: h.type, direction: 'incoming', userId, conversationId: userId,
        text: str(message?.text) ?? str(obj(messaging.postback)?.title),
        intent, intentScore: scoreOf(intent), clickedButton: postback, images: messengerImages(message),
      });
    }
  }
  return entries;
}

function messengerOutgoingEntry(record: StoredRecord, body: Obj): TranscriptEntry {
  const json = obj(body.json);
  const message = obj(json?.message);
  const userId = str(obj(json?.recipient)?.id) ?? '';
  const intent = intentOf(body.intent);
  const h = head(record);
  return {
    seq: h.seq, time: h.time, receivedAt: h.receivedAt, platform: h.platform, type: h.type, direction: 'outgoing', userId, conversationId: userId, text: messengerText(message),
    intent, intentScore: scoreOf(intent), buttons: messengerButtons(message), images: messengerImages(message),
  };
}

/** The content types of Bot Framework cards whose title, subtitle and text are what a user reads on them (as a Messenger template shows its cards). */
const TEXT_CARDS = new Set(['application/vnd.microsoft.card.hero', 'application/vnd.microsoft.card.thumbnail']);

/**
 * The text of a generic message: its `text`; but for a card-only activity (`platformJson` with no
 * text of its own) whose record text is its first card's title (or nothing), the cards' titles,
 * subtitles and texts, one a line, as a Messenger template's are (`messengerText`), so that a
 * hero card reads the same on Web Chat as on Facebook.
 */
function genericText(body: Obj, platformJson: Obj | undefined): string | undefined {
  const text = str(body.text);
  if (str(platformJson?.text)) return text;
  const parts: string[] = [];
  for (const item of list(platformJson?.attachments)) {
    const attachment = obj(item);
    const content = obj(attachment?.content);
    if (content === undefined || !TEXT_CARDS.has(attachment!.contentType as string)) continue;
    parts.push(...[str(content.title), str(content.subtitle), str(content.text)].filter((part): part is string => part !== undefined && part.trim() !== ''));
  }
  return parts.length > 0 && (!text || text === parts[0]) ? parts.join('\n') : text;
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
  const direction = record.type === 'outgoing' ? 'outgoing' : 'incoming';
  // The user is `from` of what they send and `recipient` of what the bot sends.
  const userName = str(obj(direction === 'incoming' ? platformJson?.from : platformJson?.recipient)?.name) || undefined;
  const intent = intentOf(body.intent);
  const h = head(record, timeOf(platformJson?.timestamp));
  return {
    seq: h.seq, time: h.time, receivedAt: h.receivedAt, platform: h.platform, type: h.type, direction, userId, userName, conversationId,
    channel: str(platformJson?.channelId) || undefined, text: genericText(body, platformJson), intent, intentScore: scoreOf(intent), buttons: genericButtons(body.buttons),
    clickedButton: str(obj(obj(body.postback)?.buttonClick)?.buttonId), images: genericImages(body.images),
    aiGenerated: isAiGenerated(platformJson) || undefined,
    activityId: str(platformJson?.id) || undefined,
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
