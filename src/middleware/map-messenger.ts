/**
 * Activities as records of the messenger platform: the webhook payload for incoming messages,
 * the send request and the platform's reply for outgoing ones.
 */
import type { ActivityLike, ResourceResponseLike } from './sdk-types.js';
import type { Intent, MessengerIncoming, MessengerMessaging, MessengerOutgoing } from '../protocol/index.js';
import { isImageAttachment } from './attachments.js';
import { cardContent, HERO_CARD, THUMBNAIL_CARD } from './cards.js';
import { jsonSafe, jsonSafeObject, redactUrlSecrets } from './platform-json.js';
import { epochMs, fieldOf, idOf, isObject, orElse, stringify } from './values.js';

function withIntent(messaging: Record<string, unknown>, intent: Intent | undefined): MessengerMessaging {
  return (intent === undefined ? messaging : { ...messaging, intent }) as MessengerMessaging;
}

/** A hero or thumbnail card's content (they become generic templates; content given as a JSON string is parsed), or `undefined`. */
function heroContent(attachment: Record<string, any>): Record<string, any> | undefined {
  const type = attachment.contentType;
  return type === HERO_CARD || type === THUMBNAIL_CARD ? cardContent(attachment) : undefined;
}

/**
 * Messenger attachments of an activity: images (by content type, or by a URL that names an image
 * file), other media and files, hero/thumbnail cards as generic templates, and attachments
 * without a URL (templates, reused `attachment_id`s) kept as the bot sent them.
 */
export function messengerAttachments(activity: ActivityLike): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const attachments: unknown = orElse(() => activity.attachments, undefined);
  for (const attachment of Array.isArray(attachments) ? attachments : []) {
    if (!isObject(attachment)) continue;
    try {
      messengerAttachment(attachment, out);
    } catch {
      // An attachment whose fields throw when read: left out, the others are kept.
    }
  }
  return out;
}

/** Appends the Messenger form of one attachment to `out`. */
function messengerAttachment(attachment: Record<string, any>, out: Record<string, unknown>[]): void {
  const card = heroContent(attachment);
  if (card !== undefined) {
    // Each field on its own: one whose getter throws is left out, the template keeps the others.
    const images = fieldOf(card, 'images');
    const image = Array.isArray(images) && isObject(images[0]) ? fieldOf(images[0], 'url') : undefined;
    const cardButtons = fieldOf(card, 'buttons');
    const buttons = (Array.isArray(cardButtons) ? cardButtons : []).filter(isObject).map((b: Record<string, any>) => {
      const [type, title, value] = [fieldOf(b, 'type'), stringify(fieldOf(b, 'title')), stringify(fieldOf(b, 'value'))];
      return type === 'openUrl' ? { type: 'web_url', title, url: value } : { type: 'postback', title, payload: value };
    });
    const element = jsonSafeObject({ title: fieldOf(card, 'title'), subtitle: fieldOf(card, 'subtitle') ?? fieldOf(card, 'text'), image_url: image, buttons: buttons.length > 0 ? buttons : undefined });
    out.push({ type: 'template', payload: { template_type: 'generic', elements: [element] } });
    return;
  }
  const type = typeof attachment.contentType === 'string' ? attachment.contentType : '';
  if (typeof attachment.contentUrl !== 'string') {
    // No URL: a Messenger attachment as such ({type, payload}: a template, an attachment_id), or other content, kept as sent.
    const content = jsonSafe(attachment.content);
    if (isObject(content) && typeof content.type === 'string' && isObject(content.payload)) out.push(content);
    else if (content !== undefined) out.push({ type: type === '' ? 'template' : type, payload: content });
    return;
  }
  if (/^data:/i.test(attachment.contentUrl)) return;
  const kind = isImageAttachment(attachment) ? 'image' : /^video\//i.test(type) ? 'video' : /^audio\//i.test(type) ? 'audio' : 'file';
  out.push({ type: kind, payload: { url: redactUrlSecrets(attachment.contentUrl) } });
}

/**
 * A messaging event as published adapters deliver it, made to fit the spec without losing
 * anything: numeric `sender.id`/`recipient.id` as strings, and a `message.text` of `null` (a
 * sticker, an attachment) as `''`.
 */
function tolerantMessaging(messaging: Record<string, any>): Record<string, any> {
  const out = { ...messaging };
  for (const side of ['sender', 'recipient'] as const) {
    const party = out[side];
    if (isObject(party) && typeof party.id !== 'string' && idOf(party.id) !== undefined) out[side] = { ...party, id: idOf(party.id) };
  }
  if (isObject(out.message) && out.message.text === null) {
    out.message = { ...out.message, text: '' };
  }
  return out;
}

/** The messaging event built from the activity itself, when the channel did not deliver the original. */
function messagingFromActivity(activity: ActivityLike, receivedAt: number): Record<string, unknown> {
  const message: Record<string, unknown> = {};
  if (typeof activity.id === 'string') message.mid = activity.id;
  message.text = typeof activity.text === 'string' ? activity.text : '';
  const attachments = messengerAttachments(activity);
  if (attachments.length > 0) message.attachments = attachments;
  return {
    sender: { id: idOf(activity.from?.id) ?? '' },
    recipient: { id: idOf(activity.recipient?.id) ?? '' },
    timestamp: epochMs(activity.timestamp, receivedAt),
    message,
  };
}

/**
 * The incoming record of a messenger message: the webhook payload
 * `{object: 'page', entry: [{id, time, messaging: [event]}]}`, with `intent` on each messaging event.
 * - `channelData` is a whole webhook payload (`object` and `entry`): used as it is.
 * - `channelData` is a messaging event (it has `sender.id`; the Facebook channel puts the original
 *   event there): that event, with `recipient` and `timestamp` taken from the activity when missing.
 * - otherwise the event is built from the activity: `sender.id` = `from.id`, `recipient.id` =
 *   `recipient.id`, `timestamp` = the activity's, `message` = `{mid: activity.id, text}` (+ attachments).
 * The entry's `id` is the page (the recipient) and its `time` the event's timestamp. Everything is
 * copied JSON-safe without secrets; the activity is not changed. `receivedAt` is used when the
 * activity has no timestamp.
 */
export function messengerIncoming(activity: ActivityLike, intent: Intent | undefined, receivedAt: number): MessengerIncoming {
  const channelData = jsonSafe(orElse(() => activity.channelData, undefined));
  if (isObject(channelData) && typeof channelData.object === 'string' && Array.isArray(channelData.entry) && channelData.entry.length > 0) {
    const entry = channelData.entry.map((e: unknown) =>
      isObject(e) && Array.isArray(e.messaging) ? { ...e, messaging: e.messaging.map((m: unknown) => (isObject(m) ? withIntent(tolerantMessaging(m), intent) : m)) } : e,
    );
    return { ...channelData, entry } as MessengerIncoming;
  }
  let messaging: Record<string, unknown>;
  if (isObject(channelData) && isObject(channelData.sender) && idOf(channelData.sender.id) !== undefined) {
    messaging = {
      ...channelData,
      recipient: isObject(channelData.recipient) ? channelData.recipient : { id: idOf(activity.recipient?.id) ?? '' },
      timestamp: typeof channelData.timestamp === 'number' ? channelData.timestamp : epochMs(activity.timestamp, receivedAt),
    };
  } else {
    messaging = messagingFromActivity(activity, receivedAt);
  }
  messaging = tolerantMessaging(messaging);
  const page = isObject(messaging.recipient) ? stringify(messaging.recipient.id) : '';
  return {
    object: 'page',
    entry: [{ id: page, time: messaging.timestamp as number, messaging: [withIntent(messaging, intent)] }],
  };
}

/** `encodeURIComponent` that never throws: lone surrogates (invalid UTF-16, which it refuses) become U+FFFD first. */
function encodeSegment(value: string): string {
  return encodeURIComponent(value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
}

/** Where the bot posted an activity: `{serviceUrl}/v3/conversations/{id}/activities[/{replyToId}]`, secrets masked. */
export function connectorUri(activity: ActivityLike): string | undefined {
  const base = activity.serviceUrl;
  const conversation = activity.conversation?.id;
  if (typeof base !== 'string' || base === '' || typeof conversation !== 'string') return undefined;
  const reply = typeof activity.replyToId === 'string' && activity.replyToId !== '' ? `/${encodeSegment(activity.replyToId)}` : '';
  return redactUrlSecrets(`${base.replace(/\/+$/, '')}/v3/conversations/${encodeSegment(conversation)}/activities${reply}`);
}

/** Options of `messengerOutgoing`. */
export interface MessengerOutgoingOptions {
  /** The page access token to put in `qs.access_token`; left out when not given. */
  accessToken?: string;
  /** The `uri` to record; default `connectorUri(activity)`. */
  uri?: string;
}

/** Send API fields a bot can give in `channelData`, which go beside `message` in `json`. */
const SEND_API_FIELDS = ['messaging_type', 'tag', 'notification_type', 'persona_id', 'sender_action'] as const;

/**
 * The outgoing record of a messenger message: `json` = `{recipient: {id}, message: {text,
 * attachments?, quick_replies?}}` (cards as generic templates, suggested actions as quick
 * replies, and `channelData.attachment`/`quick_replies`/`sticker_id` when the bot gave native
 * ones; `channelData`'s `messaging_type`, `tag`, `notification_type`, `persona_id` and
 * `sender_action` beside `message`),
 * `method: 'POST'`, `uri`, `responseBody` = `{recipient_id, message_id}` with `message_id` the
 * id of the channel's ResourceResponse (left out when it has none), `qs.access_token` only when
 * `options.accessToken` is set, and `intent` at the root.
 */
export function messengerOutgoing(
  activity: ActivityLike,
  response: ResourceResponseLike | undefined,
  intent: Intent | undefined,
  options: MessengerOutgoingOptions = {},
): MessengerOutgoing {
  const recipient = idOf(activity.recipient?.id) ?? '';
  const message: Record<string, unknown> = { text: typeof activity.text === 'string' ? activity.text : '' };
  const attachments = messengerAttachments(activity);
  if (attachments.length > 0) message.attachments = attachments;
  const actions = activity.suggestedActions?.actions;
  if (Array.isArray(actions) && actions.length > 0) {
    message.quick_replies = actions.filter(isObject).map((a: Record<string, any>) => ({ content_type: 'text', title: stringify(a.title ?? a.value), payload: stringify(a.value) }));
  }
  const json: MessengerOutgoing['json'] = { recipient: { id: recipient }, message };
  const channelData = jsonSafeObject(activity.channelData);
  if (channelData !== undefined) {
    if (isObject(channelData.attachment)) message.attachment = channelData.attachment;
    if (Array.isArray(channelData.quick_replies)) message.quick_replies = channelData.quick_replies;
    if (typeof channelData.sticker_id === 'number' || typeof channelData.sticker_id === 'string') message.sticker_id = channelData.sticker_id;
    // The Send API's fields beside the message, as the Facebook adapter copies them from channelData.
    for (const key of SEND_API_FIELDS) if (typeof channelData[key] === 'string') json[key] = channelData[key];
  }
  const responseBody: Record<string, string> = { recipient_id: recipient };
  const messageId = response?.id ?? activity.id;
  if (typeof messageId === 'string' && messageId !== '') responseBody.message_id = messageId;
  const record: MessengerOutgoing = { json, method: 'POST', responseBody };
  const uri = options.uri ?? connectorUri(activity);
  if (uri !== undefined) record.uri = uri;
  if (options.accessToken !== undefined && options.accessToken !== '') record.qs = { access_token: options.accessToken };
  if (intent !== undefined) record.intent = intent;
  return record;
}
